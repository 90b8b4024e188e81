import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AutoScalingClient, DescribeAutoScalingGroupsCommand, DescribeAutoScalingGroupsCommandOutput, DescribeScalingActivitiesCommand, SetDesiredCapacityCommand } from '@aws-sdk/client-auto-scaling';
import { RigError, UsageError } from '../../scripts/errors';
import { checkGeneratorLifetime, commandTimeoutSeconds } from '../../scripts/platforms/aws/fleet-span';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CancelCommandCommand,
  DescribeInstanceInformationCommand,
  GetCommandInvocationCommand,
  InvalidInstanceId,
  SSMClient,
  SendCommandCommand,
} from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { localStore } from '../../load-generators/lib/run-store';
import { createAwsApi } from '../../scripts/platforms/aws/clients';
import { POLL_BUDGET, SSM_CHECK_CEILING_MS, awsFleet, exitCodeOfDone } from '../../scripts/platforms/aws/fleet';
import { until } from '../helpers/wait';

const ROOT = path.resolve(__dirname, '..', '..');
const asg = mockClient(AutoScalingClient);
const ssm = mockClient(SSMClient);
const s3 = mockClient(S3Client);

function fakeClock() {
  let t = 1_700_000_000_000;
  // Time jumps, but each sleep still yields to the event loop so background polls interleave with the test.
  return {
    now: () => t,
    sleep: (ms: number) => {
      t += ms;
      return new Promise<void>((r) => setImmediate(r));
    },
  };
}

// Only the fields the fleet reads; the SDK's type also requires sizes, zones and dates.
const group = (instances: Array<[string, string]>): Partial<DescribeAutoScalingGroupsCommandOutput> => ({
  AutoScalingGroups: [{ AutoScalingGroupName: 'gen', DesiredCapacity: instances.length, Instances: instances.map(([InstanceId, LifecycleState]) => ({ InstanceId, LifecycleState, HealthStatus: 'Healthy' })) }],
} as unknown as Partial<DescribeAutoScalingGroupsCommandOutput>);

async function setup(ids: string[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-fleet-'));
  const store = localStore(dir);
  for (const [index, id] of ids.entries()) {
    await store.put(`generators/${id}/slice.json`, JSON.stringify({ generator: id, index, scriptDir: path.join(ROOT, 'load-generators', 'scenarios'), processes: [] }));
  }
  const lines: string[] = [];
  const fleet = awsFleet({
    api: createAwsApi({ region: 'eu-west-1' }),
    runId: 'run1',
    store,
    root: ROOT,
    asgName: 'gen',
    bucket: 'results',
    region: 'eu-west-1',
    agentHome: '/opt/loadtest-rig/load-generators',
    clock: fakeClock(),
    log: (l) => lines.push(l),
    pollMs: 10,
    instanceTimeoutMs: 60_000,
  });
  return { store, fleet, lines };
}


beforeEach(() => {
  asg.reset();
  ssm.reset();
  s3.reset();
  s3.on(PutObjectCommand).resolves({});
  ssm.on(DescribeInstanceInformationCommand).resolves({ InstanceInformationList: [] });
  let n = 0;
  ssm.on(SendCommandCommand).callsFake(() => ({ Command: { CommandId: `cmd-${++n}` } }));
  ssm.on(GetCommandInvocationCommand).resolves({ Status: 'InProgress' });
});

test('launch uploads the bundle, scales the group, waits for instances in service and sends one AWS-RunShellScript per generator', async () => {
  asg.on(DescribeAutoScalingGroupsCommand)
    .resolvesOnce(group([['i-0000000000000000a', 'Pending']]))
    .resolves(group([['i-0000000000000000b', 'InService'], ['i-0000000000000000a', 'InService']]));
  const { fleet, store, lines } = await setup(['g01', 'g02']);
  await fleet.launch(['g01', 'g02']);

  expect(asg.commandCalls(SetDesiredCapacityCommand)[0]?.args[0].input).toEqual({ AutoScalingGroupName: 'gen', DesiredCapacity: 2, HonorCooldown: false });
  const keys = s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input.Key);
  expect(keys).toContain('runs/run1/bundle/load-generators/agent.js');
  expect(keys).toContain('runs/run1/bundle/load-generators/scenarios/connect.yml');
  expect(keys.some((k) => k?.includes('node_modules'))).toBe(false);

  const sends = ssm.commandCalls(SendCommandCommand).map((c) => c.args[0].input);
  expect(sends.map((s) => s.InstanceIds)).toEqual([['i-0000000000000000a'], ['i-0000000000000000b']]);
  expect(sends.every((s) => s.DocumentName === 'AWS-RunShellScript')).toBe(true);
  expect(sends[0]?.Parameters?.commands?.join('\n')).toMatch(/node '\/opt\/loadtest-rig\/load-generators\/agent\.js' --store 's3:\/\/results\/runs\/run1' --generator 'g01'/);
  expect(sends[1]?.Parameters?.commands?.join('\n')).toMatch(/--generator 'g02'/);
  expect(sends[0]?.Parameters?.commands?.join('\n')).toMatch(/AWS_REGION='eu-west-1'/);
  expect(sends[0]?.OutputS3BucketName).toBe('results');

  // The slices now name the scenario folder on the instance.
  expect(JSON.parse((await store.get('generators/g02/slice.json')) as string).scriptDir).toBe('/opt/loadtest-rig/load-generators/scenarios');
  expect(lines.some((l) => /generators: 0\/2 in service \(Pending\)/.test(l))).toBe(true);
  expect(fleet.status().get('g01')).toBeUndefined();
  await fleet.stop();
  expect(ssm.commandCalls(CancelCommandCommand).map((c) => c.args[0].input)).toEqual([
    { CommandId: 'cmd-1', InstanceIds: ['i-0000000000000000a'] },
    { CommandId: 'cmd-2', InstanceIds: ['i-0000000000000000b'] },
  ]);
});

test('cancels that fail (credentials expired) are said once, every generator named, however often the fleet is stopped', async () => {
  asg.on(DescribeAutoScalingGroupsCommand).resolves(group([['i-0000000000000000a', 'InService'], ['i-0000000000000000b', 'InService']]));
  ssm.on(CancelCommandCommand).rejects(Object.assign(new Error('The security token included in the request is expired'), { name: 'ExpiredTokenException' }));
  const { fleet, lines } = await setup(['g01', 'g02']);
  await fleet.launch(['g01', 'g02']);
  // The orchestrator stops the fleet at the run's end, and the platform's close() stops it again.
  await fleet.stop();
  await fleet.stop();
  expect(ssm.commandCalls(CancelCommandCommand)).toHaveLength(2);
  expect(lines.filter((l) => /cancel/.test(l))).toEqual(['generators g01, g02: cancel failed (ExpiredTokenException); the agents stop themselves when the heartbeat goes stale']);
});

test('an agent ends when its done.json is in the store; a failed command marks its generator lost with the exit code', async () => {
  asg.on(DescribeAutoScalingGroupsCommand).resolves(group([['i-a', 'InService'], ['i-b', 'InService']]));
  ssm.on(GetCommandInvocationCommand, { CommandId: 'cmd-2', InstanceId: 'i-b' }).resolves({ Status: 'Failed', ResponseCode: 1, StandardErrorContent: 'agent: boom' });
  const { fleet, store, lines } = await setup(['g01', 'g02']);
  await fleet.launch(['g01', 'g02']);
  await store.put('generators/g01/done.json', JSON.stringify({ exitCodes: [0, 0], reason: 'completed' }));
  await until(() => fleet.status().get('g01') === 0 && fleet.status().get('g02') === 1);
  expect(lines.some((l) => /g02 \(i-b\): command Failed \(exit 1\): agent: boom/.test(l))).toBe(true);
  await fleet.stop();
  expect(ssm.commandCalls(CancelCommandCommand)).toHaveLength(0);
});

test('an instance that leaves the group mid-run is lost (exit 3)', async () => {
  asg.on(DescribeAutoScalingGroupsCommand)
    .resolvesOnce(group([['i-a', 'InService']]))
    .resolves(group([['i-a', 'Terminating']]));
  const { fleet, lines } = await setup(['g01']);
  await fleet.launch(['g01']);
  await until(() => fleet.status().get('g01') === 3);
  expect(lines.some((l) => /g01 \(i-a\): instance is Terminating/.test(l))).toBe(true);
  await fleet.stop();
});

test('commands to an instance not yet registered with SSM are retried', async () => {
  asg.on(DescribeAutoScalingGroupsCommand).resolves(group([['i-a', 'InService']]));
  ssm.on(SendCommandCommand)
    .rejectsOnce(new InvalidInstanceId({ message: 'not registered', $metadata: {} }))
    .resolves({ Command: { CommandId: 'cmd-x' } });
  const { fleet } = await setup(['g01']);
  await fleet.launch(['g01']);
  expect(ssm.commandCalls(SendCommandCommand)).toHaveLength(2);
  await fleet.stop();
});

test('instances that never come into service fail the launch with a clear message', async () => {
  asg.on(DescribeAutoScalingGroupsCommand).resolves(group([['i-a', 'Pending']]));
  const { fleet } = await setup(['g01']);
  await expect(fleet.launch(['g01'])).rejects.toThrow(/only 0 of 1 generator instances in service after \d+ s \(Pending\)/);
  expect(ssm.commandCalls(SendCommandCommand)).toHaveLength(0);
});

test('a missing generator group says to deploy', async () => {
  asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [] });
  const { fleet } = await setup(['g01']);
  await expect(fleet.launch(['g01'])).rejects.toThrow(/npm run deploy/);
});

test('exitCodeOfDone', () => {
  expect(exitCodeOfDone(JSON.stringify({ exitCodes: [0, 0], reason: 'completed' }))).toBe(0);
  expect(exitCodeOfDone(JSON.stringify({ exitCodes: [0, 1], reason: 'completed' }))).toBe(1);
  expect(exitCodeOfDone(JSON.stringify({ exitCodes: [0], reason: 'aborted by the orchestrator' }))).toBe(3);
  expect(exitCodeOfDone('{')).toBe(3);
});

describe('preflight from the first ready generator', () => {
  async function setupWithPreflight() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-fleet-'));
    const store = localStore(dir);
    for (const [index, id] of ['g01', 'g02'].entries()) {
      await store.put(`generators/${id}/slice.json`, JSON.stringify({ generator: id, index, scriptDir: path.join(ROOT, 'load-generators', 'scenarios'), processes: [] }));
    }
    const lines: string[] = [];
    const fleet = awsFleet({
      api: createAwsApi({ region: 'eu-west-1' }),
      runId: 'run1', store, root: ROOT, asgName: 'gen', bucket: 'results', region: 'eu-west-1',
      agentHome: '/opt/loadtest-rig/load-generators', clock: fakeClock(), log: (l) => lines.push(l), pollMs: 10, instanceTimeoutMs: 60_000,
      preflight: { target: 'http://internal-alb', http: { method: 'GET', path: '/set-cookie' }, realtime: 'socketio' },
      heapLimitMiB: 1792,
    });
    return { store, fleet, lines };
  }

  test('one instance first; the probe command runs preflight.js on the run store; on success the group scales out and agents get the heap limit', async () => {
    asg.on(DescribeAutoScalingGroupsCommand)
      .resolvesOnce(group([['i-0000000000000000a', 'InService']]))
      .resolves(group([['i-0000000000000000a', 'InService'], ['i-0000000000000000b', 'InService']]));
    const { fleet, store, lines } = await setupWithPreflight();
    // The probe on the instance answers through the run store.
    ssm.on(SendCommandCommand).callsFakeOnce(async () => {
      await store.put('preflight/result.json', JSON.stringify({ ok: true, steps: ['dns internal-alb → 10.0.3.17', 'tcp 10.0.3.17:80'], ms: 12 }));
      return { Command: { CommandId: 'probe-1' } };
    }).callsFake(() => ({ Command: { CommandId: 'agent' } }));
    await fleet.launch(['g01', 'g02']);
    expect(asg.commandCalls(SetDesiredCapacityCommand).map((c) => c.args[0].input.DesiredCapacity)).toEqual([1, 2]);
    expect(JSON.parse((await store.get('preflight/spec.json')) as string)).toMatchObject({ target: 'http://internal-alb', realtime: 'socketio' });
    const sends = ssm.commandCalls(SendCommandCommand).map((c) => c.args[0].input.Parameters?.commands?.join('\n') ?? '');
    expect(sends[0]).toContain("node '/opt/loadtest-rig/load-generators/lib/preflight.js' --store 's3://results/runs/run1'");
    expect(sends.slice(1).every((c) => c.includes('export NODE_OPTIONS=--max-old-space-size=1792'))).toBe(true);
    expect(lines).toContain('preflight from generator i-0000000000000000a: ok in 12 ms (dns internal-alb → 10.0.3.17; tcp 10.0.3.17:80)');
    await fleet.stop();
  });

  test('the preflight does not eat the fleet\'s budget: after it, the scale-out gets the whole wait, and the timeout says the time since the launch began', async () => {
    const pending = group([['i-0000000000000000a', 'Pending']]);
    // The first instance boots for 50 s of the 60-s budget; the second never comes.
    let m = asg.on(DescribeAutoScalingGroupsCommand);
    for (let i = 0; i < 10; i++) m = m.resolvesOnce(pending);
    m.resolves(group([['i-0000000000000000a', 'InService']]));
    const { fleet, store } = await setupWithPreflight();
    ssm.on(SendCommandCommand).callsFakeOnce(async () => {
      await store.put('preflight/result.json', JSON.stringify({ ok: true, steps: ['tcp 10.0.3.17:80'], ms: 12 }));
      return { Command: { CommandId: 'probe-1' } };
    });
    const err = await fleet.launch(['g01', 'g02']).catch((e: Error) => e);
    const [, own, total] = /^only 1 of 2 generator instances in service after (\d+) s, (\d+) s since the launch began \(none launching\)/.exec((err as Error).message) ?? [];
    expect(Number(own)).toBeGreaterThanOrEqual(60);
    expect(Number(total)).toBeGreaterThanOrEqual(110);
  });

  test('a probe command that cannot run (boot failed) stops the launch before scale-out, naming the command status and its error', async () => {
    asg.on(DescribeAutoScalingGroupsCommand).resolves(group([['i-0000000000000000a', 'InService']]));
    ssm.on(GetCommandInvocationCommand).resolves({ Status: 'Failed', ResponseCode: 3, StandardErrorContent: 'generator boot (user-data) failed (cloud-init status 1): loadtest-rig boot step: install Node (checksum-verified)' });
    const { fleet } = await setupWithPreflight();
    await expect(fleet.launch(['g01', 'g02'])).rejects.toThrow('preflight on generator i-0000000000000000a could not run (command Failed, exit 3): generator boot (user-data) failed (cloud-init status 1): loadtest-rig boot step: install Node (checksum-verified)');
    expect(asg.commandCalls(SetDesiredCapacityCommand).map((c) => c.args[0].input.DesiredCapacity)).toEqual([1]);
    expect(ssm.commandCalls(SendCommandCommand)).toHaveLength(1);
  });
});

/** Every generator's instance in service, and a store with their slices. */
async function inServiceFleet(ids: string[]) {
  const instances = ids.map((_, i): [string, string] => [`i-${String(i).padStart(17, '0')}`, 'InService']);
  asg.on(DescribeAutoScalingGroupsCommand).resolves(group(instances));
  const store = localStore(fs.mkdtempSync(path.join(os.tmpdir(), 'rig-fleet-')));
  for (const [index, id] of ids.entries()) await store.put(`generators/${id}/slice.json`, JSON.stringify({ generator: id, index, scriptDir: path.join(ROOT, 'load-generators', 'scenarios'), processes: [] }));
  return { store, instances };
}

test('polling stays flat for a large fleet: 100 generators cost at most POLL_BUDGET status reads per tick, and each is still seen', async () => {
  const ids = Array.from({ length: 100 }, (_, i) => `g${String(i + 1).padStart(3, '0')}`);
  const { store } = await inServiceFleet(ids);
  // Count the poll loop's sleeps: one per tick (pollMs 2000 = the default).
  const clock = fakeClock();
  let pollSleeps = 0;
  const counting = { now: clock.now, sleep: (ms: number) => ((pollSleeps += ms === 2000 ? 1 : 0), clock.sleep(ms)) };
  const fleet = awsFleet({ api: createAwsApi({ region: 'eu-west-1' }), runId: 'run1', store, root: ROOT, asgName: 'gen', bucket: 'results', region: 'eu-west-1', agentHome: '/opt/loadtest-rig/load-generators', clock: counting, log: () => undefined });
  await fleet.launch(ids);
  await until(() => pollSleeps >= 20);
  await fleet.stop();
  const calls = ssm.commandCalls(GetCommandInvocationCommand).map((c) => c.args[0].input.InstanceId);
  // Before: 100 SSM reads per 2-s tick for 100 generators (50/s, above SSM's throttle); now POLL_BUDGET per tick.
  expect(calls.length).toBeLessThanOrEqual((pollSleeps + 1) * POLL_BUDGET);
  expect(calls.length).toBeGreaterThanOrEqual(pollSleeps * POLL_BUDGET);
  // Round-robin: the first ten ticks saw every generator once.
  expect(new Set(calls.slice(0, 100)).size).toBe(100);
});

test('a running generator\'s SSM invocation is read less and less often (≤ every 30 s), and a failed command is still noticed within that', async () => {
  const ids = ['g01', 'g02', 'g03', 'g04'];
  const { store, instances } = await inServiceFleet(ids);
  const clock = fakeClock();
  let ticks = 0;
  let readsAt60 = -1; // taken at the 60th tick exactly, however fast the fake clock runs ahead of the test
  const tick = () => {
    ticks++;
    if (ticks === 60) readsAt60 = ssm.commandCalls(GetCommandInvocationCommand).length;
  };
  const counting = { now: clock.now, sleep: (ms: number) => (ms === 2000 && tick(), clock.sleep(ms)) };
  const fleet = awsFleet({ api: createAwsApi({ region: 'eu-west-1' }), runId: 'run1', store, root: ROOT, asgName: 'gen', bucket: 'results', region: 'eu-west-1', agentHome: '/opt/loadtest-rig/load-generators', clock: counting, log: (l) => { if (l.startsWith('generator g03')) noticedAt = ticks; } });
  let noticedAt = -1;
  await fleet.launch(ids);
  await until(() => ticks >= 60); // two minutes of 2-s ticks, every generator InProgress
  const reads = readsAt60;
  // Before: one read per generator per tick (4 × 60 = 240). Now each backs off 2 s → 30 s: a handful of short
  // steps, then one read every 15–30 s.
  expect(reads).toBeLessThanOrEqual(ids.length * (5 + 120 / 15 + 1));
  expect(reads).toBeGreaterThanOrEqual(ids.length * (120 / SSM_CHECK_CEILING_MS) * 1000);
  // g03's agent crashes: its command fails; noticed within the ceiling (15 ticks) plus one tick.
  ssm.on(GetCommandInvocationCommand, { InstanceId: instances[2]?.[0] }).resolves({ Status: 'Failed', ResponseCode: 3 });
  const failedAt = ticks;
  await until(() => fleet.status().get('g03') === 3);
  expect(noticedAt - failedAt).toBeLessThanOrEqual(SSM_CHECK_CEILING_MS / 2000 + 1);
  await fleet.stop();
});

// EC2 Auto Scaling User Guide, "Troubleshoot Amazon EC2 Auto Scaling: EC2 instance launch failures": a launch AWS
// refuses (InsufficientInstanceCapacity, VcpuLimitExceeded, a type the zone lacks) is a Failed scaling activity;
// moto never fails a launch, so the activity is mocked. Which failures end the wait: test/unit/aws-fleet-waits.test.ts.
test('a Failed scaling activity no retry fixes (an instance quota) stops the wait on its first poll, quoting AWS\'s message in one line', async () => {
  asg.on(DescribeAutoScalingGroupsCommand).resolves(group([]));
  const message = 'Your quota allows for 0 more running instance(s). You requested at least 1.\nLaunching EC2 instance failed.';
  asg.on(DescribeScalingActivitiesCommand).callsFake(() => ({
    Activities: [
      { ActivityId: 'new', AutoScalingGroupName: 'gen', StatusCode: 'Failed', StatusMessage: message, StartTime: new Date(1_700_000_000_000), Cause: 'x' },
      { ActivityId: 'old', AutoScalingGroupName: 'gen', StatusCode: 'Failed', StatusMessage: 'VcpuLimitExceeded', StartTime: new Date(1_600_000_000_000), Cause: 'x' },
    ],
  }));
  const { fleet } = await setup(['g01']);
  const err = await fleet.launch(['g01']).catch((e: Error) => e);
  expect(err).toBeInstanceOf(RigError);
  expect((err as Error).message).toBe(`the generator group gen could not launch instances: ${message.replace(/\n/, ' ')} — request a quota increase (Service Quotas) or lower --generators`);
  expect(asg.commandCalls(DescribeAutoScalingGroupsCommand)).toHaveLength(1);
  expect(asg.commandCalls(DescribeScalingActivitiesCommand)).toHaveLength(1);
});

test('a Failed activity from before this launch (an earlier run) does not stop it', async () => {
  asg.on(DescribeAutoScalingGroupsCommand).resolves(group([['i-0000000000000000a', 'InService']]));
  asg.on(DescribeScalingActivitiesCommand).resolves({ Activities: [{ ActivityId: 'old', AutoScalingGroupName: 'gen', StatusCode: 'Failed', StatusMessage: 'VcpuLimitExceeded', StartTime: new Date(1_600_000_000_000), Cause: 'x' }] });
  const { fleet } = await setup(['g01']);
  await fleet.launch(['g01']);
  expect(ssm.commandCalls(SendCommandCommand)).toHaveLength(1);
  await fleet.stop();
});

test('SSM registration reads every page of DescribeInstanceInformation (50 a page): 60 of 60 registered, not the first page\'s count', async () => {
  const ids = Array.from({ length: 60 }, (_, i) => `g${String(i + 1).padStart(2, '0')}`);
  const { store, instances } = await inServiceFleet(ids);
  const info = instances.map(([InstanceId]) => ({ InstanceId, PingStatus: 'Online' as const }));
  // SSM's paging: MaxResults a page (10 when not given), NextToken to the next.
  ssm.on(DescribeInstanceInformationCommand).callsFake((input: { Filters: Array<{ Values: string[] }>; MaxResults?: number; NextToken?: string }) => {
    const matching = info.filter((i) => input.Filters[0]!.Values.includes(i.InstanceId));
    const start = Number(input.NextToken ?? 0);
    const end = start + (input.MaxResults ?? 10);
    return { InstanceInformationList: matching.slice(start, end), ...(end < matching.length ? { NextToken: String(end) } : {}) };
  });
  const lines: string[] = [];
  const fleet = awsFleet({ api: createAwsApi({ region: 'eu-west-1' }), runId: 'run1', store, root: ROOT, asgName: 'gen', bucket: 'results', region: 'eu-west-1', agentHome: '/opt/loadtest-rig/load-generators', clock: fakeClock(), log: (l) => lines.push(l), pollMs: 10, instanceTimeoutMs: 60_000 });
  await fleet.launch(ids);
  await fleet.stop();
  const calls = ssm.commandCalls(DescribeInstanceInformationCommand).map((c) => c.args[0].input);
  expect(calls.map((c) => [c.Filters?.[0]?.Values?.length, c.MaxResults, c.NextToken])).toEqual([[50, 50, undefined], [10, 50, undefined]]);
  expect(lines).toContain('ssm: 60/60 instances registered');
});

test('instances are picked only once the in-service count equals the desired capacity (an instance the group is about to terminate is not given an agent)', async () => {
  const ids = ['i-0000000000000000a', 'i-0000000000000000b', 'i-0000000000000000c'];
  const withDesired = (desired: number, inService: string[]) => ({ AutoScalingGroups: [{ AutoScalingGroupName: 'gen', DesiredCapacity: desired, Instances: inService.map((InstanceId) => ({ InstanceId, LifecycleState: 'InService', HealthStatus: 'Healthy' })) }] } as never);
  asg.on(DescribeAutoScalingGroupsCommand).resolvesOnce(withDesired(2, ids)).resolves(withDesired(2, ids.slice(1)));
  const { fleet } = await setup(['g01', 'g02']);
  await fleet.launch(['g01', 'g02']);
  await fleet.stop();
  expect(ssm.commandCalls(SendCommandCommand).map((c) => c.args[0].input.InstanceIds)).toEqual([['i-0000000000000000b'], ['i-0000000000000000c']]);
});

test('the agents\' SSM executionTimeout comes from the plan (ready barrier + phases + one session + overrun + 10 min), not a fixed 3 hours', () => {
  const plan = { generators: [{ phases: [{ duration: 1200, arrivalRate: 10 }] }] } as unknown as Parameters<typeof commandTimeoutSeconds>[0];
  // --ramp 20m --hold 3h: past the old fixed 10,800 s.
  expect(commandTimeoutSeconds(plan, 10_800)).toBe(600 + 1200 + 10_800 + 120 + 600);
  expect(commandTimeoutSeconds(plan, 60)).toBe(600 + 1200 + 60 + 120 + 600);
});

test('a run longer than the deployed generatorMaxLifetimeMinutes is refused before anything scales, in one line (exit 2)', () => {
  const plan = { generators: [{ phases: [{ duration: 1200, arrivalRate: 10 }] }] } as unknown as Parameters<typeof checkGeneratorLifetime>[0];
  expect(() => checkGeneratorLifetime(plan, 3600, 180)).not.toThrow();
  expect(() => checkGeneratorLifetime(plan, 3600, undefined)).not.toThrow();
  const err = (() => { try { checkGeneratorLifetime(plan, 3 * 3600, 180); } catch (e) { return e as Error; } return undefined; })();
  expect(err).toBeInstanceOf(UsageError);
  expect(err?.message).toBe('the run needs its generators for up to 237 min (preflight launch 10 + probe 5 + scale-out 10 + ready 10 + phases, one session and the 2-min overrun), longer than the deployed generatorMaxLifetimeMinutes 180: the safety net would scale them to 0 mid-run; shorten the run (--ramp, --hold) or redeploy with -c generatorMaxLifetimeMinutes=237 (npm run deploy)');
});
