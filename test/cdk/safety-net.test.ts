// Unit tests of the generator safety-net Lambda's logic (the CDK wiring is in generator-fleet.test.ts).
import * as net from '../../lib/safety-net/index.js';

describe('lib/safety-net', () => {
  beforeEach(() => { jest.spyOn(console, 'log').mockImplementation(() => undefined); });
  afterEach(() => { jest.restoreAllMocks(); });
  const now = Date.parse('2025-01-01T12:00:00Z');
  const ago = (min: number): Date => new Date(now - min * 60_000);

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
});
