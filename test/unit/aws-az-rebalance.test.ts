/**
 * AZRebalance suspended for a run (fleet-processes.ts), through the one AwsApi (clients.ts), and what is done with a
 * suspension found already in place: a killed run's mark past its deadline is taken over by the next run and resumed
 * by `npm run leftovers`; another run's before its deadline is left to it; one with no run's mark is the operator's.
 * EC2 Auto Scaling User Guide, "Suspend and resume processes": a suspended process stays suspended until someone
 * resumes it — AWS never resumes it on its own, so a killed CLI's suspension lasts until the rig resumes it. moto does
 * not rebalance, so the SDK clients are mocked and the calls sent are the test.
 */
import { AutoScalingClient, DescribeAutoScalingGroupsCommand, ResumeProcessesCommand, SuspendProcessesCommand } from '@aws-sdk/client-auto-scaling';
import { CloudFormationClient, CloudFormationServiceException, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { processesMarkKey } from '../../lib/safety-net/scale-in-decision';
import { restoreLeftSuspensions } from '../../scripts/leftovers';
import { createAwsApi } from '../../scripts/platforms/aws/clients';
import { suspendAzRebalance } from '../../scripts/platforms/aws/fleet-processes';
import type { MarkStore } from '../../scripts/platforms/aws/scale-in';

const asg = mockClient(AutoScalingClient);
const s3 = mockClient(S3Client);
const cw = mockClient(CloudWatchClient);
const T = Date.UTC(2026, 10, 26, 12, 0);
const HOUR = 3_600_000;

/** The bucket's objects (the marks), over the mocked S3 client. */
let objects: Map<string, string>;
/** The group's suspended processes, following the calls. */
let suspended: string[];

beforeEach(() => {
  for (const m of [asg, s3, cw]) m.reset();
  objects = new Map();
  suspended = [];
  s3.on(GetObjectCommand).callsFake((input: { Key: string }) => {
    const body = objects.get(input.Key);
    if (body === undefined) throw new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });
    return { Body: { transformToString: async () => body } };
  });
  s3.on(PutObjectCommand).callsFake((input: { Key: string; Body: string }) => void objects.set(input.Key, String(input.Body)));
  asg.on(DescribeAutoScalingGroupsCommand).callsFake((input: { AutoScalingGroupNames: string[] }) => ({
    AutoScalingGroups: (input.AutoScalingGroupNames ?? []).map((name) => ({ AutoScalingGroupName: name, Instances: [], SuspendedProcesses: suspended.map((ProcessName) => ({ ProcessName })) })),
  }));
  asg.on(SuspendProcessesCommand).callsFake((input: { ScalingProcesses: string[] }) => void suspended.push(...input.ScalingProcesses));
  asg.on(ResumeProcessesCommand).callsFake((input: { ScalingProcesses: string[] }) => void (suspended = suspended.filter((p) => !input.ScalingProcesses.includes(p))));
  cw.on(DescribeAlarmsCommand).resolves({ MetricAlarms: [] });
});

const api = () => createAwsApi({ region: 'eu-west-1' });
const marks = (): MarkStore => ({ get: async (key) => objects.get(key), put: async (key, body) => void objects.set(key, String(body)) });
const markOf = (group: string) => JSON.parse(objects.get(processesMarkKey(group)) ?? 'null') as { runId: string; state: string } | null;
const killedRunMark = (restoreBy: number) => JSON.stringify({ groupName: 'gen', processes: ['AZRebalance'], runId: 'r-killed', suspendedAt: T - 2 * HOUR, restoreBy, state: 'suspended' });
const run = (now = T) => ({ marks: marks(), runId: 'r-next', now: () => now, restoreBy: now + HOUR });

test('suspends and resumes through AwsApi (clients.ts): SuspendProcesses and ResumeProcesses sent on the group, each marked', async () => {
  const lines: string[] = [];
  const resume = await suspendAzRebalance(api(), 'gen', (l) => lines.push(l), run());
  expect(asg.commandCalls(SuspendProcessesCommand).map((c) => c.args[0].input)).toEqual([{ AutoScalingGroupName: 'gen', ScalingProcesses: ['AZRebalance'] }]);
  expect(markOf('gen')).toMatchObject({ runId: 'r-next', state: 'suspended' });
  await resume();
  expect(asg.commandCalls(ResumeProcessesCommand).map((c) => c.args[0].input)).toEqual([{ AutoScalingGroupName: 'gen', ScalingProcesses: ['AZRebalance'] }]);
  expect(markOf('gen')).toMatchObject({ runId: 'r-next', state: 'restored' });
});

test('a killed run\'s suspension past its deadline is taken over by the next run, which resumes it at its end', async () => {
  suspended = ['AZRebalance'];
  objects.set(processesMarkKey('gen'), killedRunMark(T - 1));
  const lines: string[] = [];
  const resume = await suspendAzRebalance(api(), 'gen', (l) => lines.push(l), run());
  expect(lines[0]).toBe('group gen: run r-killed suspended AZRebalance on gen at 2026-11-26T10:00:00.000Z and had not resumed it by 2026-11-26T11:59:59.999Z (its CLI was killed or lost); this run takes it over and resumes it at its end');
  expect(markOf('gen')).toMatchObject({ runId: 'r-next', state: 'suspended' });
  expect(asg.commandCalls(SuspendProcessesCommand)).toHaveLength(0);
  await resume();
  expect(suspended).toEqual([]);
  expect(markOf('gen')).toMatchObject({ runId: 'r-next', state: 'restored' });
});

test('another run\'s suspension before its deadline is left to that run; one with no run\'s mark (the operator\'s) is left as it is', async () => {
  suspended = ['AZRebalance'];
  objects.set(processesMarkKey('gen'), killedRunMark(T + HOUR));
  const lines: string[] = [];
  await (await suspendAzRebalance(api(), 'gen', (l) => lines.push(l), run()))();
  objects.clear();
  await (await suspendAzRebalance(api(), 'gen', (l) => lines.push(l), run()))();
  expect(lines).toEqual([
    'group gen: AZRebalance is suspended by another run (run r-killed suspended AZRebalance on gen and resumes it by 2026-11-26T13:00:00.000Z); left to that run',
    'group gen: AZRebalance already suspended; left as it is',
  ]);
  expect(suspended).toEqual(['AZRebalance']);
  expect(asg.commandCalls(SuspendProcessesCommand)).toHaveLength(0);
  expect(asg.commandCalls(ResumeProcessesCommand)).toHaveLength(0);
});

describe('npm run leftovers resumes a killed run\'s AZRebalance past its deadline, and says so', () => {
  const outputs = JSON.stringify({ 'LoadTestRig-Generators': { GeneratorAsgName: 'gen', ResultsBucketName: 'bkt', GeneratorAgentHome: '/opt/loadtest-rig/load-generators', Region: 'eu-west-1' } });

  test('past the deadline: ResumeProcesses, the mark restored, one line naming the run', async () => {
    suspended = ['AZRebalance'];
    objects.set(processesMarkKey('gen'), killedRunMark(T - 1));
    const lines: string[] = [];
    await restoreLeftSuspensions(api(), outputs, 'cdk-outputs.json', (l) => lines.push(l), T);
    expect(asg.commandCalls(ResumeProcessesCommand).map((c) => c.args[0].input)).toEqual([{ AutoScalingGroupName: 'gen', ScalingProcesses: ['AZRebalance'] }]);
    expect(markOf('gen')).toMatchObject({ runId: 'r-killed', state: 'restored' });
    expect(lines).toEqual(['group gen: AZRebalance resumed: run r-killed suspended AZRebalance on gen at 2026-11-26T10:00:00.000Z and had not resumed it by 2026-11-26T11:59:59.999Z (its CLI was killed or lost)']);
  });

  test('another generator region\'s group is resumed too, through that region\'s client and bucket (was: the home region only)', async () => {
    const twoRegions = JSON.stringify({
      'LoadTestRig-Generators': { GeneratorAsgName: 'gen', ResultsBucketName: 'bkt', GeneratorAgentHome: '/opt/loadtest-rig/load-generators', Region: 'eu-west-1', RemoteGeneratorRegions: 'us-east-1' },
      'LoadTestRig-Generators-us-east-1': { GeneratorAsgName: 'gen-east', ResultsBucketName: 'bkt-east', GeneratorAgentHome: '/opt/loadtest-rig/load-generators', Region: 'us-east-1' },
    });
    suspended = ['AZRebalance'];
    objects.set(processesMarkKey('gen-east'), JSON.stringify({ ...JSON.parse(killedRunMark(T - 1)), groupName: 'gen-east' }));
    const regionsAsked: string[] = [];
    const lines: string[] = [];
    await restoreLeftSuspensions(api(), twoRegions, 'cdk-outputs.json', (l) => lines.push(l), T, (r) => (regionsAsked.push(r), createAwsApi({ region: r })));
    expect(regionsAsked).toEqual(['us-east-1']);
    expect(asg.commandCalls(ResumeProcessesCommand).map((c) => c.args[0].input)).toEqual([{ AutoScalingGroupName: 'gen-east', ScalingProcesses: ['AZRebalance'] }]);
    expect(s3.commandCalls(GetObjectCommand).some((c) => c.args[0].input.Bucket === 'bkt-east')).toBe(true);
    expect(lines).toEqual([expect.stringMatching(/^group gen-east: AZRebalance resumed: run r-killed suspended AZRebalance/)]);
  });

  test('with no cdk-outputs.json (after npm run teardown, another machine), CloudFormation names the other region\'s group, each stack asked in its own region', async () => {
    const cfn = mockClient(CloudFormationClient);
    const stacks: Record<string, { region: string; outputs: Record<string, string> }> = {
      'LoadTestRig-Generators': { region: 'eu-west-1', outputs: { GeneratorAsgName: 'gen', ResultsBucketName: 'bkt', GeneratorAgentHome: '/opt/a', Region: 'eu-west-1', RemoteGeneratorRegions: 'us-east-1' } },
      'LoadTestRig-Generators-us-east-1': { region: 'us-east-1', outputs: { GeneratorAsgName: 'gen-east', ResultsBucketName: 'bkt-east', GeneratorAgentHome: '/opt/a', Region: 'us-east-1' } },
    };
    cfn.on(DescribeStacksCommand).callsFake(async (input: { StackName: string }, getClient) => {
      const stack = stacks[input.StackName];
      // A stack exists in its own region only: asked elsewhere, CloudFormation says it does not exist.
      if (!stack || stack.region !== (await getClient().config.region())) throw new CloudFormationServiceException({ name: 'ValidationError', $fault: 'client', $metadata: {}, message: `Stack with id ${input.StackName} does not exist` });
      return { Stacks: [{ StackName: input.StackName, StackStatus: 'CREATE_COMPLETE', CreationTime: new Date(T), Outputs: Object.entries(stack.outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })) }] };
    });
    try {
      suspended = ['AZRebalance'];
      objects.set(processesMarkKey('gen-east'), JSON.stringify({ ...JSON.parse(killedRunMark(T - 1)), groupName: 'gen-east' }));
      const lines: string[] = [];
      await restoreLeftSuspensions(api(), undefined, 'cdk-outputs.json', (l) => lines.push(l), T, (r) => createAwsApi({ region: r }));
      expect(asg.commandCalls(ResumeProcessesCommand).map((c) => c.args[0].input)).toEqual([{ AutoScalingGroupName: 'gen-east', ScalingProcesses: ['AZRebalance'] }]);
      expect(lines).toEqual([expect.stringMatching(/^group gen-east: AZRebalance resumed/)]);
    } finally {
      cfn.restore();
    }
  });

  test('before the deadline, or with no run\'s mark: nothing resumed, nothing said', async () => {
    suspended = ['AZRebalance'];
    objects.set(processesMarkKey('gen'), killedRunMark(T + HOUR));
    const lines: string[] = [];
    await restoreLeftSuspensions(api(), outputs, 'cdk-outputs.json', (l) => lines.push(l), T);
    objects.clear();
    await restoreLeftSuspensions(api(), outputs, 'cdk-outputs.json', (l) => lines.push(l), T);
    expect(asg.commandCalls(ResumeProcessesCommand)).toHaveLength(0);
    expect(lines).toEqual([]);
  });
});
