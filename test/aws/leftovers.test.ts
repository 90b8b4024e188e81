/**
 * `npm run leftovers`: what is left of the rig after a teardown — what still carries the rig's tag (Resource Groups
 * Tagging API), the tagged auto-scaling groups that API does not return, and rig stacks CloudFormation still has —
 * in every region cdk-outputs.json records plus each --region.
 */
import { CreateBucketCommand, DeleteBucketCommand, PutBucketTaggingCommand, S3Client } from '@aws-sdk/client-s3';
import { GetResourcesCommand, ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import { AutoScalingClient, DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { CloudFormationClient, CloudFormationServiceException, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { UsageError } from '../../scripts/errors';
import { createAwsApi } from '../../scripts/platforms/aws/clients';
import { findLeftovers, kindOf, leftoverLines, regionOf, regionsOf, scanRegion } from '../../scripts/leftovers';
import { runCli } from '../helpers/cli';
import { Moto, clientConfig, startMoto } from './moto';

describe('leftovers (unit)', () => {
  const tagging = mockClient(ResourceGroupsTaggingAPIClient);
  beforeEach(() => tagging.reset());
  afterAll(() => tagging.restore());

  test('reads every page filtered by the rig tag, sorted by kind', async () => {
    tagging.on(GetResourcesCommand)
      .resolvesOnce({ ResourceTagMappingList: [{ ResourceARN: 'arn:aws:logs:eu-west-1:123456789012:log-group:/aws/lambda/LoadTestRig-x' }], PaginationToken: 'p2' })
      .resolvesOnce({ ResourceTagMappingList: [{ ResourceARN: 'arn:aws:ec2:eu-west-1:123456789012:instance/i-0abc' }], PaginationToken: '' });
    const found = await findLeftovers(createAwsApi({ region: 'eu-west-1' }));
    expect(found).toEqual([
      { arn: 'arn:aws:ec2:eu-west-1:123456789012:instance/i-0abc', kind: 'ec2 instance' },
      { arn: 'arn:aws:logs:eu-west-1:123456789012:log-group:/aws/lambda/LoadTestRig-x', kind: 'logs log-group' },
    ]);
    expect(tagging.commandCalls(GetResourcesCommand).map((c) => c.args[0].input)).toEqual([
      { TagFilters: [{ Key: 'loadtest-rig', Values: ['true'] }] },
      { TagFilters: [{ Key: 'loadtest-rig', Values: ['true'] }], PaginationToken: 'p2' },
    ]);
  });

  test('kinds, lines and the region', () => {
    expect(kindOf('arn:aws:s3:::loadtestrig-generators-results')).toBe('s3 bucket');
    expect(kindOf('arn:aws:elasticloadbalancing:eu-west-1:1:loadbalancer/app/x/y')).toBe('elasticloadbalancing loadbalancer');
    expect(leftoverLines('eu-west-1', [])).toEqual(['leftovers: nothing of the rig in eu-west-1 (nothing tagged loadtest-rig=true, no LoadTestRig-* stack)']);
    expect(regionOf('ap-south-1', undefined, {})).toBe('ap-south-1');
    expect(regionOf(undefined, JSON.stringify({ 'LoadTestRig-Generators': { Region: 'eu-north-1' } }), { AWS_REGION: 'us-east-1' })).toBe('eu-north-1');
    expect(regionOf(undefined, undefined, { AWS_DEFAULT_REGION: 'us-west-2' })).toBe('us-west-2');
    expect(() => regionOf(undefined, 'not json', {})).toThrow(UsageError);
    // A typo in --region is said as such (it used to read as an unreachable endpoint, "check AWS_REGION").
    expect(() => regionOf('moon-1', undefined, {})).toThrow(/^--region "moon-1" is not an AWS region name; pass the region you deployed to, e.g. --region eu-west-1$/);
    expect(regionOf('us-gov-west-1', undefined, {})).toBe('us-gov-west-1');
  });
});

describe('leftovers: the blind spots of the tagging API, and every region', () => {
  const tagging = mockClient(ResourceGroupsTaggingAPIClient);
  const asg = mockClient(AutoScalingClient);
  const cfn = mockClient(CloudFormationClient);
  beforeEach(() => {
    tagging.reset();
    asg.reset();
    cfn.reset();
  });
  afterAll(() => {
    tagging.restore();
    asg.restore();
    cfn.restore();
  });

  test('a tagged auto-scaling group and a DELETE_FAILED stack the tagging API does not list are found and named', async () => {
    tagging.on(GetResourcesCommand).resolves({ ResourceTagMappingList: [] });
    const groupArn = 'arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:0b1c:autoScalingGroupName/LoadTestRig-Generators-us-east-1-Fleet';
    asg.on(DescribeAutoScalingGroupsCommand).resolvesOnce({ AutoScalingGroups: [], NextToken: 'n2' }).resolvesOnce({ AutoScalingGroups: [{ AutoScalingGroupARN: groupArn } as never] });
    const missing = new CloudFormationServiceException({ name: 'ValidationError', $fault: 'client', $metadata: {}, message: 'Stack with id x does not exist' });
    const stackId = 'arn:aws:cloudformation:us-east-1:123456789012:stack/LoadTestRig-Generators-us-east-1/abc';
    cfn.on(DescribeStacksCommand).rejects(missing)
      .on(DescribeStacksCommand, { StackName: 'LoadTestRig-Generators-us-east-1' }).resolves({ Stacks: [{ StackName: 'LoadTestRig-Generators-us-east-1', StackId: stackId, StackStatus: 'DELETE_FAILED', CreationTime: new Date(0) }] });
    const found = await scanRegion(createAwsApi({ region: 'us-east-1' }));
    expect(found).toEqual([
      { arn: groupArn, kind: 'autoscaling autoScalingGroup', region: 'us-east-1' },
      { arn: stackId, kind: 'cloudformation stack', status: 'DELETE_FAILED', region: 'us-east-1' },
    ]);
    // Filtered by the rig's tag, every page; every name a rig stack can have in the region, asked by name (the policy's resource).
    expect(asg.commandCalls(DescribeAutoScalingGroupsCommand).map((c) => c.args[0].input)).toEqual([
      { Filters: [{ Name: 'tag:loadtest-rig', Values: ['true'] }] },
      { Filters: [{ Name: 'tag:loadtest-rig', Values: ['true'] }], NextToken: 'n2' },
    ]);
    expect(cfn.commandCalls(DescribeStacksCommand).map((c) => c.args[0].input.StackName).sort()).toEqual(['LoadTestRig-Generators', 'LoadTestRig-Generators-us-east-1', 'LoadTestRig-Network', 'LoadTestRig-Target']);
    const lines = leftoverLines('us-east-1', found);
    expect(lines[0]).toBe('leftovers: 2 resources of the rig still in us-east-1:');
    expect(lines).toContain(`  cloudformation stack: ${stackId} (DELETE_FAILED)`);
    expect(lines.some((l) => l.startsWith('a DELETE_FAILED stack: '))).toBe(true);
  });

  test('regions: every one cdk-outputs.json records, plus each --region; AWS_REGION only when neither names one', () => {
    const outputs = JSON.stringify({ 'LoadTestRig-Generators': { Region: 'eu-west-2', RemoteGeneratorRegions: 'us-east-1' }, 'LoadTestRig-Generators-us-east-1': { Region: 'us-east-1' } });
    expect(regionsOf([], outputs, { AWS_REGION: 'ap-south-1' })).toEqual(['eu-west-2', 'us-east-1']);
    expect(regionsOf(['ap-south-1', 'us-east-1'], outputs, {})).toEqual(['eu-west-2', 'us-east-1', 'ap-south-1']);
    expect(regionsOf(['ap-south-1'], undefined, { AWS_REGION: 'eu-west-1' })).toEqual(['ap-south-1']);
    expect(regionsOf([], undefined, { AWS_REGION: 'eu-west-1' })).toEqual(['eu-west-1']);
    expect(() => regionsOf([], undefined, {})).toThrow(/^no AWS region: pass --region/);
    expect(() => regionsOf(['moon-1'], outputs, {})).toThrow(/^--region "moon-1" is not an AWS region name/);
  });
});

describe('leftovers on emulated AWS (the real script)', () => {
  let moto: Moto;
  beforeAll(async () => {
    moto = await startMoto();
  }, 60_000);
  afterAll(async () => moto?.stop());

  test('a tagged bucket left behind: exit 1 naming it; once deleted: exit 0', async () => {
    const s3 = new S3Client(clientConfig(moto));
    const bucket = 'loadtestrig-generators-leftover';
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutBucketTaggingCommand({ Bucket: bucket, Tagging: { TagSet: [{ Key: 'loadtest-rig', Value: 'true' }] } }));
    await s3.send(new CreateBucketCommand({ Bucket: 'someone-elses-bucket' }));
    const env = { ...moto.env, AWS_PROFILE: '' };
    const left = await runCli(['--region', 'us-east-1', '--json'], { script: 'leftovers.ts', env, timeoutMs: 60_000 });
    expect({ code: left.code, stderr: left.stderr }).toEqual({ code: 1, stderr: expect.stringContaining(`leftovers: 1 resource of the rig still in us-east-1:\n  s3 bucket: arn:aws:s3:::${bucket}\n`) });
    expect(JSON.parse(left.stdout).leftovers).toEqual([{ arn: `arn:aws:s3:::${bucket}`, kind: 's3 bucket', region: 'us-east-1' }]);

    await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
    const clean = await runCli(['--region', 'us-east-1'], { script: 'leftovers.ts', env, timeoutMs: 60_000 });
    expect({ code: clean.code, stderr: clean.stderr }).toEqual({ code: 0, stderr: expect.stringContaining('leftovers: nothing of the rig in us-east-1 (nothing tagged loadtest-rig=true, no LoadTestRig-* stack)\n') });
  });

  test('no credentials: one line, exit 2, without the loadtest-only --platform local hint (and no second line from the scale-in check)', async () => {
    const env = { ...moto.env, AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_SESSION_TOKEN: '', AWS_PROFILE: 'rig-no-such-profile', AWS_CONFIG_FILE: '/nonexistent', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent', AWS_EC2_METADATA_DISABLED: 'true' };
    const res = await runCli(['--region', 'eu-west-1'], { script: 'leftovers.ts', env, timeoutMs: 60_000 });
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: no AWS credentials found while listing the rig's tagged resources \(tag:GetResources\); configure them \(aws configure, AWS_PROFILE or AWS_ACCESS_KEY_ID\/AWS_SECRET_ACCESS_KEY\)$/)]);
  });

  test('no region anywhere: exit 2 with the fix', async () => {
    const res = await runCli([], { script: 'leftovers.ts', env: { ...moto.env, AWS_REGION: '', AWS_DEFAULT_REGION: '' }, timeoutMs: 60_000 });
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 2, stderr: 'error: no AWS region: pass --region (the region you deployed to) or set AWS_REGION\n' });
  });
});
