import { AutoScalingClient, DescribeAutoScalingGroupsCommand, DescribeScalingActivitiesCommand, ResumeProcessesCommand, SetDesiredCapacityCommand, SuspendProcessesCommand } from '@aws-sdk/client-auto-scaling';
import { CloudFormationClient, CloudFormationServiceException, DeleteStackCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GetObjectCommand, HeadBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeInstanceTypeOfferingsCommand, DescribeInstanceTypesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetServiceQuotaCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { mockClient } from 'aws-sdk-client-mock';
import { UsageError } from '../../scripts/errors';
import { validateFlags } from '../../scripts/options';
import { COPY_CONCURRENCY, awsPlatform, copyStoreToFolder } from '../../scripts/platforms/aws/aws';
import { LAST_DATA_GRACE_MS, awaitAgentsData } from '../../scripts/platforms/aws/run-teardown';
import { createAwsApi } from '../../scripts/platforms/aws/clients';
import { capacityLine } from '../../scripts/platforms/aws/select';
import type { RigOutputs } from '../../scripts/platforms/aws/discovery';
import { awsGenerator } from '../../scripts/core/capacity-model';
import { capacityPerGenerator, planLoad } from '../../scripts/core/plan';

const sts = mockClient(STSClient);
const s3 = mockClient(S3Client);
const asg = mockClient(AutoScalingClient);
const cfn = mockClient(CloudFormationClient);
const ec2 = mockClient(EC2Client);
const sq = mockClient(ServiceQuotasClient);
const cw = mockClient(CloudWatchClient);

const OUTPUTS: RigOutputs = {
  source: 'CloudFormation (eu-west-1)',
  generatorAsgName: 'gen',
  generatorAgentHome: '/opt/loadtest-rig/load-generators',
  resultsBucketName: 'bkt',
  maxGenerators: 10,
  targetUrl: 'http://127.0.0.1:9',
  stackNames: ['LoadTestRig-Network', 'LoadTestRig-Target', 'LoadTestRig-Generators'],
};
const clock = { now: () => 0, sleep: async () => undefined };
const PLAN = { generators: [], totalArrivals: 0, peakConcurrent: 0, capacityPerGenerator: 1, bindingLimit: 'memory' as const, generatorsNeeded: 1, peakArrivalRate: 0, warnings: [] };

function platform(flags: Parameters<typeof validateFlags>[0] = {}, over: Partial<Parameters<typeof awsPlatform>[0]> = {}) {
  const lines: string[] = [];
  const p = awsPlatform({ root: '/repo', outputs: OUTPUTS, api: createAwsApi({ region: 'eu-west-1' }), options: validateFlags(flags), log: (l) => lines.push(l), clock, removeOutputsFile: () => undefined, ...over });
  return { p, lines };
}

beforeEach(() => {
  for (const m of [sts, s3, asg, cfn, ec2, sq, cw]) m.reset();
  ec2.on(DescribeInstanceTypesCommand).resolves({ InstanceTypes: [{ InstanceType: 'c5.large', VCpuInfo: { DefaultVCpus: 2 } }] });
  ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({ InstanceTypeOfferings: [] });
  sq.on(GetServiceQuotaCommand).resolves({ Quota: { Value: 1000 } });
  cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });
  sts.on(GetCallerIdentityCommand).resolves({ Account: '123456789012' });
  s3.on(HeadBucketCommand).resolves({});
  asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [{ AutoScalingGroupName: 'gen', DesiredCapacity: 0, Instances: [] } as never] });
  asg.on(SetDesiredCapacityCommand).resolves({});
});

test('limits come from the capacity model for the stack\'s instance type and secondary IPs', () => {
  const xl = { ...OUTPUTS, generatorInstanceType: 'c5.xlarge', generatorSecondaryIps: 3 };
  const priv = platform({}, { outputs: xl, targetIsPrivate: true }).p;
  expect(priv.limits).toEqual(awsGenerator('c5.xlarge', 3).limits);
  expect(priv.limits).toMatchObject({ processes: 4, sourceAddresses: 4, openFiles: Math.floor(0.9 * 65536) - 300, ephemeralPorts: Math.floor(0.9 * 64512) });
  expect(priv.maxGenerators).toBe(10);
  // A forced --generators past it says how to raise it (the planner's refusal carries this).
  expect(priv.maxGeneratorsWhy).toMatch(/npx cdk deploy --all -c maxGenerators=N and the other -c keys of your last deploy, which CDK does not keep; docs\/aws-deploy\.md#context-keys/);
  // An internet-facing target: the agents keep the primary IP, so the planner counts one address.
  expect(platform({}, { outputs: xl, targetIsPrivate: false }).p.limits).toEqual(awsGenerator('c5.xlarge', 0).limits);
  // Outputs of stacks deployed before the instance type was an output: the stack's default, c5.large.
  expect(platform().p.limits).toEqual(awsGenerator('c5.large', 0).limits);
});

test('--generator-capacity replaces the memory bound; ports still bind above 90% of one address\'s range', () => {
  expect(capacityPerGenerator(platform({}, { generatorCapacity: 20_000 }).p.limits)).toEqual({ vusers: 20_000, binding: 'memory' });
  expect(capacityPerGenerator(platform({}, { generatorCapacity: 500_000 }).p.limits)).toEqual({ vusers: Math.floor(0.9 * 64_512), binding: 'ephemeralPorts' });
});

test('an instance type the model does not know: one line naming it and the fix, unless --generator-capacity is given', () => {
  const r5 = { ...OUTPUTS, generatorInstanceType: 'r5.2xlarge' };
  expect(() => platform({}, { outputs: r5 })).toThrow(UsageError);
  expect(() => platform({}, { outputs: r5 })).toThrow(/no figures for generator instance type r5\.2xlarge .*pass --generator-capacity N/);
  const p = platform({}, { outputs: r5, generatorCapacity: 90_000 }).p;
  expect(p.limits.processes).toBe(8); // 2xlarge: 8 vCPUs, one load process each
  expect(capacityPerGenerator(p.limits).vusers).toBe(Math.floor(0.9 * 64_512)); // one address (public target) binds below 90,000
});

test('a stack deployed with more secondary IPs than one interface of its type holds is refused before any generator is asked for, public target or not', () => {
  // EC2 User Guide, "Maximum IP addresses per network interface": c5.large takes the primary and 9 secondary; EC2
  // refuses a launch asking for more, so the run would only wait out its fleet deadline. A type only EC2 describes
  // is checked with its DescribeInstanceTypes figures.
  for (const targetIsPrivate of [true, false]) {
    expect(() => platform({}, { outputs: { ...OUTPUTS, generatorSecondaryIps: 12 }, targetIsPrivate })).toThrow(UsageError);
    expect(() => platform({}, { outputs: { ...OUTPUTS, generatorSecondaryIps: 12 }, targetIsPrivate })).toThrow(
      /^the generators( in [a-z0-9-]+)?: generatorSecondaryIps 12 does not fit c5\.large: .* at most 9 secondary, so EC2 would refuse to launch every generator; use -c generatorSecondaryIps=9 or fewer and redeploy \(npm run deploy\)$/,
    );
  }
  const c6a = { vcpus: 8, memoryBytes: 16 * 1024 ** 3, ipv4PerInterface: 15 };
  expect(() => platform({}, { outputs: { ...OUTPUTS, generatorInstanceType: 'c6a.2xlarge', generatorSecondaryIps: 15 }, instanceSpec: c6a })).toThrow(/at most 14 secondary/);
  expect(platform({}, { outputs: { ...OUTPUTS, generatorInstanceType: 'c6a.2xlarge', generatorSecondaryIps: 14 }, instanceSpec: c6a, targetIsPrivate: true }).p.limits.sourceAddresses).toBe(8);
});

test("a user's script plans one address per generator even against a private target, and says why: only the built-in scenarios' processors bind the secondary IPs", () => {
  const outputs = { ...OUTPUTS, generatorSecondaryIps: 2 };
  // selectPlatform passes targetIsPrivate && !userScript: a user's script is planned as against a public target.
  const asUser = platform({}, { outputs, targetIsPrivate: false }).p;
  expect(asUser.limits).toEqual(awsGenerator('c5.large', 0).limits);
  expect(capacityLine(outputs, true, asUser.generator, undefined, true)).toMatch(/, 2 secondary IPs unused \(your script's connections leave from the address the OS picks\): [\d,]+ vusers each \(ephemeral ports binds\)$/);
  expect(capacityLine(outputs, true, platform({}, { outputs, targetIsPrivate: true }).p.generator)).toMatch(/, 2 secondary IPs in use \(private target\): /);
});

test('the planner asks for one more generator one vuser past the modelled capacity', () => {
  const limits = platform({}, { outputs: { ...OUTPUTS, generatorSecondaryIps: 1 }, targetIsPrivate: true }).p.limits;
  const cap = awsGenerator('c5.large', 1).capacity.vusers;
  const generatorsFor = (vusers: number) => planLoad({ phases: [{ duration: vusers, arrivalCount: vusers }], limits, sessionSeconds: vusers + 10 }).generators.length;
  expect(generatorsFor(cap)).toBe(1);
  expect(generatorsFor(cap + 1)).toBe(2);
});

test('the planner asks for one more generator one arrival a second past the modelled rate of the deployed type', () => {
  const p = platform({}, { outputs: { ...OUTPUTS, generatorInstanceType: 'c5.xlarge' } }).p;
  const rate = awsGenerator('c5.xlarge', 0).arrivalsPerSecond; // 4 vCPUs × the measured rate per core
  expect(p.arrivalCapacity).toEqual({ perSecond: rate, perGenerator: true });
  const planFor = (perSecond: number) =>
    planLoad({ phases: [{ duration: 60, arrivalRate: perSecond }], limits: p.limits, sessionSeconds: 5, arrivalCapacity: p.arrivalCapacity! });
  expect(planFor(rate).generators).toHaveLength(1);
  expect(planFor(rate + 1).generators).toHaveLength(2);
  expect(planFor(rate + 1).warnings).toEqual([]);
});

const open = (p: ReturnType<typeof platform>['p'], plan: Parameters<ReturnType<typeof platform>['p']['open']>[0]['plan'] = PLAN, runId = 'r1') => p.open({ runId, runDir: '/nonexistent/run', plan });

test('opening a run checks credentials, the bucket and the group before anything starts; --target wins over the stack', async () => {
  const { p, lines } = platform({ target: 'http://127.0.0.1:9' });
  const run = await open(p);
  expect(run.target.url).toBe('http://127.0.0.1:9');
  expect(run.store.location).toBe('s3://bkt/runs/r1');
  expect(run.timings).toEqual({ readyTimeoutMs: 600_000, startLeadMs: 5000 });
  expect(sts.commandCalls(GetCallerIdentityCommand)).toHaveLength(1);
  expect(s3.commandCalls(HeadBucketCommand)[0]?.args[0].input).toEqual({ Bucket: 'bkt' });
  expect(asg.commandCalls(DescribeAutoScalingGroupsCommand)[0]?.args[0].input).toEqual({ AutoScalingGroupNames: ['gen'] });
  expect(lines.some((l) => /does not answer from this machine/.test(l))).toBe(true);
  // The chosen target was printed with its source before the run (--target, or the script's config.target):
  // no second line here that would call a script's own target "(--target)".
  expect(lines.filter((l) => l.startsWith('target: '))).toEqual([]);
});

test("without a chosen target the deployed stack's target is used and said once, with its stack", async () => {
  const { p, lines } = platform();
  const run = await open(p);
  expect(run.target.url).toBe('http://127.0.0.1:9');
  expect(lines.filter((l) => l.startsWith('target: '))).toEqual(['target: http://127.0.0.1:9 (stack LoadTestRig-Target)']);
});

test('before anything scales: a vCPU quota too small for the plan, or an estimate above --max-cost, refuses with exit-2 errors', async () => {
  const plan = planLoad({ phases: [{ duration: 60, arrivalCount: 600 }], generators: 3, limits: platform().p.limits, sessionSeconds: 60 });
  sq.on(GetServiceQuotaCommand).resolves({ Quota: { Value: 4 } });
  const low = platform({ target: 'http://127.0.0.1:9' });
  await expect(open(low.p, plan)).rejects.toThrow(UsageError);
  await expect(open(low.p, plan)).rejects.toThrow(/the run needs 6 vCPUs of the quota .*L-1216C47A.*\(3 × c5\.large generators .*quota is 4/);
  expect(asg.commandCalls(SetDesiredCapacityCommand)).toHaveLength(0);

  sq.on(GetServiceQuotaCommand).resolves({ Quota: { Value: 1000 } });
  const capped = platform({ target: 'http://127.0.0.1:9', maxCost: '0.01' });
  await expect(open(capped.p, plan, 'r2')).rejects.toThrow(/^the run is estimated at \$\d+\.\d\d, above --max-cost 0\.01/);
  expect(capped.lines.some((l) => /^estimated cost of this run: \$/.test(l))).toBe(true);
  const fits = platform({ target: 'http://127.0.0.1:9', maxCost: '100' });
  await open(fits.p, plan, 'r3');
  expect(fits.lines).toEqual(expect.arrayContaining(['vCPU quota L-1216C47A: 6 of 1000 needed (other usage in the account not reported by AWS/Usage: not counted)', '--max-cost 100: the estimate fits']));
  expect(asg.commandCalls(SetDesiredCapacityCommand)).toHaveLength(0);
});

test('no credentials: one clear line, exit-2 error', async () => {
  sts.on(GetCallerIdentityCommand).rejects(Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }));
  const err = await open(platform().p).catch((e: Error) => e);
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toMatch(/^no AWS credentials found/);
});

test('access denied on the bucket: one clear line', async () => {
  s3.on(HeadBucketCommand).rejects(new S3ServiceException({ name: 'Forbidden', $fault: 'client', $metadata: { httpStatusCode: 403 }, message: 'Forbidden' }));
  await expect(open(platform().p)).rejects.toThrow(/^access denied on the results bucket bkt/);
});

test('generator group gone (stale outputs): says to deploy', async () => {
  asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [] });
  const err = await open(platform().p).catch((e: Error) => e);
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toMatch(/npm run deploy/);
});

test('closing a run scales the generators to 0 once the fleet was launched (once, however often closed); --keep-generators leaves them', async () => {
  const { p } = platform({ target: 'http://127.0.0.1:9' });
  const unused = await open(p);
  await unused.close();
  expect(asg.commandCalls(SetDesiredCapacityCommand)).toHaveLength(0);
  s3.on(GetObjectCommand).rejects(Object.assign(new Error('The specified key does not exist.'), { name: 'NoSuchKey' }));
  const run = await open(p, PLAN, 'r2');
  // No slice in the (mocked, empty) bucket: the launch fails after the fleet was touched.
  await expect(run.fleet.launch(['g01'])).rejects.toThrow(/no slice for generator g01/);
  expect(run.fleet.status().size).toBe(0);
  await run.close();
  await run.close();
  expect(asg.commandCalls(SetDesiredCapacityCommand).map((c) => c.args[0].input)).toEqual([{ AutoScalingGroupName: 'gen', DesiredCapacity: 0, HonorCooldown: false }]);

  asg.resetHistory();
  const kept = platform({ keepGenerators: true, target: 'http://127.0.0.1:9' });
  const keptRun = await open(kept.p);
  await keptRun.fleet.launch(['g01']).catch(() => undefined);
  await keptRun.close();
  expect(asg.commandCalls(SetDesiredCapacityCommand)).toHaveLength(0);
  expect(kept.lines.some((l) => /left running \(--keep-generators\)/.test(l))).toBe(true);
});

test('--teardown deletes the stacks in reverse order and waits for each', async () => {
  cfn.on(DeleteStackCommand).resolves({});
  cfn.on(DescribeStacksCommand)
    .resolvesOnce({ Stacks: [{ StackName: 'x', StackStatus: 'DELETE_IN_PROGRESS', CreationTime: new Date() }] })
    .rejects(new CloudFormationServiceException({ name: 'ValidationError', $fault: 'client', $metadata: {}, message: 'Stack with id x does not exist' }));
  let removed = false;
  const { p, lines } = platform({ teardown: true, target: 'http://127.0.0.1:9' }, { removeOutputsFile: () => void (removed = true) });
  const run = await open(p);
  await run.close();
  await run.close();
  expect(cfn.commandCalls(DeleteStackCommand).map((c) => c.args[0].input.StackName)).toEqual(['LoadTestRig-Generators', 'LoadTestRig-Target', 'LoadTestRig-Network']);
  expect(removed).toBe(true);
  expect(lines).toContain('teardown: done; nothing of the rig is left billing');
});

test('the generators are scaled to 0 as soon as the load is over: before CloudWatch is read and before the run store is copied', async () => {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-aws-order-'));
  const { p } = platform({ target: 'http://127.0.0.1:9' });
  s3.on(GetObjectCommand).rejects(Object.assign(new Error('The specified key does not exist.'), { name: 'NoSuchKey' }));
  const run = await p.open({ runId: 'r1', runDir, plan: PLAN });
  await expect(run.fleet.launch(['g01'])).rejects.toThrow(/no slice for generator g01/);
  const order: string[] = [];
  asg.on(SetDesiredCapacityCommand).callsFake((input: { DesiredCapacity: number }) => void order.push(`SetDesiredCapacity(${input.DesiredCapacity})`));
  cw.on(GetMetricDataCommand).callsFake(() => (order.push('GetMetricData'), { MetricDataResults: [] }));
  s3.on(ListObjectsV2Command).resolves({ Contents: [{ Key: 'runs/r1/run.json' }], IsTruncated: false });
  s3.on(GetObjectCommand).callsFake(() => (order.push('GetObject'), { Body: { transformToString: async () => '{}' } }));
  // What the run sequence does once the orchestrator has returned (scripts/run.ts reportRun), then its close.
  await run.metrics.collect({ start: 0, end: 60_000 });
  await run.copyToRunDir();
  await run.close();
  expect(order[0]).toBe('SetDesiredCapacity(0)');
  expect(order).toContain('GetMetricData');
  expect(order).toContain('GetObject');
  expect(order.filter((o) => o.startsWith('SetDesiredCapacity'))).toEqual(['SetDesiredCapacity(0)']);
  expect(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8')).toBe('{}');
});

test('--keep-generators: the group is left as it is when the load is over, and said once', async () => {
  const { p, lines } = platform({ keepGenerators: true, target: 'http://127.0.0.1:9' });
  const run = await open(p);
  await run.fleet.launch(['g01']).catch(() => undefined);
  await run.metrics.collect({ start: 0, end: 60_000 });
  await run.close();
  expect(asg.commandCalls(SetDesiredCapacityCommand)).toHaveLength(0);
  expect(lines.filter((l) => /left running \(--keep-generators\)/.test(l))).toHaveLength(1);
});

test(`the run store is copied with ${COPY_CONCURRENCY} GETs in flight, not one at a time, and every object arrives`, async () => {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-aws-copy-'));
  const keys = Array.from({ length: 200 }, (_, i) => `generators/g${i % 10}/p0/periods/${i}.json`);
  let inFlight = 0;
  let most = 0;
  const pending: Array<() => void> = [];
  const store = {
    location: 's3://bkt/runs/r1',
    list: async () => [...keys, 'bundle/agent.js'],
    put: async () => undefined,
    get: (key: string) => {
      inFlight++;
      most = Math.max(most, inFlight);
      return new Promise<string>((resolve) => pending.push(() => (inFlight--, resolve(key))));
    },
  };
  let copied = false;
  const copy = copyStoreToFolder(store as never, runDir).then(() => void (copied = true));
  // Answer the GETs as they queue up: each answer lets one more start.
  while (!copied) {
    await new Promise((r) => setImmediate(r));
    pending.splice(0).forEach((answer) => answer());
  }
  await copy;
  expect(most).toBe(COPY_CONCURRENCY);
  expect(COPY_CONCURRENCY).toBeGreaterThanOrEqual(16);
  expect(COPY_CONCURRENCY).toBeLessThanOrEqual(32);
  expect(fs.readFileSync(path.join(runDir, keys[199]!), 'utf8')).toBe(keys[199]);
  expect(fs.existsSync(path.join(runDir, 'bundle'))).toBe(false);
});

test("an agent still running when the load stopped gets up to 30 s for its last data (done.json) before its instance goes; one that ended is not waited for", async () => {
  let t = 0;
  const fakeClock = { now: () => t, sleep: async (ms: number) => void (t += ms) };
  const reads: string[] = [];
  const fleet = { status: () => new Map<string, number | undefined>([['g01', 0], ['g02', undefined]]) };
  const late = { get: async (key: string) => (reads.push(key), t >= 4000 ? '{}' : undefined) };
  await awaitAgentsData(fleet, late, fakeClock);
  expect(t).toBe(4000);
  expect(new Set(reads)).toEqual(new Set(['generators/g02/done.json']));
  t = 0;
  await awaitAgentsData(fleet, { get: async () => undefined }, fakeClock);
  expect(t).toBe(LAST_DATA_GRACE_MS);
});

// EC2 Auto Scaling User Guide, "Rebalancing activities": after a zone imbalance the group launches in another zone
// and then terminates instances. moto does not rebalance, so the order of the calls is the test.
test('AZRebalance is suspended on the target group and the generator group (each marked first) before the generators scale, and resumed when the run closes', async () => {
  const order: string[] = [];
  const slice = JSON.stringify({ generator: 'g01', index: 0, scriptDir: path.join(__dirname, '..', '..', 'load-generators', 'scenarios'), processes: [] });
  s3.on(GetObjectCommand).callsFake((input: { Key: string }) => ({ Body: { transformToString: async () => (input.Key.endsWith('slice.json') ? slice : '') } }));
  s3.on(PutObjectCommand).callsFake((input: { Key: string; Body: string }) => {
    if (input.Key.startsWith('runs/_scale-in/processes/')) order.push(`mark ${input.Key.slice(25)} ${JSON.parse(input.Body).state}`);
  });
  asg.on(SuspendProcessesCommand).callsFake((input: { AutoScalingGroupName: string; ScalingProcesses: string[] }) => void order.push(`SuspendProcesses ${input.AutoScalingGroupName} ${input.ScalingProcesses.join()}`));
  asg.on(ResumeProcessesCommand).callsFake((input: { AutoScalingGroupName: string; ScalingProcesses: string[] }) => void order.push(`ResumeProcesses ${input.AutoScalingGroupName} ${input.ScalingProcesses.join()}`));
  asg.on(SetDesiredCapacityCommand).callsFake((input: { DesiredCapacity: number }) => void order.push(`SetDesiredCapacity ${input.DesiredCapacity}`));
  asg.on(DescribeAutoScalingGroupsCommand).callsFake((input: { AutoScalingGroupNames: string[] }) => ({ AutoScalingGroups: [{ AutoScalingGroupName: input.AutoScalingGroupNames[0], Instances: [], SuspendedProcesses: [] }] }));
  const stopped = new AbortController();
  stopped.abort();
  const { p } = platform({ target: 'http://127.0.0.1:9' }, { outputs: { ...OUTPUTS, targetAsgName: 'tgt' }, root: path.join(__dirname, '..', '..'), signal: stopped.signal });
  const run = await open(p);
  await run.fleet.launch(['g01']);
  await run.close();
  expect(order).toEqual([
    'mark tgt.json suspended', 'SuspendProcesses tgt AZRebalance',
    'mark gen.json suspended', 'SuspendProcesses gen AZRebalance',
    'SetDesiredCapacity 1',
    'SetDesiredCapacity 0',
    'ResumeProcesses gen AZRebalance', 'mark gen.json restored',
    'ResumeProcesses tgt AZRebalance', 'mark tgt.json restored',
  ]);
});

test('AZRebalance the operator had suspended is left suspended after the run', async () => {
  asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [{ AutoScalingGroupName: 'gen', Instances: [], SuspendedProcesses: [{ ProcessName: 'AZRebalance' }] } as never] });
  s3.on(GetObjectCommand).rejects(Object.assign(new Error('The specified key does not exist.'), { name: 'NoSuchKey' }));
  const { p, lines } = platform({ target: 'http://127.0.0.1:9' });
  const run = await open(p);
  await run.fleet.launch(['g01']).catch(() => undefined);
  await run.close();
  expect(asg.commandCalls(SuspendProcessesCommand)).toHaveLength(0);
  expect(asg.commandCalls(ResumeProcessesCommand)).toHaveLength(0);
  expect(lines).toContain('group gen: AZRebalance already suspended; left as it is');
});

test('a plan longer than the stack\'s GeneratorMaxLifetimeMinutes is refused when the run opens, before anything is suspended or scaled', async () => {
  const plan = { ...PLAN, generators: [{ index: 0, phases: [{ duration: 1200, arrivalRate: 10 }], processes: [], arrivals: 12_000, peakConcurrent: 12_000 }] } as never;
  const { p } = platform({ target: 'http://127.0.0.1:9' }, { outputs: { ...OUTPUTS, generatorMaxLifetimeMinutes: 60 } });
  await expect(p.open({ runId: 'r1', runDir: '/nonexistent/run', plan, sessionSeconds: 3600 })).rejects.toThrow(UsageError);
  await expect(p.open({ runId: 'r1', runDir: '/nonexistent/run', plan, sessionSeconds: 3600 })).rejects.toThrow(/^the run needs its generators for up to 117 min .*generatorMaxLifetimeMinutes 60: /);
  expect(asg.commandCalls(SetDesiredCapacityCommand)).toHaveLength(0);
  expect(sts.commandCalls(GetCallerIdentityCommand)).toHaveLength(0);
});

test('generators a --keep-generators run left, up so long that this run would pass GeneratorMaxLifetimeMinutes (the safety net would stop it mid-run): refused when the run opens, nothing scaled', async () => {
  const plan = { ...PLAN, generators: [{ index: 0, phases: [{ duration: 60, arrivalRate: 10 }], processes: [], arrivals: 600, peakConcurrent: 600 }] } as never;
  const now = 200 * 60_000;
  asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [{ AutoScalingGroupName: 'gen', DesiredCapacity: 1, Instances: [{ InstanceId: 'i-0a', LifecycleState: 'InService' }] } as never] });
  asg.on(DescribeScalingActivitiesCommand).resolves({ Activities: [{ ActivityId: 'a', AutoScalingGroupName: 'gen', StatusCode: 'Successful', Cause: 'x', StartTime: new Date(now - 150 * 60_000), Description: 'Launching a new EC2 instance: i-0a' }] });
  const { p } = platform({ target: 'http://127.0.0.1:9' }, { outputs: { ...OUTPUTS, generatorMaxLifetimeMinutes: 180 }, clock: { now: () => now, sleep: async () => undefined } });
  await expect(p.open({ runId: 'r1', runDir: '/nonexistent/run', plan, sessionSeconds: 60 })).rejects.toThrow(/^the generator group gen \(eu-west-1\) holds 1 instance\(s\) left running by an earlier run \(--keep-generators, or a run that did not scale it to 0\), the oldest \(i-0a\) up 150 min; /);
  expect(asg.commandCalls(SetDesiredCapacityCommand)).toHaveLength(0);
  expect(sts.commandCalls(GetCallerIdentityCommand)).toHaveLength(0);
});
