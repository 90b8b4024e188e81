/** What the AWS platform checks before scaling: the deployed target counts only when the run loads it. */
import { AutoScalingClient, DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeInstanceTypeOfferingsCommand, DescribeInstanceTypesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetServiceQuotaCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { mockClient } from 'aws-sdk-client-mock';
import { planLoad } from '../../scripts/core/plan';
import { awsGenerator } from '../../scripts/core/capacity-model';
import { checkBeforeScaling } from '../../scripts/platforms/aws/before-scaling';
import { createAwsApi } from '../../scripts/platforms/aws/clients';
import type { RigOutputs } from '../../scripts/platforms/aws/discovery';

const asg = mockClient(AutoScalingClient);
const ec2 = mockClient(EC2Client);
const sq = mockClient(ServiceQuotasClient);
const cw = mockClient(CloudWatchClient);

const OUTPUTS: RigOutputs = {
  source: 'test', generatorAsgName: 'gen', generatorAgentHome: '/opt', resultsBucketName: 'b', stackNames: [],
  targetAsgName: 'tgt', targetInstanceType: 't3.small', targetMaxCapacity: 4,
};

beforeEach(() => {
  for (const m of [asg, ec2, sq, cw]) m.reset();
  asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [] });
  ec2.on(DescribeInstanceTypesCommand).resolves({ InstanceTypes: [{ InstanceType: 'c5.large', VCpuInfo: { DefaultVCpus: 2 } }, { InstanceType: 't3.small', VCpuInfo: { DefaultVCpus: 2 } }] });
  ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({ InstanceTypeOfferings: [] });
  sq.on(GetServiceQuotaCommand).resolves({ Quota: { Value: 100 } });
  cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });
});

async function linesFor(externalTarget: boolean): Promise<string[]> {
  const limits = awsGenerator('c5.large', 0).limits;
  const plan = planLoad({ phases: [{ duration: 600, arrivalCount: 6000 }], generators: 2, limits, sessionSeconds: 600 });
  const lines: string[] = [];
  await checkBeforeScaling({ api: createAwsApi({ region: 'us-east-1' }), outputs: OUTPUTS, plan, generatorInstanceType: 'c5.large', processesPerGenerator: 2, externalTarget, log: (l) => lines.push(l), now: () => 0 });
  return lines;
}

test('the deployed target: counted at its maximum in the quota and the estimate, with the load balancer\'s units', async () => {
  const lines = await linesFor(false);
  expect(lines).toContain('vCPU quota L-1216C47A: 12 of 100 needed (other usage in the account not reported by AWS/Usage: not counted)');
  expect(lines.some((l) => l.startsWith('  target instances (at most): $'))).toBe(true);
  expect(lines.some((l) => l.startsWith('  load balancer capacity units: $'))).toBe(true);
});

test('--target elsewhere: the rig\'s target neither scales nor carries load, so only the generators count', async () => {
  const lines = await linesFor(true);
  expect(lines).toContain('vCPU quota L-1216C47A: 4 of 100 needed (other usage in the account not reported by AWS/Usage: not counted)');
  expect(lines.some((l) => /target instances|load balancer/.test(l))).toBe(false);
});

test('one region of a run over several: its quotas are checked, its cost is left to the run\'s total (no per-region estimate, no per-region --max-cost)', async () => {
  const limits = awsGenerator('c5.large', 0).limits;
  const plan = planLoad({ phases: [{ duration: 600, arrivalCount: 6000 }], generators: 2, limits, sessionSeconds: 600 });
  const lines: string[] = [];
  const outputs: RigOutputs = { ...OUTPUTS, costedWithOtherRegions: true };
  await checkBeforeScaling({ api: createAwsApi({ region: 'us-east-1' }), outputs, plan, generatorInstanceType: 'c5.large', processesPerGenerator: 2, externalTarget: true, maxCost: 0.01, log: (l) => lines.push(l), now: () => 0 });
  expect(lines.some((l) => l.startsWith('vCPU quota L-1216C47A'))).toBe(true);
  expect(lines.some((l) => /estimated cost|--max-cost/.test(l))).toBe(false);
});
