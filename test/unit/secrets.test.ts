/**
 * Scenario secrets on AWS: SSM parameters become RIG_SECRET_* variables; an empty path or access denied
 * means "no secrets" with one note; any other failure is an error that stops the generators.
 */
import { AccessDeniedException, GetParametersByPathCommand, InvalidFilterKey, SSMClient, SSMServiceException } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { loadSsmSecrets, secretEnvName } from '../../load-generators/lib/secrets';

const ssm = mockClient(SSMClient);
beforeEach(() => ssm.reset());

describe('scenario secrets from SSM Parameter Store', () => {
  it('names each variable after the last path segment', () => {
    expect(secretEnvName('/loadtest-rig/secrets/auth-token')).toBe('RIG_SECRET_AUTH_TOKEN');
    expect(secretEnvName('/loadtest-rig/secrets/team/api.key')).toBe('RIG_SECRET_API_KEY');
  });

  it('reads every page, recursive and decrypted, through the SDK', async () => {
    ssm.on(GetParametersByPathCommand, { Path: '/loadtest-rig/secrets/', Recursive: true, WithDecryption: true })
      .resolvesOnce({ Parameters: [{ Name: '/loadtest-rig/secrets/auth-token', Value: 'a$(rm -rf /)`x`' }], NextToken: 'p2' })
      .resolvesOnce({ Parameters: [{ Name: '/loadtest-rig/secrets/other', Value: 'two' }] });
    const read = await loadSsmSecrets('/loadtest-rig/secrets/');
    expect(read).toEqual({ env: { RIG_SECRET_AUTH_TOKEN: 'a$(rm -rf /)`x`', RIG_SECRET_OTHER: 'two' } });
    const calls = ssm.commandCalls(GetParametersByPathCommand).map((c) => c.args[0].input);
    expect(calls).toEqual([
      { Path: '/loadtest-rig/secrets/', Recursive: true, WithDecryption: true },
      { Path: '/loadtest-rig/secrets/', Recursive: true, WithDecryption: true, NextToken: 'p2' },
    ]);
  });

  it('an empty path: no secrets, and a note saying so', async () => {
    ssm.on(GetParametersByPathCommand).resolves({ Parameters: [] });
    expect(await loadSsmSecrets('/loadtest-rig/secrets/')).toEqual({ env: {}, note: 'scenario secrets: none (no parameters under /loadtest-rig/secrets/)' });
  });

  it('access denied: no secrets, and a note naming the path and the error', async () => {
    ssm.on(GetParametersByPathCommand).rejects(new AccessDeniedException({ Message: 'not authorized to perform ssm:GetParametersByPath', message: 'not authorized to perform ssm:GetParametersByPath', $metadata: {} }));
    const read = await loadSsmSecrets('/loadtest-rig/secrets/');
    expect(read).toEqual({ env: {}, note: 'scenario secrets: none (the generator role may not read /loadtest-rig/secrets/: AccessDeniedException); scenarios see no RIG_SECRET_* variables' });
  });

  it('any other failure is an error naming the path, the cause and that every generator stops', async () => {
    ssm.on(GetParametersByPathCommand).rejects(new SSMServiceException({ name: 'ThrottlingException', $fault: 'client', message: 'Rate exceeded\nmore', $metadata: { httpStatusCode: 400 } }));
    await expect(loadSsmSecrets('/loadtest-rig/secrets/')).rejects.toThrow('cannot read scenario secrets under /loadtest-rig/secrets/ (ThrottlingException: Rate exceeded); every generator stops — fix the parameter store access or the path and run again');
    ssm.reset();
    ssm.on(GetParametersByPathCommand).rejects(new InvalidFilterKey({ message: 'bad', $metadata: {} }));
    await expect(loadSsmSecrets('/loadtest-rig/secrets/')).rejects.toThrow(/\(InvalidFilterKey: bad\)/);
    // A failure after the first page too: no half-read secrets.
    let n = 0;
    await expect(loadSsmSecrets('/p/', async () => {
      if (n++ === 0) return { Parameters: [{ Name: '/p/a', Value: '1' }], NextToken: 't' };
      throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
    })).rejects.toThrow(/TimeoutError: socket hang up/);
  });
});
