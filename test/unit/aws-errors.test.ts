/** The one line an AWS failure becomes (scripts/platforms/aws/aws-errors.ts). */
import { explainAwsError } from '../../scripts/platforms/aws/aws-errors';
import { RigError, UsageError } from '../../scripts/errors';

describe('explainAwsError', () => {
  test("an unexpected service error is one line, whatever its message carries (a body over several lines)", () => {
    const err = Object.assign(new Error('<ErrorResponse>\n  <Error>\n    <Code>Throttling</Code>\n  </Error>\n</ErrorResponse>'), { name: 'Throttling' });
    const e = explainAwsError(err, { region: 'eu-west-1', doing: 'listing' });
    expect(e).toBeInstanceOf(RigError);
    expect(e.message).toBe('AWS error while listing in eu-west-1: Throttling: <ErrorResponse> <Error> <Code>Throttling</Code> </Error> </ErrorResponse>');
  });

  test('no credentials: --platform local is offered only where it exists (npm run loadtest)', () => {
    const err = Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
    expect(explainAwsError(err, { region: 'eu-west-1', doing: 'running' }).message).toMatch(/ or run with --platform local$/);
    const leftovers = explainAwsError(err, { region: 'eu-west-1', doing: 'listing', localAlternative: false });
    expect(leftovers).toBeInstanceOf(UsageError);
    expect(leftovers.message).not.toMatch(/--platform/);
  });

  test('an unreachable endpoint names where the region came from', () => {
    const err = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    expect(explainAwsError(err, { region: 'eu-wset-1', doing: 'listing', regionFrom: '--region' }).message).toMatch(/check --region \(the region you deployed to\)/);
    expect(explainAwsError(err, { region: 'eu-wset-1', doing: 'running' }).message).toMatch(/check AWS_REGION /);
  });
});
