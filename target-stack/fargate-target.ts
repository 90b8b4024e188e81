import * as path from 'node:path';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { acknowledge, iam5 } from '../lib/nag';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecrAssets from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { TARGET_PORT } from './ec2-target';
import { SCALING_PERIOD, ScaledTarget, ScaledTargetProps, cpuStepScaling } from './scaling';

/** Properties of {@link FargateTarget}. */
export interface FargateTargetProps extends ScaledTargetProps {
  /**
   * The user's own image (it must listen on PORT 3000 and answer GET /healthz with 200).
   * @default - the reference target, built from target-stack/app with target-stack/docker/Dockerfile
   */
  readonly image?: string;
}

/**
 * River's target: an ECS Fargate service (1 vCPU / 2 GiB tasks) with the container's nofile set to 65536 soft and
 * hard (the EC2 target's LimitNOFILE), scaled one task at a time on average CPU. Fargate's own default has changed
 * over its platform versions (1024/4096, then 65535/65535 per the ECS API Reference, "Ulimit"): an explicit value
 * keeps the target's file limit the same whatever the platform version, and never below the default.
 */
export class FargateTarget extends Construct implements ScaledTarget, ec2.IConnectable {
  /** The cluster. */
  public readonly cluster: ecs.ICluster;
  /** The service. */
  public readonly service: ecs.FargateService;
  /** @inheritdoc */
  public readonly connections: ec2.Connections;
  /** @inheritdoc */
  public readonly cpuMetric: cw.IMetric;
  /** @inheritdoc */
  public readonly inServiceMetric: cw.IMetric;
  /** @inheritdoc */
  public readonly scaleOutAlarm: cw.IAlarm;
  /** @inheritdoc */
  public readonly scaleInAlarm: cw.IAlarm;
  /** vCPUs of one task (one Node worker per vCPU). */
  public readonly taskVcpu = 1;
  /** Memory of one task, GB. */
  public readonly taskMemoryGb = 2;

  constructor(scope: Construct, id: string, props: FargateTargetProps) {
    super(scope, id);
    const cluster = this.createCluster(props);
    this.cluster = cluster;

    const taskDefinition = this.createTaskDefinition(props);

    const service = new ecs.FargateService(this, 'Service', {
      cluster,
      taskDefinition,
      desiredCount: props.minCapacity,
      // Public subnets, no NAT: tasks need a public address to pull their image.
      assignPublicIp: true,
      vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
      securityGroups: [new ec2.SecurityGroup(this, 'SecurityGroup', {
        vpc: props.vpc,
        description: 'loadtest-rig target tasks: app port from the load balancer only',
        allowAllOutbound: true,
      })],
      circuitBreaker: { rollback: true },
      // Tasks get the service's tags (the stack's loadtest-rig=true among them): stack tags reach the service, not the
      // tasks it starts (ECS "Tagging your resources": a task is tagged only through propagateTags or RunTask), so
      // billing by tag and the tagging API missed the tasks that cost money.
      propagateTags: ecs.PropagatedTagSource.SERVICE,
      enableECSManagedTags: true,
      healthCheckGracePeriod: Duration.seconds(60),
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
    });
    this.service = service;
    this.connections = service.connections;

    this.cpuMetric = service.metricCpuUtilization({ period: SCALING_PERIOD, statistic: 'Average' });
    this.inServiceMetric = new cw.Metric({
      namespace: 'ECS/ContainerInsights',
      metricName: 'RunningTaskCount',
      dimensionsMap: { ClusterName: cluster.clusterName, ServiceName: service.serviceName },
      statistic: 'Maximum',
      period: SCALING_PERIOD,
      label: 'running tasks',
    });
    const scaling = service.autoScaleTaskCount({ minCapacity: props.minCapacity, maxCapacity: props.maxCapacity });
    scaling.scaleOnMetric('CpuStepScaling', { ...cpuStepScaling(props, this.cpuMetric), cooldown: Duration.seconds(60) });
    // ScalableTaskCount.scaleOnMetric returns nothing; the policy is created under its scalable target.
    const policy = scaling.node.findChild('Target').node.findChild('CpuStepScaling') as appscaling.StepScalingPolicy;
    if (!policy.upperAlarm || !policy.lowerAlarm) throw new Error('CPU step scaling must create both a scale-out and a scale-in alarm');
    this.scaleOutAlarm = policy.upperAlarm;
    this.scaleInAlarm = policy.lowerAlarm;

    acknowledge(taskDefinition,
      { id: 'AwsSolutions-ECS2', reason: 'Environment holds only non-secret settings (port, host, worker count, the in-VPC Redis URL).' },
      { id: iam5('Resource::*'), reason: 'The execution role\'s ecr:GetAuthorizationToken is only grantable on "*" (AWS requirement); CDK adds it for the image pull.' },
    );
  }

  /**
   * The cluster, with Container Insights. Insights writes to /aws/ecs/containerinsights/<cluster>/performance, a
   * group ECS would create outside the stack and keep after teardown: the cluster is named so the stack owns that group first.
   */
  private createCluster(props: FargateTargetProps): ecs.Cluster {
    const clusterName = `${Stack.of(this).stackName}-target`;
    const insightsLogs = new logs.LogGroup(this, 'InsightsLogs', {
      logGroupName: `/aws/ecs/containerinsights/${clusterName}/performance`,
      retention: logs.RetentionDays.ONE_WEEK,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const cluster = new ecs.Cluster(this, 'Cluster', {
      vpc: props.vpc,
      clusterName,
      containerInsightsV2: ecs.ContainerInsights.ENABLED,
    });
    cluster.node.addDependency(insightsLogs);
    return cluster;
  }

  /** One task: pinned x86_64, the reference image (or props.image), one worker per vCPU, raised open-files limit. */
  private createTaskDefinition(props: FargateTargetProps): ecs.FargateTaskDefinition {
    // The task's architecture is pinned, and the reference image is built for exactly it: a deploy from an arm64
    // laptop would otherwise push an arm64 image that an x86_64 task cannot start (exec format error).
    const taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: this.taskVcpu * 1024,
      memoryLimitMiB: this.taskMemoryGb * 1024,
      runtimePlatform: { cpuArchitecture: ecs.CpuArchitecture.X86_64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
    });
    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: logs.RetentionDays.ONE_WEEK,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const image = props.image
      ? ecs.ContainerImage.fromRegistry(props.image)
      // Context = target-stack/ so the Dockerfile can live outside app/; Docker runs at deploy, not synth.
      : ecs.ContainerImage.fromAsset(__dirname, {
        file: path.join('docker', 'Dockerfile'),
        platform: ecrAssets.Platform.LINUX_AMD64,
        exclude: ['*.ts', '**/node_modules', 'cdk.out', '*.log'],
      });
    const container = taskDefinition.addContainer('Target', {
      image,
      portMappings: [{ containerPort: TARGET_PORT }],
      logging: ecs.LogDrivers.awsLogs({ logGroup, streamPrefix: 'target' }),
      environment: {
        PORT: String(TARGET_PORT),
        HOST: '0.0.0.0',
        // One worker per vCPU: a 1024-unit task is one vCPU, whatever os.cpus() reports inside Fargate.
        WORKERS: '1',
        ...(props.redisUrl ? { REDIS_URL: props.redisUrl } : {}),
      },
    });
    container.addUlimits({ name: ecs.UlimitName.NOFILE, softLimit: 65536, hardLimit: 65536 });
    return taskDefinition;
  }
}
