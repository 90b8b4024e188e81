/**
 * Generators kept by an earlier run (--keep-generators). Two AWS rules the emulator does not exercise:
 * - the safety net scales the group to 0 once any instance's launch time is older than generatorMaxLifetimeMinutes,
 *   so a kept instance's age counts toward this run's span (scripts/platforms/aws/kept-generators.ts);
 * - lowering a group's desired capacity terminates instances (EC2 Auto Scaling User Guide, "Control which Auto
 *   Scaling instances terminate during scale in"), so the preflight does not lower a kept fleet to one instance.
 * The SDK clients are mocked (aws-sdk-client-mock).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AutoScalingClient, DescribeAutoScalingGroupsCommand, DescribeAutoScalingGroupsCommandOutput, DescribeScalingActivitiesCommand, SetDesiredCapacityCommand } from '@aws-sdk/client-auto-scaling';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DescribeInstanceInformationCommand, GetCommandInvocationCommand, SSMClient, SendCommandCommand } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { localStore } from '../../load-generators/lib/run-store';
import { UsageError } from '../../scripts/errors';
import { PREFLIGHT_RESULT_KEY } from '../../scripts/preflight';
import { createAwsApi } from '../../scripts/platforms/aws/clients';
import { awsFleet } from '../../scripts/platforms/aws/fleet';
import { checkKeptGenerators } from '../../scripts/platforms/aws/kept-generators';
import type { RigOutputs } from '../../scripts/platforms/aws/discovery';
import { scaleGeneratorsToZero } from '../../scripts/platforms/aws/run-teardown';

const ROOT = path.resolve(__dirname, '..', '..');
const asg = mockClient(AutoScalingClient);
const ssm = mockClient(SSMClient);
const s3 = mockClient(S3Client);
const T0 = 1_700_000_000_000;
const MIN = 60_000;

const group = (ids: string[], desired = ids.length) => ({
  AutoScalingGroups: [{ AutoScalingGroupName: 'gen', DesiredCapacity: desired, Instances: ids.map((InstanceId) => ({ InstanceId, LifecycleState: 'InService', HealthStatus: 'Healthy' })) }],
} as unknown as DescribeAutoScalingGroupsCommandOutput);
const launch = (id: string, at: number) => ({ ActivityId: id, AutoScalingGroupName: 'gen', StatusCode: 'Successful' as const, StartTime: new Date(at), Cause: 'x', Description: `Launching a new EC2 instance: ${id}` });

beforeEach(() => {
  for (const m of [asg, ssm, s3]) m.reset();
});

describe('safety-net rule: a kept instance\'s launch time counts toward generatorMaxLifetimeMinutes', () => {
  const check = (spanMs: number, lines: string[] = []) =>
    checkKeptGenerators({ api: createAwsApi({ region: 'eu-west-1' }), asgName: 'gen', maxLifetimeMinutes: 180, spanMs, now: T0, log: (l) => lines.push(l) });

  test('kept instances up 100 min and a run needing 90 min more: refused before anything scales (exit 2), naming the way out', async () => {
    asg.on(DescribeAutoScalingGroupsCommand).resolves(group(['i-0a', 'i-0b']));
    asg.on(DescribeScalingActivitiesCommand).resolves({ Activities: [launch('i-0b', T0 - 40 * MIN), launch('i-0a', T0 - 100 * MIN)] });
    const err = await check(90 * MIN).catch((e: Error) => e);
    expect(err).toBeInstanceOf(UsageError);
    // The command names the region (a multi-region run checks each region's group), and the lifetime that would do.
    expect((err as Error).message).toBe('the generator group gen (eu-west-1) holds 2 instance(s) left running by an earlier run (--keep-generators, or a run that did not scale it to 0), the oldest (i-0a) up 100 min; this run needs them up to 90 min more, past generatorMaxLifetimeMinutes 180, and the safety net would scale the group to 0 mid-run: scale it to 0: `aws autoscaling set-desired-capacity --auto-scaling-group-name gen --desired-capacity 0 --region eu-west-1` first, or redeploy with -c generatorMaxLifetimeMinutes=191 (npm run deploy)');
    expect(asg.commandCalls(SetDesiredCapacityCommand)).toHaveLength(0);
  });

  test('kept instances up 40 min and a run needing 90 min more: allowed, and said', async () => {
    asg.on(DescribeAutoScalingGroupsCommand).resolves(group(['i-0b']));
    asg.on(DescribeScalingActivitiesCommand).resolves({ Activities: [launch('i-0b', T0 - 40 * MIN)] });
    const lines: string[] = [];
    await check(90 * MIN, lines);
    expect(lines).toEqual(['kept generators: 1 instance(s) from an earlier run, the oldest (i-0b) up 40 min; this run needs at most 90 min more, within generatorMaxLifetimeMinutes 180']);
  });

  test('launches found on a later page of the activities; an instance whose launch is not found is said, not guessed; a terminating one is not counted', async () => {
    asg.on(DescribeAutoScalingGroupsCommand).resolves({
      AutoScalingGroups: [{ AutoScalingGroupName: 'gen', DesiredCapacity: 2, Instances: [
        { InstanceId: 'i-0a', LifecycleState: 'InService' }, { InstanceId: 'i-0c', LifecycleState: 'InService' }, { InstanceId: 'i-0d', LifecycleState: 'Terminating' },
      ] }],
    } as unknown as DescribeAutoScalingGroupsCommandOutput);
    asg.on(DescribeScalingActivitiesCommand)
      .resolvesOnce({ Activities: [launch('i-0d', T0 - 170 * MIN)], NextToken: 'p2' })
      .resolvesOnce({ Activities: [launch('i-0a', T0 - 30 * MIN)] });
    const lines: string[] = [];
    await check(90 * MIN, lines);
    expect(asg.commandCalls(DescribeScalingActivitiesCommand).map((c) => c.args[0].input.NextToken)).toEqual([undefined, 'p2']);
    expect(lines).toEqual([
      "kept generators: no launch found for i-0c in the group's recent activities; their age is not checked against generatorMaxLifetimeMinutes",
      'kept generators: 2 instance(s) from an earlier run, the oldest (i-0a) up 30 min; this run needs at most 90 min more, within generatorMaxLifetimeMinutes 180',
    ]);
  });

  test('activities that cannot be read (throttled, refused) are said and the run goes on, as an unreadable group is', async () => {
    asg.on(DescribeAutoScalingGroupsCommand).resolves(group(['i-0a']));
    asg.on(DescribeScalingActivitiesCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'Throttling' }));
    const lines: string[] = [];
    await expect(check(90 * MIN, lines)).resolves.toBeUndefined();
    expect(lines).toEqual(['kept generators: their launch times could not be read (Throttling); their age is not checked against generatorMaxLifetimeMinutes']);
  });

  test('an empty group: nothing read but the group', async () => {
    asg.on(DescribeAutoScalingGroupsCommand).resolves(group([]));
    await check(500 * MIN);
    expect(asg.commandCalls(DescribeScalingActivitiesCommand)).toHaveLength(0);
  });
});

describe('Auto Scaling rule: lowering desired capacity terminates instances, so the preflight keeps a kept fleet', () => {
  test('a group kept at 3: the probe runs on one of its instances, no SetDesiredCapacity(1) before the scale to the plan', async () => {
    const store = localStore(fs.mkdtempSync(path.join(os.tmpdir(), 'rig-kept-')));
    for (const [index, id] of ['g01', 'g02', 'g03'].entries()) await store.put(`generators/${id}/slice.json`, JSON.stringify({ generator: id, index, scriptDir: path.join(ROOT, 'load-generators', 'scenarios'), processes: [] }));
    const answering = { ...store, get: async (key: string) => (key === PREFLIGHT_RESULT_KEY ? JSON.stringify({ ok: true, steps: ['tcp 10.0.3.17:80'], ms: 3 }) : store.get(key)) };
    s3.on(PutObjectCommand).resolves({});
    ssm.on(DescribeInstanceInformationCommand).resolves({ InstanceInformationList: [] });
    ssm.on(GetCommandInvocationCommand).resolves({ Status: 'InProgress' });
    ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'cmd' } });
    asg.on(DescribeScalingActivitiesCommand).resolves({ Activities: [] });
    asg.on(DescribeAutoScalingGroupsCommand).resolves(group(['i-0000000000000000a', 'i-0000000000000000b', 'i-0000000000000000c']));
    asg.on(SetDesiredCapacityCommand).resolves({});
    const lines: string[] = [];
    const clock = { now: () => T0, sleep: () => new Promise<void>((r) => setImmediate(r)) };
    const fleet = awsFleet({
      api: createAwsApi({ region: 'eu-west-1' }), runId: 'run1', store: answering, root: ROOT, asgName: 'gen', bucket: 'results', region: 'eu-west-1',
      agentHome: '/opt/loadtest-rig/load-generators', clock, log: (l) => lines.push(l), pollMs: 10,
      preflight: { target: 'http://internal-alb', http: { method: 'GET', path: '/set-cookie' } },
    });
    await fleet.launch(['g01', 'g02', 'g03']);
    await fleet.stop();
    expect(asg.commandCalls(SetDesiredCapacityCommand).map((c) => c.args[0].input.DesiredCapacity)).toEqual([3]);
    expect(lines).toContain('generator group gen: desired capacity 3 kept from an earlier run (preflight on one of its instances before scaling to the plan)');
  });
});

describe('scaling a group to 0 after a run fails: the command to finish it names the group\'s region', () => {
  test('another region\'s group (a command without --region would go to the default region and find no group)', async () => {
    asg.on(SetDesiredCapacityCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'Throttling' }));
    const lines: string[] = [];
    await scaleGeneratorsToZero(createAwsApi({ region: 'us-east-1' }), { generatorAsgName: 'gen-use1' } as RigOutputs, (l) => lines.push(l));
    expect(lines).toEqual(['could not scale the generator group to 0 (Throttling: Rate exceeded); scale it to 0: `aws autoscaling set-desired-capacity --auto-scaling-group-name gen-use1 --desired-capacity 0 --region us-east-1`']);
  });
});
