// Unit tests of the generator safety-net Lambda's logic (the CDK wiring is in generator-fleet.test.ts).
import * as net from '../../lib/safety-net/index.js';

describe('lib/safety-net', () => {
  beforeEach(() => { jest.spyOn(console, 'log').mockImplementation(() => undefined); });
  afterEach(() => { jest.restoreAllMocks(); });
  const now = Date.parse('2025-01-01T12:00:00Z');
  const ago = (min: number): Date => new Date(now - min * 60_000);
  /** The results bucket's marks in memory, with the writes made. */
  function markBucket(marks: Record<string, object>) {
    const calls: string[] = [];
    const objects = new Map(Object.entries(marks).map(([k, v]) => [k, JSON.stringify(v)]));
    const s3 = {
      listObjectsV2: async (input: { Prefix: string }) => ({ Contents: [...objects.keys()].filter((k) => k.startsWith(input.Prefix)).map((Key) => ({ Key })) }),
      getObject: async (input: { Key: string }) => objects.get(input.Key),
      putObject: async (input: { Key: string; Body: string }) => void (calls.push(`put ${input.Key} ${JSON.parse(input.Body).state}`), objects.set(input.Key, input.Body)),
    };
    return { s3, calls };
  }

  test('an instance older than the limit is overdue; a younger one is not', () => {
    const overdue = net.overdueInstances([{ instanceId: 'old', launchTime: ago(181) }, { instanceId: 'young', launchTime: ago(179) }], now, 180);
    expect(overdue.map((i) => i.instanceId)).toEqual(['old']);
  });

  test('an overdue generator scales the group to zero', async () => {
    const calls: unknown[] = [];
    const result = await net.run({
      env: { GENERATOR_ASG_NAME: 'gens', MAX_LIFETIME_MINUTES: '180' },
      now: () => now,
      ec2: { describeInstances: async () => ({ Reservations: [{ Instances: [{ InstanceId: 'i-1', LaunchTime: ago(200) }] }] }) },
      autoscaling: { setDesiredCapacity: async (input: unknown) => { calls.push(input); } },
    });
    expect(result.scaledToZero).toBe(true);
    expect(calls).toEqual([{ AutoScalingGroupName: 'gens', DesiredCapacity: 0, HonorCooldown: false }]);
  });

  test('a fleet within its lifetime is left alone', async () => {
    const calls: unknown[] = [];
    const result = await net.run({
      env: { GENERATOR_ASG_NAME: 'gens', MAX_LIFETIME_MINUTES: '180' },
      now: () => now,
      ec2: { describeInstances: async () => ({ Reservations: [{ Instances: [{ InstanceId: 'i-1', LaunchTime: ago(30) }] }] }) },
      autoscaling: { setDesiredCapacity: async (input: unknown) => { calls.push(input); } },
    });
    expect(result.scaledToZero).toBe(false);
    expect(calls).toEqual([]);
  });

  describe('scale-in a killed run left suspended', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { restoreScaleIn } = require('../../lib/safety-net/index.js') as {
      restoreScaleIn: (deps: object) => Promise<Array<{ alarmName: string; action: string; why: string }>>;
    };
    /** The bucket's marks and the alarms' states, with the calls made. */
    function account(marks: Record<string, object>, enabled: Record<string, boolean>) {
      const { s3, calls } = markBucket(marks);
      const cloudwatch = {
        describeAlarms: async (input: { AlarmNames: string[] }) => ({ MetricAlarms: input.AlarmNames.filter((n) => n in enabled).map((AlarmName) => ({ AlarmName, ActionsEnabled: enabled[AlarmName] })) }),
        enableAlarmActions: async (input: { AlarmNames: string[] }) => void calls.push(`enable ${input.AlarmNames.join(',')}`),
      };
      return { s3, cloudwatch, calls };
    }
    const mark = (alarmName: string, restoreBy: number, state = 'suspended') => ({ alarmName, runId: 'r1', suspendedAt: now - 3_600_000, restoreBy, state });

    test('past the deadline: alarm actions enabled and the mark rewritten as restored; before it, or someone else\'s, left alone', async () => {
      const a = account(
        {
          'runs/_scale-in/LoadTestRig-Target-In.json': mark('LoadTestRig-Target-In', now - 1),
          'runs/_scale-in/LoadTestRig-Target-Early.json': mark('LoadTestRig-Target-Early', now + 60_000),
          'runs/_scale-in/LoadTestRig-Target-Done.json': mark('LoadTestRig-Target-Done', now - 1, 'restored'),
          'runs/_scale-in/LoadTestRig-Target-Gone.json': mark('LoadTestRig-Target-Gone', now - 1),
          'runs/other/run.json': { alarmName: 'x' },
        },
        { 'LoadTestRig-Target-In': false, 'LoadTestRig-Target-Early': false, 'LoadTestRig-Target-Done': false },
      );
      const out = await restoreScaleIn({ env: { RESULTS_BUCKET: 'results' }, now: () => now, s3: a.s3, cloudwatch: a.cloudwatch });
      expect(a.calls).toEqual(['enable LoadTestRig-Target-In', 'put runs/_scale-in/LoadTestRig-Target-In.json restored']);
      expect(out.map((o) => `${o.alarmName} ${o.action}`).sort()).toEqual(['LoadTestRig-Target-Early wait', 'LoadTestRig-Target-Gone none', 'LoadTestRig-Target-In restore']);
    });

    test('no RESULTS_BUCKET (a stack deployed before this duty): nothing read', async () => {
      await expect(restoreScaleIn({ env: {}, s3: {}, cloudwatch: {} })).resolves.toEqual([]);
    });
  });

  describe('AZRebalance a killed run left suspended', () => {
    const pmark = (groupName: string, restoreBy: number, state = 'suspended') => ({ groupName, processes: ['AZRebalance'], runId: 'r1', suspendedAt: now - 3_600_000, restoreBy, state });
    function account(marks: Record<string, object>, suspended: Record<string, string[]>) {
      const { s3, calls } = markBucket(marks);
      const autoscaling = {
        describeAutoScalingGroups: async (input: { AutoScalingGroupNames: string[] }) => ({
          AutoScalingGroups: input.AutoScalingGroupNames.filter((n) => n in suspended).map((n) => ({ AutoScalingGroupName: n, SuspendedProcesses: suspended[n]!.map((ProcessName) => ({ ProcessName })) })),
        }),
        resumeProcesses: async (input: { AutoScalingGroupName: string; ScalingProcesses: string[] }) => void calls.push(`resume ${input.AutoScalingGroupName} ${input.ScalingProcesses.join()}`),
      };
      return { s3, autoscaling, calls };
    }

    test('past the deadline: resumed and the mark rewritten as restored; before it, or never suspended by a run, left alone', async () => {
      const a = account(
        {
          'runs/_scale-in/processes/gen.json': pmark('gen', now - 1),
          'runs/_scale-in/processes/tgt.json': pmark('tgt', now + 60_000),
          'runs/_scale-in/processes/old.json': pmark('old', now - 1, 'restored'),
          'runs/_scale-in/LoadTestRig-Target-In.json': { alarmName: 'LoadTestRig-Target-In', runId: 'r1', suspendedAt: 0, restoreBy: 0, state: 'suspended' },
        },
        { gen: ['AZRebalance', 'Launch'], tgt: ['AZRebalance'], old: ['AZRebalance'] },
      );
      const resume = net.resumeProcesses as unknown as (deps: object) => Promise<Array<{ groupName: string; action: string }>>;
      const out = await resume({ env: { RESULTS_BUCKET: 'results' }, now: () => now, s3: a.s3, autoscaling: a.autoscaling });
      expect(a.calls).toEqual(['resume gen AZRebalance', 'put runs/_scale-in/processes/gen.json restored']);
      expect(out.map((o) => `${o.groupName} ${o.action}`)).toEqual(['gen restore', 'tgt wait']);
    });
  });
});
