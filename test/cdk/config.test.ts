import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONTEXT_DEFAULTS, RigConfigError, parseRigConfig } from '../../lib/config';

const errorOf = (fn: () => unknown): RigConfigError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof RigConfigError) return e;
    throw e;
  }
  throw new Error('expected a RigConfigError');
};

describe('rig config', () => {
  test('defaults reproduce Twine: t3.small, 1 to 4 instances, 40% for 2 minutes, c5.large generators', () => {
    expect(parseRigConfig({})).toMatchObject({
      targetKind: 'ec2', targetInstanceType: 't3.small', minCapacity: 1, maxCapacity: 4,
      scaleOutCpuPercent: 40, scaleInCpuPercent: 20, breachDurationMinutes: 2,
      generatorInstanceType: 'c5.large', generatorMaxLifetimeMinutes: 180, redis: true,
      operatorCidr: undefined, targetImage: undefined,
    });
  });

  test('cdk.json carries a default for every context key, equal to the code defaults', () => {
    const cdkJson = JSON.parse(fs.readFileSync(path.join(__dirname, '../../cdk.json'), 'utf8')) as { context: Record<string, unknown>; output: string };
    for (const [key, value] of Object.entries(CONTEXT_DEFAULTS)) expect(cdkJson.context[key]).toEqual(value);
    expect(cdkJson.output).toBe('cdk.out');
  });

  test('string values from -c are parsed like JSON values', () => {
    expect(parseRigConfig({ minCapacity: '2', maxCapacity: '6', redis: 'false', targetKind: 'fargate' }))
      .toMatchObject({ minCapacity: 2, maxCapacity: 6, redis: false, targetKind: 'fargate' });
  });

  test('an unknown targetKind names the key and the allowed values', () => {
    expect(errorOf(() => parseRigConfig({ targetKind: 'ecs' })).message).toMatch(/"targetKind" is "ecs"; allowed: ec2 \| fargate \| none/);
  });

  test('a non-t2/t3 target instance type is rejected', () => {
    expect(errorOf(() => parseRigConfig({ targetInstanceType: 'c5.large' })).message).toMatch(/"targetInstanceType" is "c5.large"; allowed: t2\.\* or t3\.\*/);
  });

  test('maxCapacity below minCapacity is rejected', () => {
    expect(errorOf(() => parseRigConfig({ minCapacity: 3, maxCapacity: 2 })).message).toMatch(/"maxCapacity" \(2\) is below "minCapacity" \(3\)/);
  });

  test('non-integer and out-of-range numbers are rejected with their range', () => {
    const e = errorOf(() => parseRigConfig({ scaleOutCpuPercent: 150, breachDurationMinutes: '2.5', maxGenerators: 0 }));
    expect(e.problems).toHaveLength(3);
    expect(e.message).toMatch(/"scaleOutCpuPercent" is 150; allowed: an integer from 2 to 99/);
    expect(e.message).toMatch(/"breachDurationMinutes" is "2.5"; allowed: an integer from 1 to 60/);
    expect(e.message).toMatch(/"maxGenerators" is 0; allowed: an integer from 1 to 500/);
  });

  test('operatorCidr must be an IPv4 CIDR narrower than /0', () => {
    expect(parseRigConfig({ operatorCidr: '203.0.113.7/32' }).operatorCidr).toBe('203.0.113.7/32');
    expect(errorOf(() => parseRigConfig({ operatorCidr: '203.0.113.7' })).message).toMatch(/"operatorCidr".*IPv4 CIDR/);
    expect(errorOf(() => parseRigConfig({ operatorCidr: '0.0.0.0/0' })).message).toMatch(/"operatorCidr".*narrower than \/0/);
  });

  test('targetImage only applies to fargate', () => {
    expect(parseRigConfig({ targetKind: 'fargate', targetImage: 'public.ecr.aws/me/app:1' }).targetImage).toBe('public.ecr.aws/me/app:1');
    expect(errorOf(() => parseRigConfig({ targetImage: 'me/app:1' })).message).toMatch(/"targetImage".*only applies to targetKind=fargate/);
  });

  test('redis is auto by default: on when maxCapacity > 1, off for a single instance', () => {
    expect(parseRigConfig({ maxCapacity: 1 }).redis).toBe(false);
    expect(parseRigConfig({ maxCapacity: 2 }).redis).toBe(true);
    expect(parseRigConfig({ maxCapacity: 1, redis: true }).redis).toBe(true);
    expect(errorOf(() => parseRigConfig({ redis: 'yes' })).message).toMatch(/"redis" is "yes"; allowed: true \| false \| auto/);
  });

  test('flowLogTraffic: REJECT by default, ALL on request (any case), nothing else', () => {
    expect(parseRigConfig({}).flowLogTraffic).toBe('REJECT');
    expect(parseRigConfig({ flowLogTraffic: 'all' }).flowLogTraffic).toBe('ALL');
    expect(errorOf(() => parseRigConfig({ flowLogTraffic: 'ACCEPT' })).message).toMatch(/"flowLogTraffic" is "ACCEPT"; allowed: REJECT \| ALL \(what the VPC flow logs record/);
  });

  test('every problem is reported at once', () => {
    expect(errorOf(() => parseRigConfig({ targetKind: 'x', generatorInstanceType: 'big' })).problems).toHaveLength(2);
  });

  test('generatorRegions: none by default (one region, env-agnostic); region[:weight] lists, the target\'s region first', () => {
    expect(parseRigConfig({}).generatorRegions).toEqual([]);
    expect(parseRigConfig({ generatorRegions: 'eu-west-2:3, us-east-1' }).generatorRegions).toEqual([{ region: 'eu-west-2', weight: 3 }, { region: 'us-east-1', weight: 1 }]);
    expect(parseRigConfig({ generatorRegions: ['us-gov-west-1:2', 'ap-southeast-4:1'] }).generatorRegions).toEqual([{ region: 'us-gov-west-1', weight: 2 }, { region: 'ap-southeast-4', weight: 1 }]);
    for (const bad of ['eu-west-2:0', 'eu-west-2,eu-west-2', 'Europe', 'eu-west-2:1.5', 'us-east-1,us-east-2,us-west-1,us-west-2,eu-west-1,eu-west-2', 7]) {
      const e = errorOf(() => parseRigConfig({ generatorRegions: bad }));
      expect(e.problems).toHaveLength(1);
      expect(e.problems[0]).toMatch(/^context "generatorRegions" is .*: .*; allowed: "none", or region\[:weight\] entries/);
    }
  });
});
