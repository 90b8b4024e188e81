import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildTestRig, launchTemplateUserData } from './helpers';

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
    expect(userData).toMatch(/bash \/opt\/loadtest-rig\/load-generators\/install-generator\.sh \/opt\/loadtest-rig\/load-generators .*artillery@2\.0\.34/);
    expect(userData).toMatch(/socket\.io-client@\d+\.\d+\.\d+/);
    expect(userData).toMatch(/@artilleryio\/sketches-js@\d+\.\d+\.\d+/);
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

  test('PutMetricData is limited to the rig and CloudWatch-agent namespaces', () => {
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({
        Action: 'cloudwatch:PutMetricData', Resource: '*',
        Condition: { StringEquals: { 'cloudwatch:namespace': ['LoadTestRig', 'CWAgent'] } },
      })]) },
    });
  });

  test('generators may read SecureStrings under /loadtest-rig/secrets/ only', () => {
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({
        Action: ['ssm:GetParameter', 'ssm:GetParameters', 'ssm:GetParametersByPath'],
        Resource: { 'Fn::Join': ['', Match.arrayWith([':parameter/loadtest-rig/secrets/*'])] },
      })]) },
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

  test('generatorMaxLifetimeMinutes and generatorInstanceType come from context', () => {
    const other = Template.fromStack(buildTestRig({ generatorMaxLifetimeMinutes: 60, generatorInstanceType: 'c5.xlarge', maxGenerators: 3 }).rig.generators);
    other.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: Match.objectLike({ MAX_LIFETIME_MINUTES: '60' }) } });
    other.hasResourceProperties('AWS::EC2::LaunchTemplate', { LaunchTemplateData: Match.objectLike({ InstanceType: 'c5.xlarge' }) });
    other.hasResourceProperties('AWS::AutoScaling::AutoScalingGroup', { MaxSize: '3' });
  });

  test('outputs the names the CLI reads', () => {
    for (const key of ['GeneratorAsgName', 'ResultsBucketName', 'DashboardName', 'DashboardUrl', 'Region', 'MaxGenerators', 'RigMetricsNamespace']) t.hasOutput(key, {});
    t.hasOutput('MaxGenerators', { Value: '10' });
    t.hasOutput('RigMetricsNamespace', { Value: 'LoadTestRig' });
  });
});
