/**
 * After a run over two regions: every region's generator group is scaled to 0, and `--teardown` deletes the home
 * stacks (through the home region's clients) and the other region's generator stack (through that region's).
 */
import { AutoScalingClient, DescribeAutoScalingGroupsCommand, SetDesiredCapacityCommand } from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeInstanceTypeOfferingsCommand, DescribeInstanceTypesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetObjectCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { GetServiceQuotaCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { planRegions } from '../../scripts/core/regions';
import { CloudFormationClient, CloudFormationServiceException, DeleteStackCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { validateFlags } from '../../scripts/options';
import { awsPlatform } from '../../scripts/platforms/aws/aws';
import { createAwsApi } from '../../scripts/platforms/aws/clients';
import { parseOutputsFile } from '../../scripts/platforms/aws/discovery';
import { multiRegionPlatform, remoteOutputs } from '../../scripts/platforms/aws/multi-region';

const asg = mockClient(AutoScalingClient);
const cfn = mockClient(CloudFormationClient);
const sts = mockClient(STSClient);
const s3 = mockClient(S3Client);
const ec2 = mockClient(EC2Client);
const sq = mockClient(ServiceQuotasClient);
const cw = mockClient(CloudWatchClient);

const OUTPUTS = parseOutputsFile(JSON.stringify({
  'LoadTestRig-Generators-us-east-1': { GeneratorAsgName: 'us-asg', GeneratorAgentHome: '/opt/a', ResultsBucketName: 'us-bkt', Region: 'us-east-1', RegionWeight: '1' },
  'LoadTestRig-Network': {},
  'LoadTestRig-Target': { TargetUrl: 'http://internal', PublicTargetUrl: 'http://public' },
  'LoadTestRig-Generators': { GeneratorAsgName: 'home-asg', GeneratorAgentHome: '/opt/a', ResultsBucketName: 'home-bkt', Region: 'eu-west-2', RegionWeight: '3', RemoteGeneratorRegions: 'us-east-1' },
}), 'cdk-outputs.json')!;

test('--teardown over two regions: both groups to 0, the home stacks deleted in eu-west-2 and LoadTestRig-Generators-us-east-1 in us-east-1', async () => {
  asg.on(SetDesiredCapacityCommand).resolves({});
  cfn.on(DeleteStackCommand).resolves({});
  cfn.on(DescribeStacksCommand).rejects(new CloudFormationServiceException({ name: 'ValidationError', $fault: 'client', $metadata: {}, message: 'Stack with id x does not exist' }));
  const lines: string[] = [];
  const clock = { now: () => 0, sleep: async () => undefined };
  // What opening each region checks before anything scales (credentials, bucket, group, quotas).
  sts.on(GetCallerIdentityCommand).resolves({ Account: '123456789012' });
  s3.on(HeadBucketCommand).resolves({});
  s3.on(GetObjectCommand).rejects(Object.assign(new Error('The specified key does not exist.'), { name: 'NoSuchKey' }));
  asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [{ AutoScalingGroupName: 'gen', DesiredCapacity: 0, Instances: [] } as never] });
  ec2.on(DescribeInstanceTypesCommand).resolves({ InstanceTypes: [{ InstanceType: 'c5.large', VCpuInfo: { DefaultVCpus: 2 } }] });
  ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({ InstanceTypeOfferings: [] });
  sq.on(GetServiceQuotaCommand).resolves({ Quota: { Value: 1000 } });
  cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });
  const options = validateFlags({ teardown: true, target: 'http://127.0.0.1:9' });
  const common = { root: '/repo', options, log: (l: string) => lines.push(l), clock, removeOutputsFile: () => undefined };
  const home = awsPlatform({ ...common, outputs: OUTPUTS, api: createAwsApi({ region: 'eu-west-2' }) });
  const region = OUTPUTS.regions![0]!;
  const remote = awsPlatform({ ...common, outputs: remoteOutputs(OUTPUTS, region), api: createAwsApi({ region: 'us-east-1' }) });
  const p = multiRegionPlatform([
    { region: 'eu-west-2', weight: 3, platform: home, cost: { outputs: OUTPUTS, externalTarget: true } },
    { region: 'us-east-1', weight: 1, platform: remote, natAddresses: 2, cost: { outputs: remoteOutputs(OUTPUTS, region), externalTarget: true } },
  ], 'http://127.0.0.1:9');
  const regional = planRegions({ phases: [{ duration: 10, arrivalCount: 4 }], sessionSeconds: 1, generators: 2, regions: p.regions });
  p.useRegions(regional);
  const run = await p.open({ runId: 'r1', runDir: fs.mkdtempSync(path.join(os.tmpdir(), 'rig-teardown-')), plan: regional.plan });
  // Both regions' fleets are touched (their launches fail here: no slices in the mocked buckets).
  await run.fleet.launch(['g01', 'g02']).catch(() => undefined);
  await run.close();

  const regionOf = async (c: { thisValue: unknown }) => (c.thisValue as { config: { region: () => Promise<string> } }).config.region();
  const scaled = await Promise.all(asg.commandCalls(SetDesiredCapacityCommand).map(async (c) => [await regionOf(c), c.args[0].input.AutoScalingGroupName, c.args[0].input.DesiredCapacity]));
  expect(scaled.sort()).toEqual([['eu-west-2', 'home-asg', 0], ['us-east-1', 'us-asg', 0]]);
  const deleted = await Promise.all(cfn.commandCalls(DeleteStackCommand).map(async (c) => [await regionOf(c), c.args[0].input.StackName]));
  expect(deleted.filter(([r]) => r === 'eu-west-2').map(([, n]) => n)).toEqual(['LoadTestRig-Generators', 'LoadTestRig-Target', 'LoadTestRig-Network']);
  expect(deleted.filter(([r]) => r === 'us-east-1').map(([, n]) => n)).toEqual(['LoadTestRig-Generators-us-east-1']);
  expect(lines.filter((l) => l === 'teardown: done; nothing of the rig is left billing')).toHaveLength(2);
});
