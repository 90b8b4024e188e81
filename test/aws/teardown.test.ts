/**
 * `npm run teardown`: the credentials are checked before `cdk destroy` (which without them printed CDK's own
 * multi-line account error, exit 1); cdk destroy runs where cdk-outputs.json says the stacks are, with every
 * recorded generator region; and since cdk destroy exits 0 for stacks it does not find, teardown exits 0 (and npm's
 * postteardown deletes cdk-outputs.json) only when CloudFormation has no rig stack left in any region involved.
 */
import { CloudFormationServiceException, type Output } from '@aws-sdk/client-cloudformation';
import { contextGeneratorRegions, recordedAccount, teardown, type TeardownDeps } from '../../scripts/teardown';
import { runCli } from '../helpers/cli';

/** Stacks per region: name → status and outputs; a name not listed does not exist. */
type World = Record<string, Record<string, { status: string; outputs?: Record<string, string> }>>;

const missing = (name: string) => new CloudFormationServiceException({ name: 'ValidationError', $fault: 'client', $metadata: {}, message: `Stack with id ${name} does not exist` });

const deps = (over: Partial<TeardownDeps> & { identity?: () => Promise<unknown>; world?: World; afterDestroy?: World; cdkCode?: number }) => {
  const calls: { args: string[]; vars: Record<string, string> }[] = [];
  const lines: string[] = [];
  const asked: string[] = [];
  let world = over.world ?? {};
  const d: TeardownDeps = {
    api: (region) => ({
      getCallerIdentity: (over.identity ?? (async () => ({ Account: '123' }))) as never,
      describeStacks: async ({ StackName }) => {
        asked.push(`${region} ${StackName}`);
        const s = world[region]?.[String(StackName)];
        if (!s) throw missing(String(StackName));
        const Outputs: Output[] = Object.entries(s.outputs ?? {}).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue }));
        return { Stacks: [{ StackName, StackStatus: s.status as never, StackId: `arn:aws:cloudformation:${region}:123:stack/${StackName}/x`, CreationTime: new Date(0), Outputs }], $metadata: {} };
      },
    }),
    cdk: (args, vars) => {
      calls.push({ args: [...args], vars: { ...vars } });
      world = over.afterDestroy ?? {};
      return over.cdkCode ?? 0;
    },
    env: {},
    outputsText: undefined,
    log: (l) => lines.push(l),
    ...over,
  };
  return { d, calls, lines, asked };
};

const TWO_REGIONS = JSON.stringify({
  'LoadTestRig-Generators-us-east-1': { Region: 'us-east-1', RegionWeight: '1' },
  'LoadTestRig-Network': {},
  'LoadTestRig-Target': {},
  'LoadTestRig-Generators': { Region: 'eu-west-2', RegionWeight: '3', RemoteGeneratorRegions: 'us-east-1' },
});

describe('teardown', () => {
  test('credentials fine: cdk destroy --all --force with the options given, then every region given is checked: exit 0', async () => {
    const { d, calls, lines, asked } = deps({});
    expect(await teardown(['-c', 'generatorRegions=eu-west-2:3,us-east-1:1'], d)).toBe(0);
    expect(calls.map((c) => c.args)).toEqual([['destroy', '--all', '--force', '-c', 'generatorRegions=eu-west-2:3,us-east-1:1']]);
    expect(new Set(asked.map((a) => a.split(' ')[0]))).toEqual(new Set(['eu-west-2', 'us-east-1']));
    expect(lines).toEqual(['teardown: no rig stack left in eu-west-2, us-east-1 (CloudFormation); `npm run leftovers -- --region eu-west-2 --region us-east-1` lists anything else still tagged']);
  });

  test('case A: the shell points at another region: cdk runs with the recorded region, said on one line, and it is checked there', async () => {
    const outputsText = JSON.stringify({ 'LoadTestRig-Generators': { Region: 'eu-west-1' } });
    const { d, calls, lines, asked } = deps({ outputsText, env: { AWS_REGION: 'us-east-1' } });
    expect(await teardown([], d)).toBe(0);
    expect(calls).toEqual([{ args: ['destroy', '--all', '--force'], vars: { AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'eu-west-1', CDK_DEFAULT_REGION: 'eu-west-1' } }]);
    expect(lines[0]).toBe('teardown: destroying in eu-west-1, the stacks\' region in cdk-outputs.json (AWS_REGION is us-east-1)');
    expect(asked.every((a) => a.startsWith('eu-west-1 '))).toBe(true);
  });

  test('case A: a destroy that found nothing where it looked: the stacks still there are named, exit 1 (the outputs file is kept)', async () => {
    const outputsText = JSON.stringify({ 'LoadTestRig-Generators': { Region: 'eu-west-1' } });
    const standing: World = { 'eu-west-1': { 'LoadTestRig-Network': { status: 'CREATE_COMPLETE' }, 'LoadTestRig-Target': { status: 'DELETE_FAILED' }, 'LoadTestRig-Generators': { status: 'UPDATE_COMPLETE' } } };
    const { d, lines } = deps({ outputsText, world: standing, afterDestroy: standing });
    expect(await teardown([], d)).toBe(1);
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^error: cdk destroy exited 0 but rig stacks are still there: LoadTestRig-Network \(eu-west-1, CREATE_COMPLETE\), LoadTestRig-Target \(eu-west-1, DELETE_FAILED\), LoadTestRig-Generators \(eu-west-1, UPDATE_COMPLETE\) \(DELETE_FAILED: .*\); cdk-outputs\.json is kept; run .*$/)]);
  });

  test('case B: no -c generatorRegions: the recorded regions are passed (said), and every region is checked', async () => {
    const { d, calls, lines, asked } = deps({ outputsText: TWO_REGIONS, env: { AWS_REGION: 'eu-west-2' } });
    expect(await teardown([], d)).toBe(0);
    expect(calls.map((c) => c.args)).toEqual([['destroy', '--all', '--force', '-c', 'generatorRegions=eu-west-2:3,us-east-1:1']]);
    expect(lines[0]).toBe('teardown: -c generatorRegions=eu-west-2:3,us-east-1:1 from cdk-outputs.json, so cdk destroys LoadTestRig-Generators-us-east-1 too');
    expect(asked).toContain('us-east-1 LoadTestRig-Generators-us-east-1');
  });

  test('case B: the user\'s own generatorRegions is kept as given; a recorded region it leaves out is said, and its stack still there fails the teardown', async () => {
    const left: World = { 'us-east-1': { 'LoadTestRig-Generators-us-east-1': { status: 'CREATE_COMPLETE' } } };
    const { d, calls, lines } = deps({ outputsText: TWO_REGIONS, env: { AWS_REGION: 'eu-west-2' }, afterDestroy: left });
    expect(await teardown(['--context=generatorRegions=eu-west-2'], d)).toBe(1);
    expect(calls.map((c) => c.args)).toEqual([['destroy', '--all', '--force', '--context=generatorRegions=eu-west-2']]);
    expect(lines[0]).toBe('note: -c generatorRegions=eu-west-2 leaves out us-east-1, which cdk-outputs.json records: cdk will not destroy LoadTestRig-Generators-us-east-1');
    expect(lines[1]).toMatch(/^error: cdk destroy exited 0 but rig stacks are still there: LoadTestRig-Generators-us-east-1 \(us-east-1, CREATE_COMPLETE\); cdk-outputs\.json is kept; /);
  });

  test('no outputs file: the home generator stack in AWS_REGION names the other regions', async () => {
    const world: World = {
      'eu-west-2': { 'LoadTestRig-Generators': { status: 'CREATE_COMPLETE', outputs: { Region: 'eu-west-2', RegionWeight: '3', RemoteGeneratorRegions: 'us-east-1' } } },
      'us-east-1': { 'LoadTestRig-Generators-us-east-1': { status: 'CREATE_COMPLETE', outputs: { RegionWeight: '1' } } },
    };
    const { d, calls, lines } = deps({ world, env: { AWS_REGION: 'eu-west-2' } });
    expect(await teardown([], d)).toBe(0);
    expect(calls.map((c) => c.args)).toEqual([['destroy', '--all', '--force', '-c', 'generatorRegions=eu-west-2:3,us-east-1:1']]);
    expect(lines[0]).toBe('teardown: -c generatorRegions=eu-west-2:3,us-east-1:1 from LoadTestRig-Generators\'s outputs in eu-west-2, so cdk destroys LoadTestRig-Generators-us-east-1 too');
  });

  test('cdk destroy fails: its exit code, nothing more asked', async () => {
    const { d, asked } = deps({ outputsText: TWO_REGIONS, cdkCode: 1 });
    expect(await teardown([], d)).toBe(1);
    expect(asked).toEqual([]);
  });

  test('the generatorRegions the options give, in every form cdk takes', () => {
    expect(contextGeneratorRegions(['-c', 'generatorRegions=a:1'])).toBe('a:1');
    expect(contextGeneratorRegions(['--context', 'x=1', '-c=generatorRegions=b'])).toBe('b');
    expect(contextGeneratorRegions(['--context=generatorRegions=c', '--force'])).toBe('c');
    expect(contextGeneratorRegions(['-c', 'maxCapacity=1'])).toBeUndefined();
  });

  test('no credentials: one line, exit 2, cdk never runs', async () => {
    const { d, calls, lines } = deps({ identity: () => Promise.reject(Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' })) });
    expect(await teardown([], d)).toBe(2);
    expect(calls).toEqual([]);
    expect(lines).toEqual([expect.stringMatching(/^error: no AWS credentials found while checking the AWS credentials before cdk destroy .*AWS_SECRET_ACCESS_KEY\)$/)]);
  });

  // cdk destroy with another account's credentials finds no stack there and exits 0, as does the check after it:
  // the target stack records its account (output Account) so teardown can refuse first.
  describe('credentials of another account than the one cdk-outputs.json records', () => {
    const IN_111 = JSON.stringify({ 'LoadTestRig-Network': {}, 'LoadTestRig-Target': { Account: '111111111111' }, 'LoadTestRig-Generators': { Region: 'eu-west-2' } });

    test('refused before cdk runs: one line naming both accounts and the fix, exit 2', async () => {
      const { d, calls, lines } = deps({ outputsText: IN_111, identity: async () => ({ Account: '222222222222' }) });
      expect(await teardown([], d)).toBe(2);
      expect(calls).toEqual([]);
      expect(lines).toEqual(['error: the AWS credentials are for account 222222222222, but cdk-outputs.json records the rig in account 111111111111: cdk destroy would find nothing there; use the deploying account\'s credentials (AWS_PROFILE) and run npm run teardown again']);
    });

    test('the recorded account\'s credentials, or an outputs file that records none (deployed before the output): cdk destroy runs', async () => {
      const same = deps({ outputsText: IN_111, identity: async () => ({ Account: '111111111111' }) });
      expect(await teardown([], same.d)).toBe(0);
      expect(same.calls).toHaveLength(1);
      const older = deps({ outputsText: JSON.stringify({ 'LoadTestRig-Generators': { Region: 'eu-west-2' } }), identity: async () => ({ Account: '222222222222' }) });
      expect(await teardown([], older.d)).toBe(0);
      expect(older.calls).toHaveLength(1);
    });

    test('recordedAccount reads a rig stack\'s Account output, and nothing from a broken file', () => {
      expect(recordedAccount(IN_111)).toBe('111111111111');
      expect(recordedAccount(undefined)).toBeUndefined();
      expect(recordedAccount('{not json')).toBeUndefined();
      expect(recordedAccount(JSON.stringify({ Other: { Account: '333333333333' } }))).toBeUndefined();
    });
  });

  test('the real script without credentials: one line on stderr, exit 2', async () => {
    const env = { AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_SESSION_TOKEN: '', AWS_PROFILE: 'rig-no-such-profile', AWS_CONFIG_FILE: '/nonexistent', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent', AWS_EC2_METADATA_DISABLED: 'true', AWS_REGION: 'eu-west-1' };
    const r = await runCli([], { script: 'teardown.ts', env, timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: no AWS credentials found/)]);
  });
});
