/** The one line an AWS failure becomes (scripts/platforms/aws/aws-errors.ts). */
import { STSServiceException } from '@aws-sdk/client-sts';
import { RegionInfo } from 'aws-cdk-lib/region-info';
import { OPT_IN_REGIONS, explainAwsError, stopGeneratorsCommand } from '../../scripts/platforms/aws/aws-errors';
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

  const awsError = (name: string, status: number, message = 'The security token included in the request is expired') => Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });
  const STOP = { stopGenerators: stopGeneratorsCommand({ generatorAsgName: 'gen', region: 'eu-west-1' }) };

  test('credentials that expire mid-run: one rig-failure line (exit 3) saying the generators may still be up and how to stop them', () => {
    const expired = [
      awsError('ExpiredToken', 400), // S3
      awsError('ExpiredTokenException', 400), // STS, SSM
      awsError('ExpiredToken', 403), // Auto Scaling, CloudWatch: HTTP 403
      awsError('RequestExpired', 400),
      awsError('InvalidClientTokenId', 403),
      awsError('TokenRefreshRequired', 400),
      Object.assign(new Error('The SSO session associated with this profile has expired or is otherwise invalid'), { name: 'CredentialsProviderError' }),
      Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }),
    ];
    for (const err of expired) {
      const e = explainAwsError(err, { region: 'eu-west-1', doing: 'running on AWS', started: STOP });
      expect(e).toBeInstanceOf(RigError);
      expect(e.message).toBe(`the AWS credentials expired mid-run (${err.name} while running on AWS); the generator group may still be running: refresh them (aws sso login / a new session), then scale it to 0: \`aws autoscaling set-desired-capacity --auto-scaling-group-name gen --desired-capacity 0 --region eu-west-1\``);
    }
  });

  test('once the run has started, no AWS error reads as "nothing was started" (exit 2)', () => {
    const e = explainAwsError(awsError('AccessDenied', 403, 'not allowed'), { region: 'eu-west-1', doing: 'running on AWS', started: STOP });
    expect(e).toBeInstanceOf(RigError);
    expect(e).not.toBeInstanceOf(UsageError);
    expect(e.message).toMatch(/^access denied while running on AWS/);
  });

  test('before anything starts, expired credentials say so (not "access denied", not "no credentials found")', () => {
    const line = (err: Error) => explainAwsError(err, { region: 'eu-west-1', doing: 'describing the generator group gen' });
    for (const err of [awsError('ExpiredToken', 403), Object.assign(new Error('The SSO session associated with this profile has expired'), { name: 'CredentialsProviderError' })]) {
      expect(line(err)).toBeInstanceOf(UsageError);
      expect(line(err).message).toBe(`the AWS credentials expired while describing the generator group gen (${err.name}); refresh them (aws sso login / a new session) and retry`);
    }
    // Keys that never worked are not "expired".
    expect(line(awsError('InvalidClientTokenId', 403, 'The security token included in the request is invalid')).message).not.toMatch(/expired/);
  });

  // IAM API Reference, SetSecurityTokenServicePreferences: tokens from STS's global endpoint are version 1 by default,
  // "valid only in AWS Regions that are available by default" and not in manually enabled (opt-in) ones; a region not
  // enabled for the account rejects every request alike. Either way AWS answers "The security token included in the
  // request is invalid" (InvalidClientTokenId), and refreshing the same credentials fixes neither.
  test('credentials AWS cannot validate in an opt-in region (ap-east-1): the region not enabled, global-endpoint (v1) tokens, or invalid keys, not "refresh them"', () => {
    const invalid = () => new STSServiceException({ name: 'InvalidClientTokenId', $fault: 'client', $metadata: { httpStatusCode: 403 }, message: 'The security token included in the request is invalid' });
    const e = explainAwsError(invalid(), { region: 'ap-east-1', doing: 'checking the AWS credentials (STS GetCallerIdentity)' });
    expect(e).toBeInstanceOf(UsageError);
    expect(e.message).toMatch(/^AWS did not accept the credentials in ap-east-1, an opt-in region, while checking the AWS credentials \(STS GetCallerIdentity\) \(InvalidClientTokenId\): either the region is not enabled for this account \(enable it: .*aws account enable-region --region-name ap-east-1\), or they are session tokens from STS's global endpoint, .*AWS_STS_REGIONAL_ENDPOINTS=regional.*--global-endpoint-token-version v2Token\); /);
    // Keys that are invalid everywhere (mistyped, deactivated, deleted) give the same answer: the line names the check
    // that tells them apart (they fail in a region enabled by default too) and their fix.
    expect(e.message).toMatch(/; if `aws sts get-caller-identity --region us-east-1` \(a region enabled by default\) fails too, neither: the keys themselves are invalid, deactivated or deleted \(replace them\)$/);
    expect(e.message).not.toMatch(/refresh them/);
    // EC2's and JSON APIs' names for the same refusal (af-south-1), from any service before the run.
    for (const name of ['AuthFailure', 'UnrecognizedClientException']) {
      expect(explainAwsError(awsError(name, 401, 'AWS was not able to validate the provided access credentials'), { region: 'af-south-1', doing: 'reading the quota' }).message).toMatch(/^AWS did not accept the credentials in af-south-1, an opt-in region/);
    }
    // In a region enabled by default the same error keeps its line.
    expect(explainAwsError(invalid(), { region: 'eu-west-1', doing: 'checking' }).message).toMatch(/^AWS rejected the credentials while checking \(InvalidClientTokenId/);
  });

  test("the opt-in regions are aws-cdk-lib's (its region facts)", () => {
    const cdk = RegionInfo.regions.filter((r) => r.isOptInRegion && r.partition === 'aws').map((r) => r.name).sort();
    expect([...OPT_IN_REGIONS].sort()).toEqual(cdk);
  });

  test('the command that stops the generators names every group of the outputs, or says what to fill in', () => {
    expect(stopGeneratorsCommand({ generatorAsgName: 'gen', regions: [{ generatorAsgName: 'gen-us', region: 'us-east-1' }] })).toBe(
      'scale them to 0: `aws autoscaling set-desired-capacity --auto-scaling-group-name gen --desired-capacity 0` and `aws autoscaling set-desired-capacity --auto-scaling-group-name gen-us --desired-capacity 0 --region us-east-1`',
    );
    expect(stopGeneratorsCommand(undefined)).toMatch(/--auto-scaling-group-name <the GeneratorAsgName output of LoadTestRig-Generators>/);
  });
});
