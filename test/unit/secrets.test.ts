/** Scenario secrets on AWS: SSM parameters become RIG_SECRET_* variables, read without a shell. */
const { loadSsmSecrets, secretEnvName } = require('../../load-generators/lib/secrets') as {
  loadSsmSecrets: (path: string, exec: (file: string, args: string[]) => string) => Record<string, string>;
  secretEnvName: (name: string) => string;
};

describe('scenario secrets from SSM Parameter Store', () => {
  it('names each variable after the last path segment', () => {
    expect(secretEnvName('/loadtest-rig/secrets/auth-token')).toBe('RIG_SECRET_AUTH_TOKEN');
    expect(secretEnvName('/loadtest-rig/secrets/team/api.key')).toBe('RIG_SECRET_API_KEY');
  });

  it('reads every page, decrypted, with the AWS CLI called without a shell', () => {
    const calls: Array<{ file: string; args: string[] }> = [];
    const pages = [
      { Parameters: [{ Name: '/loadtest-rig/secrets/auth-token', Value: 'a$(rm -rf /)`x`' }], NextToken: 'p2' },
      { Parameters: [{ Name: '/loadtest-rig/secrets/other', Value: 'two' }] },
    ];
    const env = loadSsmSecrets('/loadtest-rig/secrets/', (file, args) => {
      calls.push({ file, args });
      return JSON.stringify(pages[calls.length - 1]);
    });
    expect(env).toEqual({ RIG_SECRET_AUTH_TOKEN: 'a$(rm -rf /)`x`', RIG_SECRET_OTHER: 'two' });
    expect(calls).toHaveLength(2);
    expect(calls[0]).toEqual({
      file: 'aws',
      args: ['ssm', 'get-parameters-by-path', '--path', '/loadtest-rig/secrets/', '--recursive', '--with-decryption', '--output', 'json'],
    });
    expect(calls[1]?.args.slice(-2)).toEqual(['--starting-token', 'p2']);
  });
});
