/**
 * `npm run teardown`: the credentials are checked before `cdk destroy` (which without them printed CDK's own
 * multi-line account error, exit 1); with them, cdk destroy runs with the user's options.
 */
import { teardown, type TeardownDeps } from '../../scripts/teardown';
import { runCli } from '../helpers/cli';

const deps = (over: Partial<TeardownDeps> & { identity?: () => Promise<unknown> }) => {
  const calls: string[][] = [];
  const lines: string[] = [];
  const d: TeardownDeps = {
    api: () => ({ getCallerIdentity: (over.identity ?? (async () => ({ Account: '123' }))) as never }),
    cdk: (args) => {
      calls.push([...args]);
      return 0;
    },
    env: {},
    outputsText: undefined,
    log: (l) => lines.push(l),
    ...over,
  };
  return { d, calls, lines };
};

describe('teardown', () => {
  test('credentials fine: cdk destroy --all --force with the options given, its exit code', async () => {
    const { d, calls } = deps({});
    expect(await teardown(['-c', 'generatorRegions=eu-west-2:3,us-east-1:1'], d)).toBe(0);
    expect(calls).toEqual([['destroy', '--all', '--force', '-c', 'generatorRegions=eu-west-2:3,us-east-1:1']]);
  });

  test('no credentials: one line, exit 2, cdk never runs', async () => {
    const { d, calls, lines } = deps({ identity: () => Promise.reject(Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' })) });
    expect(await teardown([], d)).toBe(2);
    expect(calls).toEqual([]);
    expect(lines).toEqual([expect.stringMatching(/^error: no AWS credentials found while checking the AWS credentials before cdk destroy .*AWS_SECRET_ACCESS_KEY\)$/)]);
  });

  test('the real script without credentials: one line on stderr, exit 2', async () => {
    const env = { AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_SESSION_TOKEN: '', AWS_PROFILE: 'rig-no-such-profile', AWS_CONFIG_FILE: '/nonexistent', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent', AWS_EC2_METADATA_DISABLED: 'true', AWS_REGION: 'eu-west-1' };
    const r = await runCli([], { script: 'teardown.ts', env, timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: no AWS credentials found/)]);
  });
});
