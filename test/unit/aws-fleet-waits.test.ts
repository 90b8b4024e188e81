/**
 * How long the AWS fleet waits for its instances: never past the launch span every estimate of the run counts
 * (fleet-span.ts launchSpanMs), and (fleet-launch.ts) when a Failed scaling activity stops the wait. The SDK clients
 * are mocked (aws-sdk-client-mock): moto never fails a launch and has no scaling activities to speak of.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AutoScalingClient, DescribeAutoScalingGroupsCommand, DescribeAutoScalingGroupsCommandOutput, DescribeScalingActivitiesCommand } from '@aws-sdk/client-auto-scaling';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DescribeInstanceInformationCommand, GetCommandInvocationCommand, SSMClient, SendCommandCommand } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { localStore } from '../../load-generators/lib/run-store';
import { RigError } from '../../scripts/errors';
import { PREFLIGHT_RESULT_KEY } from '../../scripts/preflight';
import { createAwsApi } from '../../scripts/platforms/aws/clients';
import { awsFleet } from '../../scripts/platforms/aws/fleet';
import { fleetBudgets, launchSpanMs } from '../../scripts/platforms/aws/fleet-span';
import { RETRY_GRACE_MS } from '../../scripts/platforms/aws/launch-failures';

const ROOT = path.resolve(__dirname, '..', '..');
const asg = mockClient(AutoScalingClient);
const ssm = mockClient(SSMClient);
const s3 = mockClient(S3Client);
const T0 = 1_700_000_000_000;

/** A clock that jumps on sleep (and when a test advances it), yielding to the event loop each time. */
function fakeClock() {
  const c = {
    t: T0,
    now: () => c.t,
    sleep: (ms: number) => {
      c.t += ms;
      return new Promise<void>((r) => setImmediate(r));
    },
  };
  return c;
}

const group = (instances: Array<[string, string]>, desired = instances.length) => ({
  AutoScalingGroups: [{ AutoScalingGroupName: 'gen', DesiredCapacity: desired, Instances: instances.map(([InstanceId, LifecycleState]) => ({ InstanceId, LifecycleState, HealthStatus: 'Healthy' })) }],
} as unknown as DescribeAutoScalingGroupsCommandOutput);

async function sliceStore(ids: readonly string[]) {
  const store = localStore(fs.mkdtempSync(path.join(os.tmpdir(), 'rig-fleet-waits-')));
  for (const [index, id] of ids.entries()) await store.put(`generators/${id}/slice.json`, JSON.stringify({ generator: id, index, scriptDir: path.join(ROOT, 'load-generators', 'scenarios'), processes: [] }));
  return store;
}

beforeEach(() => {
  for (const m of [asg, ssm, s3]) m.reset();
  s3.on(PutObjectCommand).resolves({});
  ssm.on(DescribeInstanceInformationCommand).resolves({ InstanceInformationList: [] });
  ssm.on(GetCommandInvocationCommand).resolves({ Status: 'InProgress' });
  ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'cmd' } });
  asg.on(DescribeScalingActivitiesCommand).resolves({ Activities: [] });
});

describe('the launch never outlasts the span the run\'s estimates count (fleet-span.ts launchSpanMs)', () => {
  test('a bundle upload of 20 s, a preflight instance 55 s after it, a probe of 25 s, and a scale-out that never completes: given up by the launch span', async () => {
    const timings = { instanceTimeoutMs: 60_000, preflightTimeoutMs: 30_000 };
    const span = launchSpanMs(fleetBudgets(timings));
    const clock = fakeClock();
    let uploaded = false;
    s3.on(PutObjectCommand).callsFake(() => {
      if (!uploaded) clock.t += 20_000;
      uploaded = true;
    });
    const store = await sliceStore(['g01', 'g02']);
    // The preflight's instance comes 75 s into the launch; the second instance never comes.
    asg.on(DescribeAutoScalingGroupsCommand).callsFake(() => group([['i-0000000000000000a', clock.now() >= T0 + 75_000 ? 'InService' : 'Pending']], 1));
    let answerAt = Infinity;
    ssm.on(SendCommandCommand).callsFake(() => {
      if (answerAt === Infinity) answerAt = clock.now() + 25_000;
      return { Command: { CommandId: 'cmd' } };
    });
    const answering = { ...store, get: async (key: string) => (key === PREFLIGHT_RESULT_KEY ? (clock.now() >= answerAt ? JSON.stringify({ ok: true, steps: ['tcp 10.0.3.17:80'], ms: 3 }) : undefined) : store.get(key)) };
    const fleet = awsFleet({
      api: createAwsApi({ region: 'eu-west-1' }), runId: 'run1', store: answering, root: ROOT, asgName: 'gen', bucket: 'results', region: 'eu-west-1',
      agentHome: '/opt/loadtest-rig/load-generators', clock, log: () => undefined, pollMs: 1000, ...timings,
      preflight: { target: 'http://internal-alb', http: { method: 'GET', path: '/set-cookie' } },
    });
    const err = await fleet.launch(['g01', 'g02']).catch((e: Error) => e);
    expect(err).toBeInstanceOf(RigError);
    expect((err as Error).message).toMatch(/^only \d of \d generator instances in service after \d+ s, \d+ s since the launch began/);
    // The preflight's stage counts from the launch's start, so its late instance ends the launch within the span (one
    // 5-s poll of slack); before, each stage's budget counted from its own start, and the launch outlasted the span.
    expect(clock.now() - T0).toBeGreaterThanOrEqual(timings.instanceTimeoutMs);
    expect(clock.now() - T0).toBeLessThanOrEqual(span + 5000);
  });
});

// AWS::AutoScaling::AutoScalingGroup CapacityDistributionStrategy (default balanced-best-effort): a launch that fails
// in one zone is retried in another; EC2 Auto Scaling troubleshooting: a vCPU limit fails the same in every zone.
describe('a Failed scaling activity ends the wait only when no retry fixes it or nothing progressed after it', () => {
  const CAPACITY = 'We currently do not have sufficient c5.large capacity in the Availability Zone you requested (eu-west-1a). Our system will be working on provisioning additional capacity. Launching EC2 instance failed.';
  const VCPU = 'You have requested more vCPU capacity than your current vCPU limit of 32 allows for the instance bucket that the specified instance type belongs to. Launching EC2 instance failed.';
  const activity = (StatusCode: string, at: number, StatusMessage?: string) => ({ ActivityId: `${StatusCode}-${at}`, AutoScalingGroupName: 'gen', StatusCode, StartTime: new Date(at), Cause: 'x', Description: 'Launching a new EC2 instance', ...(StatusMessage ? { StatusMessage } : {}) });

  async function fleetOf(ids: string[], clock = fakeClock()) {
    const lines: string[] = [];
    const fleet = awsFleet({
      api: createAwsApi({ region: 'eu-west-1' }), runId: 'run1', store: await sliceStore(ids), root: ROOT, asgName: 'gen', bucket: 'results', region: 'eu-west-1',
      agentHome: '/opt/loadtest-rig/load-generators', clock, log: (l) => lines.push(l), pollMs: 10, instanceTimeoutMs: 600_000,
    });
    return { fleet, lines, clock };
  }

  test('InsufficientInstanceCapacity in eu-west-1a, then a successful launch in eu-west-1b: the wait goes on and the fleet launches', async () => {
    const clock = fakeClock();
    // First poll: the failure alone; from the second, the group's retry in the other zone succeeded and is in service.
    let polls = 0;
    asg.on(DescribeAutoScalingGroupsCommand).callsFake(() => (++polls === 1 ? group([], 1) : group([['i-0000000000000000b', 'InService']])));
    asg.on(DescribeScalingActivitiesCommand).callsFake(() => ({
      Activities: polls === 1 ? [activity('Failed', T0 + 1000, CAPACITY)] : [activity('Successful', T0 + 3000), activity('Failed', T0 + 1000, CAPACITY)],
    }));
    const { fleet, lines } = await fleetOf(['g01'], clock);
    await fleet.launch(['g01']);
    expect(ssm.commandCalls(SendCommandCommand)).toHaveLength(1);
    expect(lines).toContain(`generator group gen: a launch failed (${CAPACITY}); the group retries (in another zone where it can), waiting for it`);
    await fleet.stop();
  });

  test('a vCPU limit stops the wait on its first poll, with the quota fix in the one line', async () => {
    asg.on(DescribeAutoScalingGroupsCommand).resolves(group([], 1));
    asg.on(DescribeScalingActivitiesCommand).resolves({ Activities: [activity('Failed', T0 + 1000, VCPU)] as never });
    const { fleet } = await fleetOf(['g01']);
    const err = await fleet.launch(['g01']).catch((e: Error) => e);
    expect(err).toBeInstanceOf(RigError);
    expect((err as Error).message).toBe(`the generator group gen could not launch instances: ${VCPU} — request a quota increase (Service Quotas) or lower --generators`);
    expect(asg.commandCalls(DescribeScalingActivitiesCommand)).toHaveLength(1);
  });

  test('InsufficientInstanceCapacity with nothing after it: the wait ends once it has stood RETRY_GRACE_MS, long before the launch budget', async () => {
    asg.on(DescribeAutoScalingGroupsCommand).resolves(group([], 1));
    asg.on(DescribeScalingActivitiesCommand).resolves({ Activities: [activity('Failed', T0 + 1000, CAPACITY)] as never });
    const { fleet, clock } = await fleetOf(['g01']);
    const err = await fleet.launch(['g01']).catch((e: Error) => e);
    expect((err as Error).message).toBe(`the generator group gen could not launch instances: ${CAPACITY} — no launch succeeded or began in the 120 s after it, in this zone or another; choose another generatorInstanceType, or retry later`);
    expect(clock.now() - T0).toBeGreaterThanOrEqual(RETRY_GRACE_MS);
    expect(clock.now() - T0).toBeLessThan(RETRY_GRACE_MS + 10_000);
  });
});
