import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { GeneratorFleet } from '../../lib/generator-fleet';
import { buildTestRig, launchTemplateUserData } from './helpers';

interface PolicyStatementJson { Action: string | string[]; Resource: unknown; Condition?: unknown }

/** Every statement of the generator role's inline policies. */
function fleetStatements(t: Template): PolicyStatementJson[] {
  const policies = Object.values(t.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: Match.stringLikeRegexp('^FleetRole') }] } }));
  return policies.flatMap((p) => p.Properties.PolicyDocument.Statement as PolicyStatementJson[]);
}

describe('generator fleet', () => {
  let t: Template;
  let userData: string;
  beforeAll(() => {
    t = Template.fromStack(buildTestRig({}).rig.generators);
    userData = launchTemplateUserData(t);
  });

  test('generators are c5.large on Amazon Linux 2023 with IMDSv2 required', () => {
    t.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({
        InstanceType: 'c5.large',
        ImageId: Match.objectLike({ Ref: Match.stringLikeRegexp('al2023') }),
        MetadataOptions: Match.objectLike({ HttpTokens: 'required' }),
      }),
    });
  });

  test('the group sits at zero (no DesiredCapacity) up to maxGenerators, in public subnets', () => {
    t.hasResourceProperties('AWS::AutoScaling::AutoScalingGroup', {
      MinSize: '0', MaxSize: '10', DesiredCapacity: Match.absent(), VPCZoneIdentifier: Match.anyValue(),
    });
  });

  test('every generator carries loadtest-rig:role=generator, propagated at launch', () => {
    t.hasResourceProperties('AWS::AutoScaling::AutoScalingGroup', {
      Tags: Match.arrayWith([{ Key: 'loadtest-rig:role', Value: 'generator', PropagateAtLaunch: true }]),
    });
  });

  test('generators get public addresses (never behind a NAT)', () => {
    t.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({ NetworkInterfaces: [Match.objectLike({ AssociatePublicIpAddress: true })] }),
    });
  });

  test('user-data unpacks the load-generators asset and runs its host-tuning.sh, not a copy', () => {
    expect(userData).toMatch(/aws s3 cp 's3:\/\/.*\.zip' '\/opt\/loadtest-rig\/load-generators\.zip'/);
    expect(userData).toContain('bash /opt/loadtest-rig/load-generators/host-tuning.sh');
    expect(userData).not.toContain('ip_local_port_range');
  });

  test('user-data installs Node 22 and the pinned Artillery via install-generator.sh', () => {
    expect(userData).toMatch(/NODE_VERSION=22\.\d+\.\d+/);
    // The exact tree ships as its own asset next to the bundle; install-generator.sh runs npm ci on it.
    expect(userData).toMatch(/aws s3 cp 's3:\/\/.*\.zip' '\/opt\/loadtest-rig\/agent-dependencies\.zip'/);
    expect(userData).toContain('unzip -q -o /opt/loadtest-rig/agent-dependencies.zip -d /opt/loadtest-rig/load-generators');
    expect(userData).toMatch(/bash \/opt\/loadtest-rig\/load-generators\/install-generator\.sh \/opt\/loadtest-rig\/load-generators$/m);
    expect(userData).toMatch(/curl -fsSLO --retry 6 --retry-all-errors/);
  });

  test('user-data names each boot step before it runs and writes the boot marker only after the last one', () => {
    const steps = [...userData.matchAll(/echo "loadtest-rig boot step: ([^"]+)"/g)].map((m) => m[1]);
    expect(steps).toEqual(['unpack agent bundle', 'host tuning', 'install Node (checksum-verified)', 'install agent packages and CloudWatch agent']);
    const lines = userData.trim().split('\n');
    expect(lines[lines.length - 1]).toBe('date -u +%FT%TZ > /opt/loadtest-rig/boot-finished');
    // set -e: a failing step never reaches the marker.
    expect(userData).toContain('set -euxo pipefail');
  });

  test('the role has SSM core and results-bucket access, and nothing on other buckets', () => {
    t.hasResourceProperties('AWS::IAM::Role', {
      ManagedPolicyArns: [Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('AmazonSSMManagedInstanceCore')])] })],
    });
    const policies = Object.values(t.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: Match.stringLikeRegexp('^FleetRole') }] } }));
    const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    const s3Resources = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('s3:'))).flatMap((s) => [s.Resource].flat());
    expect(s3Resources.length).toBeGreaterThan(0);
    for (const r of s3Resources) expect(JSON.stringify(r)).toMatch(/ResultsBucket|cdk-hnb659fds-assets/);
  });

  test('the generators\' results-bucket access is get/put under runs/ and listing the bucket (so a missing key is a 404, not AccessDenied) and reading its encryption setting: no delete, no bucket settings changed', () => {
    const statements = fleetStatements(t);
    const onResults = statements.filter((st) => JSON.stringify(st.Resource).includes('ResultsBucket'));
    expect(onResults.map((st) => st.Action).sort()).toEqual([['s3:GetObject', 's3:PutObject'], 's3:GetEncryptionConfiguration', 's3:ListBucket'].sort());
    const objects = onResults.find((st) => Array.isArray(st.Action));
    expect(objects?.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^ResultsBucket/), 'Arn'] }, '/runs/*']] });
    expect(onResults.find((st) => st.Action === 's3:ListBucket')?.Condition).toBeUndefined();
    const actions = statements.flatMap((st) => [st.Action].flat());
    for (const unwanted of [/^s3:Delete/, /^s3:PutObjectLegalHold/, /^s3:PutObjectRetention/, /^s3:PutObjectTagging/, /^s3:Abort/]) {
      expect(actions.filter((a) => unwanted.test(a))).toEqual([]);
    }
  });

  test('SSM Run Command output to the results bucket: PutObject under runs/, GetEncryptionConfiguration on the bucket (required for an encrypted bucket, as SSE-S3 is), no PutObjectAcl (needed only for a bucket in another account): SSM User Guide, instance profile custom S3 policy', () => {
    const statements = fleetStatements(t);
    const actionsOn = (resource: string) => statements.filter((st) => JSON.stringify(st.Resource) === resource).flatMap((st) => [st.Action].flat());
    const bucketArn = JSON.stringify({ 'Fn::GetAtt': [Object.keys(t.findResources('AWS::S3::Bucket')).find((id) => id.startsWith('ResultsBucket')), 'Arn'] });
    expect(actionsOn(bucketArn)).toContain('s3:GetEncryptionConfiguration');
    expect(statements.find((st) => [st.Action].flat().includes('s3:PutObject'))?.Resource).toEqual({ 'Fn::Join': ['', [JSON.parse(bucketArn), '/runs/*']] });
    expect(statements.flatMap((st) => [st.Action].flat()).filter((a) => /^s3:PutObjectAcl|^s3:PutObjectVersionAcl|^s3:\*/.test(a))).toEqual([]);
    // The command's output lands under runs/<id>/ssm/ (scripts/platforms/aws/fleet.ts), inside that grant.
    t.hasResourceProperties('AWS::S3::Bucket', { BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] } });
  });

  test('PutMetricData only to the CloudWatch agent\'s namespace (the operator publishes the rig\'s own metrics)', () => {
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({
        Action: 'cloudwatch:PutMetricData', Resource: '*',
        Condition: { StringEquals: { 'cloudwatch:namespace': 'CWAgent' } },
      })]) },
    });
  });

  test('generators may read SecureStrings under /loadtest-rig/secrets/ only, by path (no GetParameter(s)), and no KMS unless a key is given', () => {
    const statements = fleetStatements(t);
    const ssm = statements.filter((st) => [st.Action].flat().some((a) => a.startsWith('ssm:')));
    expect(ssm).toEqual([expect.objectContaining({ Action: 'ssm:GetParametersByPath', Resource: { 'Fn::Join': ['', expect.arrayContaining([':parameter/loadtest-rig/secrets/*'])] } })]);
    expect(statements.some((st) => [st.Action].flat().some((a) => a.startsWith('kms:')))).toBe(false);
  });

  test('a customer-managed secrets key: kms:Decrypt on that key, through SSM only', () => {
    const app = new App();
    const stack = new Stack(app, 'Kms', { env: { account: '123456789012', region: 'eu-west-1' } });
    const vpc = new ec2.Vpc(stack, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'p', subnetType: ec2.SubnetType.PUBLIC }] });
    const bucket = new s3.Bucket(stack, 'ResultsBucket');
    const keyArn = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    new GeneratorFleet(stack, 'Fleet', {
      vpc, securityGroup: new ec2.SecurityGroup(stack, 'Sg', { vpc }), resultsBucket: bucket,
      secretsKey: kms.Key.fromKeyArn(stack, 'Key', keyArn), agentDirectory: path.join(__dirname, '..', '..', 'load-generators'), agentPackages: ['artillery'],
    });
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([{ Action: 'kms:Decrypt', Effect: 'Allow', Resource: keyArn, Condition: { StringEquals: { 'kms:ViaService': 'ssm.eu-west-1.amazonaws.com' } } }]) },
    });
  });

  test('the safety net runs every 5 minutes with the group name and the 180-minute limit', () => {
    t.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)', Targets: [Match.objectLike({ Arn: Match.anyValue() })] });
    t.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { GENERATOR_ASG_NAME: { Ref: Match.stringLikeRegexp('^FleetGroupASG') }, MAX_LIFETIME_MINUTES: '180' } },
    });
  });

  test('the safety net may set desired capacity on the generator group only', () => {
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({
        Action: 'autoscaling:SetDesiredCapacity',
        Resource: { 'Fn::Join': ['', Match.arrayWith([':autoScalingGroup:*:autoScalingGroupName/', { Ref: Match.stringLikeRegexp('^FleetGroupASG') }])] },
      })]) },
    });
  });

  test('the safety net may resume auto-scaling processes (AZRebalance a killed run left suspended) on the generator group and the rig target\'s group only', () => {
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({
        Action: 'autoscaling:ResumeProcesses',
        Resource: [
          { 'Fn::Join': ['', Match.arrayWith([':autoScalingGroup:*:autoScalingGroupName/', { Ref: Match.stringLikeRegexp('^FleetGroupASG') }])] },
          { 'Fn::Join': ['', Match.arrayWith([':autoScalingGroup:*:autoScalingGroupName/LoadTestRig-Target-*'])] },
        ],
      })]) },
    });
  });

  test('user-data retries its first dnf install (unzip, tar, xz) with backoff like the later network steps, on generators and the EC2 target', () => {
    const lines = launchTemplateUserData(t).split('\n');
    const at = lines.indexOf('retry 5 dnf install -y unzip tar xz');
    expect(at).toBeGreaterThan(lines.findIndex((l) => l.startsWith('retry() {')));
    expect(lines.findIndex((l) => l.startsWith('retry() {'))).toBeGreaterThan(lines.indexOf('set -euxo pipefail'));
    expect(lines.filter((l) => /^dnf install/.test(l))).toEqual([]);
    const target = Template.fromStack(buildTestRig({ targetKind: 'ec2' }).rig.target!);
    expect(launchTemplateUserData(target)).toContain('\nretry 5 dnf install -y unzip tar xz\n');
  });

  test('an arm64 (Graviton) generator type gets the arm64 Amazon Linux image; x86 types the x86_64 one', () => {
    const arm = Template.fromStack(buildTestRig({ generatorInstanceType: 'c7g.large' }).rig.generators);
    arm.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({ InstanceType: 'c7g.large', ImageId: Match.objectLike({ Ref: Match.stringLikeRegexp('al2023amikernel.*arm64') }) }),
    });
    t.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({ InstanceType: 'c5.large', ImageId: Match.objectLike({ Ref: Match.stringLikeRegexp('al2023amikernel.*x8664') }) }),
    });
    // The same user-data picks the Node build from the machine: linux-arm64 on aarch64.
    expect(launchTemplateUserData(arm)).toContain('aarch64) NODE_ARCH=arm64');
  });

  test('generatorMaxLifetimeMinutes and generatorInstanceType come from context', () => {
    const other = Template.fromStack(buildTestRig({ generatorMaxLifetimeMinutes: 60, generatorInstanceType: 'c5.xlarge', maxGenerators: 3 }).rig.generators);
    other.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: Match.objectLike({ MAX_LIFETIME_MINUTES: '60' }) } });
    other.hasResourceProperties('AWS::EC2::LaunchTemplate', { LaunchTemplateData: Match.objectLike({ InstanceType: 'c5.xlarge' }) });
    other.hasResourceProperties('AWS::AutoScaling::AutoScalingGroup', { MaxSize: '3' });
  });

  test('outputs the names the CLI reads', () => {
    for (const key of ['GeneratorAsgName', 'ResultsBucketName', 'DashboardName', 'DashboardUrl', 'Region', 'MaxGenerators', 'RigMetricsNamespace']) t.hasOutput(key, {});
    t.hasOutput('MaxGenerators', { Value: '10' });
    // The CLI refuses a run longer than the safety net lets a generator live (scripts/platforms/aws/fleet-span.ts).
    t.hasOutput('GeneratorMaxLifetimeMinutes', { Value: '180' });
    Template.fromStack(buildTestRig({ generatorMaxLifetimeMinutes: 60 }).rig.generators).hasOutput('GeneratorMaxLifetimeMinutes', { Value: '60' });
    t.hasOutput('RigMetricsNamespace', { Value: 'LoadTestRig' });
  });
});
