/**
 * Subnet address capacity. Moto models no subnet address counts, so these follow AWS's documentation: a subnet of
 * prefix /n has 2^(32-n) addresses of which AWS reserves 5 (Amazon VPC User Guide, "Subnet CIDR blocks"); each
 * generator takes 1 + generatorSecondaryIps of them at launch; a load balancer needs 8 free per subnet (ELB User
 * Guide, "Subnets for your Application Load Balancer").
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { composeApp } from '../../bin/rig';
import { RigConfigError, parseRigConfig } from '../../lib/config';
import { INSTANCE_TYPES } from '../../lib/instance-types';
import { GENERATOR_SUBNET_MASK, RIG_AZS, usableAddresses } from '../../lib/subnet-capacity';
import { buildTestRig } from './helpers';

function problems(context: Record<string, unknown>): readonly string[] {
  try {
    parseRigConfig(context);
    return [];
  } catch (e) {
    if (e instanceof RigConfigError) return e.problems;
    throw e;
  }
}

describe('a full generator fleet must fit its subnets (VPC User Guide "Subnet CIDR blocks": 5 addresses reserved per subnet)', () => {
  test('a /20 offers 4,091 addresses', () => {
    expect(usableAddresses(GENERATOR_SUBNET_MASK)).toBe(4091);
  });

  test('c5.4xlarge (30 addresses per interface, not in the rig\'s table) × 29 secondary IPs × 500 generators is refused in one line naming both keys and the largest values that fit', () => {
    const p = problems({ generatorInstanceType: 'c5.4xlarge', maxGenerators: 500, generatorSecondaryIps: 29 });
    expect(p).toHaveLength(1);
    // Room 2 × 4,091 − the default target's 25 (4 instances × 2, one ALB's 8 in each of 2 zones, Redis 1) = 8,157: 271
    // generators of 30 by the sum, 270 surely (each generator's 30 from one zone, the 25 split in any way).
    expect(p[0]).toBe('context "maxGenerators" (500) with "generatorSecondaryIps" (29): 30 addresses per generator, all from the one zone\'s subnet it launches in; the 2 zones\' /20 subnets (4091 usable addresses each: AWS reserves 5 of 4096) hold 270 such generators beside 25 addresses for the target, its load balancers and Redis: set maxGenerators at most 270, or generatorSecondaryIps at most 15');
  });

  test('the suggested limits are the largest that surely fit, over both zones (balanced-best-effort launches in the other zone when one subnet is full) with each generator in one: 270 generators fit, 271 do not; 15 secondary IPs fit, 16 do not', () => {
    expect(problems({ generatorInstanceType: 'c5.4xlarge', maxGenerators: 270, generatorSecondaryIps: 29 })).toEqual([]);
    expect(problems({ generatorInstanceType: 'c5.4xlarge', maxGenerators: 271, generatorSecondaryIps: 29 })).toHaveLength(1);
    expect(problems({ generatorInstanceType: 'c5.4xlarge', maxGenerators: 500, generatorSecondaryIps: 15 })).toEqual([]);
    expect(problems({ generatorInstanceType: 'c5.4xlarge', maxGenerators: 500, generatorSecondaryIps: 16 })).toHaveLength(1);
  });

  test('the target\'s tenants count: the same fleet fits with targetKind=none and not beside a 100-instance target with an operator ALB', () => {
    const fleet = { generatorInstanceType: 'c5.4xlarge', maxGenerators: 270, generatorSecondaryIps: 29 };
    expect(problems({ ...fleet, targetKind: 'none' })).toEqual([]);
    // 100 instances × 2 + two load balancers × 8 × 2 zones + Redis 1 = 233.
    expect(problems({ ...fleet, maxCapacity: 100, operatorCidr: '203.0.113.7/32' })[0]).toMatch(/beside 233 addresses for the target, its load balancers and Redis/);
  });

  test('a generator\'s addresses all come from one zone: 163 × 50 addresses (8,150 ≤ 8,182 in all) do not fit two subnets of 81 each', () => {
    expect(problems({ generatorInstanceType: 'c5.24xlarge', maxGenerators: 163, generatorSecondaryIps: 49, targetKind: 'none' })).toHaveLength(1);
    expect(problems({ generatorInstanceType: 'c5.24xlarge', maxGenerators: 162, generatorSecondaryIps: 49, targetKind: 'none' })).toEqual([]);
  });

  test('every value the rig accepts for a type it knows fits: 500 generators × the type\'s most secondary IPs beside a 100-instance target, operator ALB and Redis', () => {
    for (const type of Object.keys(INSTANCE_TYPES)) {
      const most = (INSTANCE_TYPES[type]?.ipv4PerInterface ?? 0) - 1;
      expect({ type, problems: problems({ generatorInstanceType: type, maxGenerators: 500, generatorSecondaryIps: most, maxCapacity: 100, operatorCidr: '203.0.113.7/32', redis: 'true' }) }).toEqual({ type, problems: [] });
    }
  });

  test('the synth refuses it like any bad context value: one line, exit 2, no stack built', () => {
    const lines: string[] = [];
    let code: number | undefined;
    let built = false;
    try {
      composeApp(new App({ context: { generatorInstanceType: 'c5.4xlarge', maxGenerators: 500, generatorSecondaryIps: 29 } }), {
        error: (l) => void lines.push(l),
        exit: (c): never => { code = c; throw new Error('exit'); },
      }, () => { built = true; });
    } catch (e) {
      if ((e as Error).message !== 'exit') throw e;
    }
    expect({ code, built, lines: lines.length }).toEqual({ code: 2, built: false, lines: 1 });
    expect(lines[0]).toMatch(/^error: context "maxGenerators" \(500\) with "generatorSecondaryIps" \(29\): .* set maxGenerators at most 270/);
  });

  test('the synthesized subnets are the size the check assumes: the home VPC\'s public subnets and a regional VPC\'s generator subnets are /20, one per zone', () => {
    const { rig } = buildTestRig({ generatorRegions: 'eu-west-2,us-east-1' });
    const masks = (t: Template, publicIp: boolean): string[] => Object.values(t.findResources('AWS::EC2::Subnet'))
      .filter((s) => Boolean((s as { Properties: { MapPublicIpOnLaunch?: boolean } }).Properties.MapPublicIpOnLaunch) === publicIp)
      .map((s) => String((s as { Properties: { CidrBlock: string } }).Properties.CidrBlock).split('/')[1] as string);
    const home = Template.fromStack(rig.network);
    expect(masks(home, true)).toEqual(Array(RIG_AZS).fill(String(GENERATOR_SUBNET_MASK)));
    expect(masks(home, false)).toEqual([]);
    const regional = Template.fromStack(rig.regional[0]!);
    expect(masks(regional, false)).toEqual(Array(RIG_AZS).fill(String(GENERATOR_SUBNET_MASK)));
  });
});
