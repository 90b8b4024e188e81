import { CloudFormationClient, CloudFormationServiceException, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { STACK_NAMES } from '../../bin/rig';
import { UsageError } from '../../scripts/errors';
import { createAwsApi } from '../../scripts/platforms/aws/clients';
import { DiscoveryDeps, RIG_STACK_NAMES, choosePlatform, describeRigStacks, parseOutputsFile } from '../../scripts/platforms/aws/discovery';

const cfn = mockClient(CloudFormationClient);
beforeEach(() => cfn.reset());

const GEN_OUTPUTS = {
  GeneratorAsgName: 'gen-asg',
  GeneratorAgentHome: '/opt/loadtest-rig/load-generators',
  ResultsBucketName: 'results',
  MaxGenerators: '10',
  Region: 'eu-west-1',
  DashboardUrl: 'https://dash',
  RigMetricsNamespace: 'LoadTestRig',
};
const missing = (name: string) => new CloudFormationServiceException({ name: 'ValidationError', $fault: 'client', $metadata: {}, message: `Stack with id ${name} does not exist` });

function deps(over: Partial<DiscoveryDeps> = {}): DiscoveryDeps {
  return { outputsFile: '/repo/cdk-outputs.json', readOutputsFile: () => undefined, region: 'eu-west-1', credentialsHinted: true, api: (region) => createAwsApi({ region }), ...over };
}

test('the stack names match the CDK app', () => {
  expect(RIG_STACK_NAMES).toEqual(STACK_NAMES);
});

test('parseOutputsFile reads the generator and target stacks', () => {
  const o = parseOutputsFile(JSON.stringify({ 'LoadTestRig-Generators': GEN_OUTPUTS, 'LoadTestRig-Target': { TargetUrl: 'http://alb', TargetAsgName: 't-asg' }, 'LoadTestRig-Network': {} }), 'f.json');
  expect(o).toMatchObject({ generatorAsgName: 'gen-asg', resultsBucketName: 'results', maxGenerators: 10, region: 'eu-west-1', targetUrl: 'http://alb', targetAsgName: 't-asg' });
  expect(o?.stackNames).toEqual(['LoadTestRig-Network', 'LoadTestRig-Target', 'LoadTestRig-Generators']);
  expect(o?.generatorInstanceType).toBeUndefined(); // outputs of an older stack: the platform assumes the default
  const typed = parseOutputsFile(JSON.stringify({ 'LoadTestRig-Generators': { ...GEN_OUTPUTS, GeneratorInstanceType: 'c5.xlarge', GeneratorSecondaryIps: '2', GeneratorMaxLifetimeMinutes: '60' } }), 'f.json');
  expect(typed).toMatchObject({ generatorInstanceType: 'c5.xlarge', generatorSecondaryIps: 2, generatorMaxLifetimeMinutes: 60 });
  expect(o?.generatorMaxLifetimeMinutes).toBeUndefined(); // an older stack: no lifetime check
  expect(parseOutputsFile('{}', 'f.json')).toBeUndefined();
  expect(() => parseOutputsFile('nope', 'f.json')).toThrow(/not valid JSON/);
  expect(() => parseOutputsFile(JSON.stringify({ 'LoadTestRig-Generators': { GeneratorAsgName: 'x' } }), 'f.json')).toThrow(/no output GeneratorAgentHome; redeploy/);
});

test('describeRigStacks asks CloudFormation for each rig stack and skips the missing ones', async () => {
  cfn.on(DescribeStacksCommand, { StackName: 'LoadTestRig-Generators' }).resolves({
    Stacks: [{ StackName: 'LoadTestRig-Generators', StackStatus: 'UPDATE_COMPLETE', CreationTime: new Date(), Outputs: Object.entries(GEN_OUTPUTS).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })) }],
  });
  cfn.on(DescribeStacksCommand, { StackName: 'LoadTestRig-Target' }).rejects(missing('LoadTestRig-Target'));
  cfn.on(DescribeStacksCommand, { StackName: 'LoadTestRig-Network' }).resolves({ Stacks: [{ StackName: 'LoadTestRig-Network', StackStatus: 'CREATE_COMPLETE', CreationTime: new Date() }] });
  const o = await describeRigStacks(createAwsApi({ region: 'eu-west-1' }));
  expect(cfn.commandCalls(DescribeStacksCommand).map((c) => c.args[0].input.StackName).sort()).toEqual(['LoadTestRig-Generators', 'LoadTestRig-Network', 'LoadTestRig-Target']);
  expect(o).toMatchObject({ generatorAsgName: 'gen-asg', source: 'CloudFormation (eu-west-1)', stackNames: ['LoadTestRig-Network', 'LoadTestRig-Generators'] });
  expect(o?.targetUrl).toBeUndefined();
});

test('a stack being deleted or rolled back does not count as deployed', async () => {
  cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'x', StackStatus: 'ROLLBACK_COMPLETE', CreationTime: new Date() }] });
  expect(await describeRigStacks(createAwsApi({ region: 'eu-west-1' }))).toBeUndefined();
});

describe('choosePlatform', () => {
  test('--platform local never looks for stacks', async () => {
    const c = await choosePlatform('local', deps({ readOutputsFile: () => { throw new Error('read'); } }));
    expect(c.platform).toBe('local');
    expect(cfn.calls()).toHaveLength(0);
  });

  const FILE = () => JSON.stringify({ 'LoadTestRig-Generators': GEN_OUTPUTS });
  test('the outputs file makes aws the default; one DescribeStacks checks it is not stale', async () => {
    cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'LoadTestRig-Generators', StackStatus: 'UPDATE_COMPLETE', CreationTime: new Date() }] });
    const c = await choosePlatform(undefined, deps({ readOutputsFile: FILE }));
    expect(c).toMatchObject({ platform: 'aws', line: expect.stringMatching(/^platform: aws \(deployed stacks found in \/repo\/cdk-outputs\.json; region eu-west-1\)/) });
    expect(cfn.commandCalls(DescribeStacksCommand).map((x) => x.args[0].input.StackName)).toEqual(['LoadTestRig-Generators']);
  });

  // `npm run teardown` left the file behind before it removed it: the next run went to AWS and failed (exit 3).
  test('a stale outputs file (its generator stack gone or being deleted): local, said why; --platform aws: exit 2 naming it', async () => {
    cfn.on(DescribeStacksCommand).rejects(missing('LoadTestRig-Generators'));
    expect(await choosePlatform(undefined, deps({ readOutputsFile: FILE }))).toEqual({
      platform: 'local',
      line: 'platform: local (/repo/cdk-outputs.json names LoadTestRig-Generators, which no longer exists in eu-west-1: delete the file, or `npm run deploy` to run on AWS)',
    });
    await expect(choosePlatform('aws', deps({ readOutputsFile: FILE }))).rejects.toThrow(/--platform aws: \/repo\/cdk-outputs\.json names LoadTestRig-Generators, which no longer exists in eu-west-1; run `npm run deploy` again, or delete/);
    cfn.reset();
    cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'LoadTestRig-Generators', StackStatus: 'DELETE_IN_PROGRESS', CreationTime: new Date() }] });
    expect((await choosePlatform(undefined, deps({ readOutputsFile: FILE }))).platform).toBe('local');
  });

  test('when CloudFormation cannot say (no credentials), the outputs file keeps its word', async () => {
    cfn.on(DescribeStacksCommand).rejects(Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }));
    expect((await choosePlatform(undefined, deps({ readOutputsFile: FILE }))).platform).toBe('aws');
  });

  test('no outputs file and no credentials: local, said why, no AWS call', async () => {
    const c = await choosePlatform(undefined, deps({ credentialsHinted: false }));
    expect(c).toMatchObject({ platform: 'local', line: expect.stringMatching(/no AWS credentials configured/) });
    expect(cfn.calls()).toHaveLength(0);
  });

  test("an outputs file naming no rig stack (`{}`) is said as such, not as missing", async () => {
    const c = await choosePlatform(undefined, deps({ credentialsHinted: false, readOutputsFile: () => '{}' }));
    expect(c).toEqual({ platform: 'local', line: 'platform: local (/repo/cdk-outputs.json names no rig stack and no AWS credentials configured; deploy with `npm run deploy` to run on AWS)' });
  });

  test('no outputs file: CloudFormation decides', async () => {
    cfn.on(DescribeStacksCommand).rejects(missing('x'));
    expect(await choosePlatform(undefined, deps())).toMatchObject({ platform: 'local', line: expect.stringMatching(/not deployed in eu-west-1/) });
    await expect(choosePlatform('aws', deps())).rejects.toThrow(/not deployed in region eu-west-1; run `npm run deploy`/);
  });

  test('--platform aws without credentials: one clear line', async () => {
    cfn.on(DescribeStacksCommand).rejects(Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }));
    const err = await choosePlatform('aws', deps()).catch((e: Error) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/^no AWS credentials found while looking for the rig stacks/);
    expect(await choosePlatform(undefined, deps())).toMatchObject({ platform: 'local', line: expect.stringMatching(/no AWS credentials/) });
  });

  test('--platform aws with a region that has no endpoint: says to check AWS_REGION', async () => {
    cfn.on(DescribeStacksCommand).rejects(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    await expect(choosePlatform('aws', deps({ region: 'eu-wst-1' }))).rejects.toThrow(/cannot reach AWS in region "eu-wst-1".*check AWS_REGION/);
  });

  test('--platform aws with no outputs file and no region', async () => {
    await expect(choosePlatform('aws', deps({ region: undefined }))).rejects.toThrow(/npm run deploy/);
  });
});
