import * as fs from 'node:fs';
import * as path from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildTestRig, targetOf } from './helpers';

describe('targetKind=fargate (River)', () => {
  let t: Template;
  beforeAll(() => {
    t = Template.fromStack(targetOf(buildTestRig({ targetKind: 'fargate' }).rig));
  });

  test('tasks are 1024 CPU / 2048 MiB on Fargate', () => {
    t.hasResourceProperties('AWS::ECS::TaskDefinition', { Cpu: '1024', Memory: '2048', RequiresCompatibilities: ['FARGATE'] });
  });

  test('the task architecture is pinned to x86_64 Linux and the reference image is built for linux/amd64 (deploys from arm64 laptops work)', () => {
    t.hasResourceProperties('AWS::ECS::TaskDefinition', { RuntimePlatform: { CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' } });
    const { app, rig } = buildTestRig({ targetKind: 'fargate' });
    const assembly = app.synth();
    const artifact = assembly.getStackArtifact(targetOf(rig).artifactId);
    const manifestFile = artifact.dependencies.map((d) => d as { file?: string }).find((d) => d.file?.endsWith('.assets.json'))?.file;
    const manifest = JSON.parse(fs.readFileSync(path.resolve(assembly.directory, manifestFile as string), 'utf8')) as { dockerImages: Record<string, { source: { platform?: string } }> };
    const images = Object.values(manifest.dockerImages);
    expect(images).toHaveLength(1);
    expect(images[0]?.source.platform).toBe('linux/amd64');
  });

  test('the container nofile ulimit is 65536 soft and hard, not below Fargate\'s 65535 default (ECS API Reference, Ulimit)', () => {
    t.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: [Match.objectLike({ Ulimits: [{ Name: 'nofile', SoftLimit: 65536, HardLimit: 65536 }] })],
    });
  });

  test('the container logs through awslogs to a log group deleted on teardown', () => {
    t.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: [Match.objectLike({ LogConfiguration: Match.objectLike({ LogDriver: 'awslogs' }) })],
    });
    t.hasResource('AWS::Logs::LogGroup', { DeletionPolicy: 'Delete' });
  });

  test('the container gets PORT 3000, one worker and the Redis URL', () => {
    t.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: [Match.objectLike({
        PortMappings: [Match.objectLike({ ContainerPort: 3000 })],
        Environment: Match.arrayWith([
          { Name: 'PORT', Value: '3000' },
          { Name: 'WORKERS', Value: '1' },
          { Name: 'REDIS_URL', Value: Match.objectLike({ 'Fn::Join': Match.anyValue() }) },
        ]),
      })],
    });
  });

  test('the image is built from the reference app by default (an asset, no Docker at synth)', () => {
    t.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: [Match.objectLike({ Image: { 'Fn::Sub': Match.stringLikeRegexp('cdk-hnb659fds-container-assets') } })],
    });
  });

  test('the service sits behind the ALB in public subnets with public IPs (no NAT)', () => {
    t.hasResourceProperties('AWS::ECS::Service', {
      LaunchType: 'FARGATE',
      DesiredCount: 1,
      LoadBalancers: [Match.objectLike({ ContainerPort: 3000 })],
      NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ AssignPublicIp: 'ENABLED' }) },
    });
  });

  // ECS "Tagging your resources": stack tags reach the service, not its tasks; a task is tagged only through
  // propagateTags (or RunTask). Untagged, the tasks that cost money escaped billing by tag and the tagging API.
  test("tasks carry the service's tags (loadtest-rig=true) and ECS's managed tags", () => {
    t.hasResourceProperties('AWS::ECS::Service', { PropagateTags: 'SERVICE', EnableECSManagedTags: true });
  });

  test('the scale-out alarm watches service CPU >= 40 over two 60 s periods', () => {
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ComparisonOperator: 'GreaterThanOrEqualToThreshold', Threshold: 40, EvaluationPeriods: 2, DatapointsToAlarm: 2,
      Namespace: 'AWS/ECS', MetricName: 'CPUUtilization', Period: 60,
    });
  });

  test('step scaling changes the task count by one between minCapacity and maxCapacity', () => {
    t.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 1, MaxCapacity: 4, ScalableDimension: 'ecs:service:DesiredCount' });
    t.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      StepScalingPolicyConfiguration: Match.objectLike({ AdjustmentType: 'ChangeInCapacity', StepAdjustments: [{ MetricIntervalLowerBound: 0, ScalingAdjustment: 1 }] }),
    });
    t.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      StepScalingPolicyConfiguration: Match.objectLike({ StepAdjustments: [{ MetricIntervalUpperBound: 0, ScalingAdjustment: -1 }] }),
    });
  });

  test('outputs the service and cluster names instead of an ASG', () => {
    t.hasOutput('TargetServiceName', {});
    t.hasOutput('TargetClusterName', {});
    expect(t.findOutputs('TargetAsgName')).toEqual({});
  });
});

test('targetImage replaces the built image', () => {
  const t = Template.fromStack(targetOf(buildTestRig({ targetKind: 'fargate', targetImage: 'public.ecr.aws/me/app:1' }).rig));
  t.hasResourceProperties('AWS::ECS::TaskDefinition', {
    ContainerDefinitions: [Match.objectLike({ Image: 'public.ecr.aws/me/app:1' })],
  });
});
