/** The vCPU quota and zone checks before the fleet scales (Service Quotas, EC2, AWS/Usage through the narrow API). */
import { AutoScalingClient, DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeInstanceTypeOfferingsCommand, DescribeInstanceTypesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetServiceQuotaCommand, NoSuchResourceException, ServiceQuotasClient, ServiceQuotasServiceException } from '@aws-sdk/client-service-quotas';
import { mockClient } from 'aws-sdk-client-mock';
import { UsageError } from '../../scripts/errors';
import { createAwsApi } from '../../scripts/platforms/aws/clients';
import { EC2_STANDARD_VCPU, FARGATE_VCPU, checkCapacity, isStandardFamily, quotaConsoleUrl, quotaShortfall } from '../../scripts/platforms/aws/quotas';

const asg = mockClient(AutoScalingClient);
const ec2 = mockClient(EC2Client);
const sq = mockClient(ServiceQuotasClient);
const cw = mockClient(CloudWatchClient);

const api = createAwsApi({ region: 'eu-west-1' });
const ZONES = ['eu-west-1a', 'eu-west-1b'];

function request(over: Partial<Parameters<typeof checkCapacity>[1]> = {}) {
  const lines: string[] = [];
  return {
    lines,
    req: {
      region: 'eu-west-1',
      generatorAsgName: 'gen',
      generatorInstanceType: 'c5.large',
      generators: 2,
      ec2Target: { asgName: 'tgt', instanceType: 't3.small', maxCapacity: 4 },
      log: (l: string) => lines.push(l),
      now: () => Date.parse('2026-11-23T12:00:00Z'),
      ...over,
    },
  };
}

function quota(value: number) {
  sq.on(GetServiceQuotaCommand, { ServiceCode: 'ec2', QuotaCode: 'L-1216C47A' }).resolves({ Quota: { Value: value, QuotaCode: 'L-1216C47A' } });
}

beforeEach(() => {
  for (const m of [asg, ec2, sq, cw]) m.reset();
  asg.on(DescribeAutoScalingGroupsCommand).resolves({
    AutoScalingGroups: [
      { AutoScalingGroupName: 'gen', AvailabilityZones: ZONES, Instances: [] } as never,
      { AutoScalingGroupName: 'tgt', AvailabilityZones: ZONES, Instances: [{ InstanceId: 'i-t1', LifecycleState: 'InService' }] } as never,
    ],
  });
  ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({ InstanceTypeOfferings: ZONES.map((Location) => ({ InstanceType: 'c5.large', Location, LocationType: 'availability-zone' })) });
  ec2.on(DescribeInstanceTypesCommand).resolves({
    InstanceTypes: [
      { InstanceType: 'c5.large', VCpuInfo: { DefaultVCpus: 2 } },
      { InstanceType: 't3.small', VCpuInfo: { DefaultVCpus: 2 } },
    ],
  });
  cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [{ Id: 'usage', Values: [] }] });
});

test('the issue\'s example: 2 c5.large generators + up to 4 t3.small targets need 12 vCPUs; a quota of 12 passes, 8 refuses with the numbers and the console link', async () => {
  quota(12);
  const ok = request();
  await checkCapacity(api, ok.req);
  expect(ok.lines).toContain('vCPU quota L-1216C47A: 12 of 12 needed (other usage in the account not reported by AWS/Usage: not counted)');

  sq.reset();
  quota(8);
  const low = request();
  const err = await checkCapacity(api, low.req).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toBe(
    'the run needs 12 vCPUs of the quota "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances" (L-1216C47A) in eu-west-1 ' +
    '(2 × c5.large generators (2 vCPUs each) = 4 + up to 4 × t3.small targets (2 vCPUs each) = 8), and the account\'s quota is 8; ' +
    'lower --vusers or --generators, redeploy the target with a lower maximum (`npm run deploy -- -c maxCapacity=2` with the deploy\'s other -c options: ' +
    'the run counts the target at its maximum of 4, to which it may scale out during the run; a smaller target may become the run\'s bottleneck; ' +
    'if it was deployed with -c minCapacity above 2, add -c minCapacity=2 (a minimum above the maximum is refused)), ' +
    'or request an increase to at least 12 at https://eu-west-1.console.aws.amazon.com/servicequotas/home/services/ec2/quotas/L-1216C47A',
  );
});

// A fresh account's Running On-Demand Standard quota can be a few vCPUs (5 here). The documented first run
// (`--vusers 400 --ramp 10s`: one c5.large) needs 2 vCPUs of generators beside the one t3.small target already running,
// but the check counts the target at its maximum (4 × 2 vCPUs: scale-out during the run must not fail on the quota).
// One generator is the fewest a run has, so "lower --vusers or --generators" cannot fix it: the target's maximum can.
test('a 5-vCPU quota and the one-generator first run: refused with the target\'s maximum as the fix, not --vusers', async () => {
  quota(5);
  asg.on(DescribeAutoScalingGroupsCommand).resolves({
    AutoScalingGroups: [
      { AutoScalingGroupName: 'gen', AvailabilityZones: ZONES, Instances: [] } as never,
      { AutoScalingGroupName: 'tgt', AvailabilityZones: ZONES, MinSize: 1, Instances: [{ InstanceId: 'i-t1', LifecycleState: 'InService' }] } as never,
    ],
  });
  const first = request({ generators: 1 });
  const err = await checkCapacity(api, first.req).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  const message = (err as Error).message;
  expect(message).not.toMatch(/--vusers|--generators/);
  expect(message).toBe(
    'the run needs 10 vCPUs of the quota "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances" (L-1216C47A) in eu-west-1 ' +
    '(1 × c5.large generators (2 vCPUs each) = 2 + up to 4 × t3.small targets (2 vCPUs each) = 8), and the account\'s quota is 5; ' +
    'redeploy the target with a lower maximum (`npm run deploy -- -c maxCapacity=1` with the deploy\'s other -c options: the run counts the target at its maximum of 4, to which it may scale out during the run; ' +
    'a smaller target may become the run\'s bottleneck; at maxCapacity=1 redis=auto (the default) deploys no Redis), ' +
    'or request an increase to at least 10 at https://eu-west-1.console.aws.amazon.com/servicequotas/home/services/ec2/quotas/L-1216C47A',
  );
  // The fix it names passes: the same run against a target deployed with maxCapacity=1 needs 4 of 5.
  const fixed = request({ generators: 1, ec2Target: { asgName: 'tgt', instanceType: 't3.small', maxCapacity: 1 } });
  await checkCapacity(api, fixed.req);
  expect(fixed.lines).toContain('vCPU quota L-1216C47A: 4 of 5 needed (other usage in the account not reported by AWS/Usage: not counted)');
});

test('a maximum below the target group\'s minimum is named with the minimum; a quota the generators alone exceed names no maximum', () => {
  const needs = (gens: number, max: number, min?: number) => [
    { what: 'g', vcpus: gens * 2, lowered: { by: 'generators' as const, count: gens } },
    { what: 't', vcpus: max * 2, lowered: { by: 'maxCapacity' as const, count: max, each: 2, ...(min !== undefined ? { minCapacity: min } : {}) } },
  ];
  expect(quotaShortfall({ quota: EC2_STANDARD_VCPU, limit: 8, needs: needs(2, 4, 3) }, 'eu-west-1')).toContain('`npm run deploy -- -c maxCapacity=2 -c minCapacity=2`');
  const over = quotaShortfall({ quota: EC2_STANDARD_VCPU, limit: 4, needs: needs(3, 4) }, 'eu-west-1') ?? '';
  expect(over).not.toContain('maxCapacity');
  expect(over).toContain('; lower --vusers or --generators, or request an increase to at least 14 at ');
});

test('other instances in the account (AWS/Usage minus the rig\'s own running ones) count against the quota', async () => {
  quota(16);
  // 2 vCPUs of the running target instance plus 6 of something else.
  cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [{ Id: 'usage', Values: [8] }] });
  const r = request();
  const err = await checkCapacity(api, r.req).catch((e: unknown) => e);
  expect((err as Error).message).toMatch(/needs 18 vCPUs .* = 8 \+ 6 already running elsewhere in the account\), and the account's quota is 16/);
  const query = cw.commandCalls(GetMetricDataCommand)[0]?.args[0].input.MetricDataQueries?.[0]?.MetricStat?.Metric;
  expect(query).toEqual({
    Namespace: 'AWS/Usage',
    MetricName: 'ResourceCount',
    Dimensions: [{ Name: 'Service', Value: 'EC2' }, { Name: 'Type', Value: 'Resource' }, { Name: 'Resource', Value: 'vCPU' }, { Name: 'Class', Value: 'Standard/OnDemand' }],
  });
});

test('a quota that cannot be read (not in the region, access denied) is reported as not checked and does not block', async () => {
  sq.on(GetServiceQuotaCommand).rejects(new NoSuchResourceException({ message: 'no such quota', $metadata: {} }));
  const a = request();
  await checkCapacity(api, a.req);
  expect(a.lines).toContain('quota L-1216C47A (Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances): not checked (Service Quotas does not report it in this region)');

  sq.reset();
  sq.on(GetServiceQuotaCommand).rejects(new ServiceQuotasServiceException({ name: 'AccessDeniedException', $fault: 'client', message: 'not authorized', $metadata: { httpStatusCode: 400 } }));
  const b = request();
  await checkCapacity(api, b.req);
  expect(b.lines.join('\n')).toMatch(/L-1216C47A .*not checked \(access denied \(AccessDeniedException\); iam\/operator-policy\.json grants it\)/);

  sq.reset();
  sq.on(GetServiceQuotaCommand).rejects(Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' }));
  const c = request();
  await checkCapacity(api, c.req);
  expect(c.lines.join('\n')).toMatch(/L-1216C47A .*not checked \(Error: connect ECONNREFUSED 10\.0\.0\.1:443\)/);
});

test('the Fargate target is compared with Fargate\'s vCPU quota', async () => {
  quota(100);
  sq.on(GetServiceQuotaCommand, { ServiceCode: 'fargate', QuotaCode: 'L-3032A538' }).resolves({ Quota: { Value: 6 } });
  const r = request({ ec2Target: undefined, fargateTarget: { taskVcpu: 1, maxTasks: 8 } });
  const err = await checkCapacity(api, r.req).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toMatch(/needs 8 vCPUs of the quota "Fargate On-Demand vCPU resource count" \(L-3032A538\) .*quota is 6; .*services\/fargate\/quotas\/L-3032A538$/);
  // The generators do not use the Fargate quota: the fix is the target's maximum (6 one-vCPU tasks fit), not --vusers.
  expect((err as Error).message).not.toMatch(/--vusers|--generators/);
  expect((err as Error).message).toContain('; redeploy the target with a lower maximum (`npm run deploy -- -c maxCapacity=6` ');
  // The service's minimum is not read (no group to ask): the fix says what a deployed minimum above 6 needs.
  expect((err as Error).message).toContain('; if it was deployed with -c minCapacity above 6, add -c minCapacity=6 (a minimum above the maximum is refused))');
});

test('a generator type offered in none of the group\'s zones is refused; in some of them, noted', async () => {
  quota(100);
  ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({ InstanceTypeOfferings: [] });
  const none = request();
  await expect(checkCapacity(api, none.req)).rejects.toThrow(/the generator instance type c5\.large is not offered in any of the generator subnets' zones \(eu-west-1a, eu-west-1b\) in eu-west-1; redeploy with another type/);
  const offeringsInput = ec2.commandCalls(DescribeInstanceTypeOfferingsCommand)[0]?.args[0].input;
  expect(offeringsInput).toEqual({ LocationType: 'availability-zone', Filters: [{ Name: 'instance-type', Values: ['c5.large'] }, { Name: 'location', Values: ZONES }] });

  ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({ InstanceTypeOfferings: [{ InstanceType: 'c5.large', Location: 'eu-west-1b' }] });
  const some = request();
  await checkCapacity(api, some.req);
  expect(some.lines).toContain('zones: c5.large is not offered in eu-west-1a; generators launch in eu-west-1b');
});

test('standard families and the pure comparison', () => {
  expect(['c5.large', 't3.small', 'm6i.xlarge', 'r5.large', 'z1d.large', 'i4i.large'].every(isStandardFamily)).toBe(true);
  expect(['inf1.xlarge', 'g5.xlarge', 'p4d.24xlarge', 'trn1.2xlarge', 'dl1.24xlarge', 'x2idn.large', 'u-6tb1.metal', 'hpc6a.48xlarge'].some(isStandardFamily)).toBe(false);
  expect(quotaShortfall({ quota: EC2_STANDARD_VCPU, limit: 4, needs: [{ what: 'a', vcpus: 4 }] }, 'us-east-1')).toBeUndefined();
  expect(quotaShortfall({ quota: EC2_STANDARD_VCPU, limit: 4, needs: [{ what: 'a', vcpus: 4 }], otherUsage: 1 }, 'us-east-1')).toMatch(/needs 5 vCPUs/);
  expect(quotaConsoleUrl('ap-south-1', FARGATE_VCPU)).toBe('https://ap-south-1.console.aws.amazon.com/servicequotas/home/services/fargate/quotas/L-3032A538');
});
