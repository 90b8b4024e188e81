import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildTestRig, launchTemplateUserData, targetOf } from './helpers';

describe('targetKind=ec2 (Twine)', () => {
  let t: Template;
  let userData: string;
  beforeAll(() => {
    const { rig } = buildTestRig({ targetKind: 'ec2' });
    t = Template.fromStack(targetOf(rig));
    userData = launchTemplateUserData(t);
  });

  test('instances are t3.small from a launch template on Amazon Linux 2023 (SSM parameter, no lookup)', () => {
    t.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({
        InstanceType: 't3.small',
        ImageId: Match.objectLike({ Ref: Match.stringLikeRegexp('al2023') }),
      }),
    });
  });

  test('IMDSv2 is required', () => {
    t.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({ MetadataOptions: Match.objectLike({ HttpTokens: 'required' }) }),
    });
  });

  test('the group scales between minCapacity and maxCapacity with group metrics on', () => {
    t.hasResourceProperties('AWS::AutoScaling::AutoScalingGroup', {
      MinSize: '1',
      MaxSize: '4',
      MetricsCollection: [{ Granularity: '1Minute' }],
      HealthCheckType: 'ELB',
    });
  });

  test('user-data runs the shared host-tuning script (somaxconn, port range) downloaded as an asset', () => {
    expect(userData).toMatch(/aws s3 cp 's3:\/\/.*\.sh' '\/opt\/loadtest-rig\/host-tuning\.sh'/);
    expect(userData).toContain('bash /opt/loadtest-rig/host-tuning.sh');
  });

  test('user-data installs Node 22 and the app from its S3 asset with npm ci --omit=dev (its lockfile), retried like the boot\'s other network steps', () => {
    expect(userData).toMatch(/NODE_VERSION=22\.\d+\.\d+/);
    expect(userData).toMatch(/sha256sum -c/);
    expect(userData).toMatch(/aws s3 cp 's3:\/\/.*\.zip' '\/opt\/loadtest-rig\/target-app\.zip'/);
    expect(userData).toContain('cd /opt/loadtest-rig/target-app && retry 5 npm ci --omit=dev');
    // retry() is defined before it is used (userDataPreamble).
    expect(userData.indexOf('retry() {')).toBeGreaterThanOrEqual(0);
    expect(userData.indexOf('retry() {')).toBeLessThan(userData.indexOf('retry 5 npm ci'));
  });

  test('the app runs under systemd with LimitNOFILE=65536, PORT 3000 and the Redis URL', () => {
    expect(userData).toContain('LimitNOFILE=65536');
    expect(userData).toContain('ExecStart=/usr/local/bin/node server.js');
    expect(userData).toContain('Environment=PORT=3000');
    expect(userData).toMatch(/Environment=REDIS_URL=rediss:\/\/<Redis\w+\.PrimaryEndPoint\.Address>:<Redis\w+\.PrimaryEndPoint\.Port>/);
    expect(userData).toContain('systemctl enable --now loadtest-target.service');
  });

  test('detailed monitoring is on so 60-second CPU datapoints exist', () => {
    t.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({ Monitoring: { Enabled: true } }),
    });
  });

  test('scale-out alarm: CPU >= 40 over 60 s periods, 2 evaluation periods, 2 datapoints to alarm', () => {
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 40,
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      MetricName: 'CPUUtilization',
      Namespace: 'AWS/EC2',
      Period: 60,
      Statistic: 'Average',
    });
  });

  test('scale-in alarm: CPU <= 20 for the same breach window', () => {
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ComparisonOperator: 'LessThanOrEqualToThreshold',
      Threshold: 20,
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      Period: 60,
    });
  });

  test('step scaling adds one instance on scale-out and removes one on scale-in', () => {
    t.hasResourceProperties('AWS::AutoScaling::ScalingPolicy', {
      PolicyType: 'StepScaling', AdjustmentType: 'ChangeInCapacity',
      StepAdjustments: [{ MetricIntervalLowerBound: 0, ScalingAdjustment: 1 }],
    });
    t.hasResourceProperties('AWS::AutoScaling::ScalingPolicy', {
      PolicyType: 'StepScaling', AdjustmentType: 'ChangeInCapacity',
      StepAdjustments: [{ MetricIntervalUpperBound: 0, ScalingAdjustment: -1 }],
    });
  });

  test('the ALB health-checks /healthz and keeps polling clients sticky', () => {
    t.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      Port: 3000,
      HealthCheckPath: '/healthz',
      TargetGroupAttributes: Match.arrayWith([
        { Key: 'stickiness.enabled', Value: 'true' },
        { Key: 'stickiness.type', Value: 'lb_cookie' },
      ]),
    });
  });

  test('the ALB is internal (generators reach it inside the VPC) and its idle timeout suits long-held WebSockets', () => {
    t.resourceCountIs('AWS::ElasticLoadBalancingV2::LoadBalancer', 1);
    t.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', {
      Scheme: 'internal',
      LoadBalancerAttributes: Match.arrayWith([{ Key: 'idle_timeout.timeout_seconds', Value: '3600' }]),
    });
  });

  test('the ALB admits only the generators by default (no CIDR ingress at all)', () => {
    const albSg = t.findResources('AWS::EC2::SecurityGroup', { Properties: { GroupDescription: Match.stringLikeRegexp('target ALB') } });
    const [albSgId] = Object.keys(albSg);
    expect(Object.values(albSg)[0]?.Properties.SecurityGroupIngress).toBeUndefined();
    const ingress = Object.values(t.findResources('AWS::EC2::SecurityGroupIngress', { Properties: { GroupId: { 'Fn::GetAtt': [albSgId, 'GroupId'] } } }));
    expect(ingress).toHaveLength(1);
    expect(ingress[0]?.Properties).toMatchObject({ FromPort: 80, ToPort: 80 });
    expect(JSON.stringify(ingress[0]?.Properties.SourceSecurityGroupId)).toContain('GeneratorSecurityGroup');
  });

  test('outputs the names the CLI reads', () => {
    for (const key of ['TargetUrl', 'TargetAsgName', 'ScaleOutAlarmName', 'ScaleInAlarmName', 'LoadBalancerFullName']) t.hasOutput(key, {});
    t.hasOutput('TargetUrl', { Value: { 'Fn::Join': ['', ['http://', { 'Fn::GetAtt': [Match.anyValue(), 'DNSName'] }]] } });
  });
});

describe('targetKind=ec2 options', () => {
  test('operatorCidr adds an internet-facing operator ALB admitting exactly that CIDR on port 80; the generators keep the internal one', () => {
    const t = Template.fromStack(targetOf(buildTestRig({ operatorCidr: '203.0.113.7/32' }).rig));
    t.resourceCountIs('AWS::ElasticLoadBalancingV2::LoadBalancer', 2);
    t.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', { Scheme: 'internal' });
    t.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', { Scheme: 'internet-facing' });
    t.hasResourceProperties('AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('operator ALB'),
      SecurityGroupIngress: [Match.objectLike({ CidrIp: '203.0.113.7/32', FromPort: 80, ToPort: 80 })],
    });
    t.hasResourceProperties('AWS::EC2::SecurityGroup', { GroupDescription: Match.stringLikeRegexp('target ALB \\(internal\\)'), SecurityGroupIngress: Match.absent() });
    t.hasOutput('OperatorUrl', {});
    // Both ALBs forward to the same instances.
    t.resourceCountIs('AWS::ElasticLoadBalancingV2::TargetGroup', 2);
  });

  test('t2 instance types are accepted', () => {
    const t = Template.fromStack(targetOf(buildTestRig({ targetInstanceType: 't2.medium' }).rig));
    t.hasResourceProperties('AWS::EC2::LaunchTemplate', { LaunchTemplateData: Match.objectLike({ InstanceType: 't2.medium' }) });
  });

  test('custom threshold and breach minutes flow into the alarm', () => {
    const t = Template.fromStack(targetOf(buildTestRig({ scaleOutCpuPercent: 70, breachDurationMinutes: 5 }).rig));
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ComparisonOperator: 'GreaterThanOrEqualToThreshold', Threshold: 70, EvaluationPeriods: 5, DatapointsToAlarm: 5, Period: 60,
    });
  });
});

describe('targetKind=ec2 deploys', () => {
  test('a rolling update gives each new instance the boot\'s 10 minutes (the health check\'s grace) to signal, one at a time (signals: ec2-target-signals.test.ts)', () => {
    const t = Template.fromStack(targetOf(buildTestRig({}).rig));
    t.hasResource('AWS::AutoScaling::AutoScalingGroup', {
      Properties: Match.objectLike({ HealthCheckGracePeriod: 600 }),
      UpdatePolicy: { AutoScalingRollingUpdate: Match.objectLike({ MaxBatchSize: 1, MinInstancesInService: 1, PauseTime: 'PT10M', WaitOnResourceSignals: true }) },
    });
  });

  test('a new app asset rolls the instances one at a time, keeping MinInstancesInService below MaxSize', () => {
    const t = Template.fromStack(targetOf(buildTestRig({ minCapacity: 1, maxCapacity: 1 }).rig));
    t.hasResource('AWS::AutoScaling::AutoScalingGroup', {
      UpdatePolicy: { AutoScalingRollingUpdate: Match.objectLike({ MaxBatchSize: 1, MinInstancesInService: 0 }) },
    });
  });
});
