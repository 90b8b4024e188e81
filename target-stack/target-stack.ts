import { Aws, CfnOutput, Duration, Stack, StackProps, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { Construct } from 'constructs';
import type { TargetDashboardMetrics } from '../lib/dashboard';
import { Ec2Target, TARGET_PORT } from './ec2-target';
import { FargateTarget } from './fargate-target';
import { RedisPubSub } from './redis';
import type { CpuScalingSettings, ScaledTarget } from './scaling';

/** Properties of {@link TargetStack}. */
export interface TargetStackProps extends StackProps, CpuScalingSettings {
  /** VPC from the network stack. */
  readonly vpc: ec2.IVpc;
  /** The generators' security group: always allowed to reach the load balancer. */
  readonly generatorSecurityGroup: ec2.ISecurityGroup;
  /** `ec2` (auto-scaling group) or `fargate` (ECS service). */
  readonly kind: 'ec2' | 'fargate';
  /** Fewest instances/tasks. */
  readonly minCapacity: number;
  /** Most instances/tasks. */
  readonly maxCapacity: number;
  /**
   * Instance type for `ec2`.
   * @default t3.small
   */
  readonly instanceType?: ec2.InstanceType;
  /**
   * The user's own image for `fargate`.
   * @default - the reference target built from target-stack/app
   */
  readonly image?: string;
  /**
   * An IPv4 CIDR the operator may reach the target from, through a second, internet-facing load balancer
   * (output `OperatorUrl`).
   * @default - no operator load balancer (reach the target through Session Manager port forwarding)
   */
  readonly operatorCidr?: string;
  /**
   * Addresses of generators in other regions (their NAT Elastic IPs, `a.b.c.d/32`), admitted on the same
   * internet-facing load balancer as the operator (output `PublicTargetUrl`). They cannot use the internal one.
   * @default - none
   */
  readonly remoteGeneratorCidrs?: ReadonlyArray<{ readonly cidr: string; readonly description: string }>;
  /**
   * Session Manager on the EC2 target's instances (see Ec2TargetProps.sessionManager).
   * @default false
   */
  readonly sessionManager?: boolean;
  /**
   * Back the Socket.IO Redis adapter with ElastiCache so rooms span instances.
   * @default maxCapacity > 1
   */
  readonly redis?: boolean;
}

/**
 * The system under test behind an internal ALB that admits only the generators (plus, when an operator
 * CIDR is given, an internet-facing ALB for that CIDR only): `ec2` reproduces Twine, `fargate` reproduces River.
 */
export class TargetStack extends Stack {
  /** The load balancer in front of the target. */
  public readonly loadBalancer: elbv2.ApplicationLoadBalancer;
  /** The scaled target (instances or tasks). */
  public readonly target: ScaledTarget;
  /** Redis, when on. */
  public readonly redis?: RedisPubSub;
  /** Metrics for the rig dashboard. */
  public readonly dashboardMetrics: TargetDashboardMetrics;

  constructor(scope: Construct, id: string, props: TargetStackProps) {
    super(scope, id, props);
    // Internal: generators resolve it to private addresses inside the VPC, where the security-group reference
    // below really matches them (an internet-facing ALB would see their public IPs and time every connection out;
    // lib/reachability-check.ts fails the synth on that shape).
    const albSg = new ec2.SecurityGroup(this, 'LoadBalancerSecurityGroup', {
      vpc: props.vpc,
      description: 'loadtest-rig target ALB (internal): generators only',
      allowAllOutbound: false,
    });
    albSg.addIngressRule(props.generatorSecurityGroup, ec2.Port.tcp(80), 'generators');
    const alb = this.loadBalancerFor('LoadBalancer', props.vpc, albSg, false);
    this.loadBalancer = alb;
    const listener = alb.addListener('Http', { port: 80, open: false });

    const remote = props.remoteGeneratorCidrs ?? [];
    const publicAlb = props.operatorCidr || remote.length > 0 ? this.publicLoadBalancer(props, remote) : undefined;
    const operatorListener = publicAlb?.listener;
    const otherRegionsAlb = remote.length > 0 ? publicAlb?.alb : undefined;

    if (props.redis ?? props.maxCapacity > 1) {
      this.redis = new RedisPubSub(this, 'Redis', { vpc: props.vpc });
    }
    const scaling = { scaleOutCpuPercent: props.scaleOutCpuPercent, scaleInCpuPercent: props.scaleInCpuPercent, breachDurationMinutes: props.breachDurationMinutes };
    const common = { vpc: props.vpc, minCapacity: props.minCapacity, maxCapacity: props.maxCapacity, redisUrl: this.redis?.url, ...scaling };

    let target: (ScaledTarget & ec2.IConnectable);
    let lbTarget: elbv2.IApplicationLoadBalancerTarget;
    if (props.kind === 'ec2') {
      const ec2Target = new Ec2Target(this, 'Ec2', { ...common, instanceType: props.instanceType ?? new ec2.InstanceType('t3.small'), sessionManager: props.sessionManager ?? false });
      target = ec2Target;
      lbTarget = ec2Target.autoScalingGroup;
      new CfnOutput(this, 'TargetAsgName', { value: ec2Target.autoScalingGroup.autoScalingGroupName, description: 'Target auto-scaling group' });
      new CfnOutput(this, 'TargetInstanceType', { value: (props.instanceType ?? new ec2.InstanceType('t3.small')).toString(), description: 'Target instance type (quota check, cost estimate)' });
    } else {
      const fargate = new FargateTarget(this, 'Fargate', { ...common, image: props.image });
      target = fargate;
      lbTarget = fargate.service;
      new CfnOutput(this, 'TargetServiceName', { value: fargate.service.serviceName, description: 'Target ECS service' });
      new CfnOutput(this, 'TargetClusterName', { value: fargate.cluster.clusterName, description: 'Target ECS cluster' });
      new CfnOutput(this, 'TargetTaskVcpu', { value: String(fargate.taskVcpu), description: 'vCPUs of one target task (Fargate quota check, cost estimate)' });
      new CfnOutput(this, 'TargetTaskMemoryGb', { value: String(fargate.taskMemoryGb), description: 'Memory (GB) of one target task (cost estimate)' });
    }
    this.target = target;
    // cdk-outputs.json records no account otherwise: npm run teardown refuses credentials of another account with it.
    new CfnOutput(this, 'Account', { value: Aws.ACCOUNT_ID, description: 'The account the rig is deployed in (npm run teardown checks the credentials against it)' });
    new CfnOutput(this, 'TargetMaxCapacity', { value: String(props.maxCapacity), description: 'Most target instances/tasks (quota check, cost estimate)' });
    if (this.redis) this.redis.connections.allowDefaultPortFrom(target, 'target instances/tasks');

    const targetGroupProps: elbv2.AddApplicationTargetsProps = {
      port: TARGET_PORT,
      protocol: elbv2.ApplicationProtocol.HTTP,
      targets: [lbTarget],
      healthCheck: { path: '/healthz', healthyHttpCodes: '200', interval: Duration.seconds(15), healthyThresholdCount: 2, unhealthyThresholdCount: 3 },
      // Keeps a client that returns the AWSALB cookie on one instance/task. It does not make Socket.IO's HTTP
      // long-polling work here: engine.io-client sends cookies only with withCredentials, and an EC2 instance's
      // workers share one port, so polls of a session still reach other workers (docs/target.md, Transports).
      stickinessCookieDuration: Duration.days(1),
      // Shorter than the default 300 s so scale-in and deploys don't hang on held WebSockets.
      deregistrationDelay: Duration.seconds(30),
    };
    listener.addTargets('Target', targetGroupProps);
    operatorListener?.addTargets('Target', targetGroupProps);

    this.dashboardMetrics = {
      cpu: target.cpuMetric,
      scaleOutCpuPercent: props.scaleOutCpuPercent,
      inService: target.inServiceMetric,
      loadBalancer: alb,
      ...(otherRegionsAlb ? { otherRegionsLoadBalancer: otherRegionsAlb } : {}),
    };

    new CfnOutput(this, 'TargetUrl', { value: `http://${alb.loadBalancerDnsName}`, description: 'Target URL (ALB)' });
    new CfnOutput(this, 'LoadBalancerFullName', { value: alb.loadBalancerFullName, description: 'ALB name for AWS/ApplicationELB metrics' });
    new CfnOutput(this, 'ScaleOutAlarmName', { value: target.scaleOutAlarm.alarmName, description: 'Alarm that adds target capacity' });
    new CfnOutput(this, 'ScaleInAlarmName', { value: target.scaleInAlarm.alarmName, description: 'Alarm that removes target capacity' });

  }

  /**
   * The operator's laptop and generators in other regions are outside the VPC: a second, internet-facing ALB
   * admits only their addresses (the operator CIDR, the other regions' NAT addresses).
   */
  private publicLoadBalancer(props: TargetStackProps, remote: NonNullable<TargetStackProps['remoteGeneratorCidrs']>): { alb: elbv2.ApplicationLoadBalancer; listener: elbv2.ApplicationListener } {
    const operatorSg = new ec2.SecurityGroup(this, 'OperatorLoadBalancerSecurityGroup', {
      vpc: props.vpc,
      description: remote.length > 0
        ? 'loadtest-rig target public ALB (internet-facing): the operator CIDR and the NAT addresses of generators in other regions only'
        : 'loadtest-rig target operator ALB (internet-facing): the operator CIDR only',
      allowAllOutbound: false,
    });
    if (props.operatorCidr) operatorSg.addIngressRule(ec2.Peer.ipv4(props.operatorCidr), ec2.Port.tcp(80), 'operator');
    for (const r of remote) operatorSg.addIngressRule(ec2.Peer.ipv4(r.cidr), ec2.Port.tcp(80), r.description);
    if (remote.length > 0) {
      Validations.of(operatorSg).acknowledge({
        id: 'AwsSolutions-EC23',
        reason: 'The other regions\' sources are their NAT Elastic IPs as /32s, read across regions with Fn::GetStackOutput at deploy time, which cdk-nag cannot evaluate; never 0.0.0.0/0 (and operatorCidr is validated narrower than /0).',
      });
    }
    const alb = this.loadBalancerFor('OperatorLoadBalancer', props.vpc, operatorSg, true);
    const listener = alb.addListener('Http', { port: 80, open: false });
    if (props.operatorCidr) new CfnOutput(this, 'OperatorUrl', { value: `http://${alb.loadBalancerDnsName}`, description: `Target URL for the operator (${props.operatorCidr} only)` });
    if (remote.length > 0) {
      new CfnOutput(this, 'PublicTargetUrl', { value: `http://${alb.loadBalancerDnsName}`, description: 'Target URL for generators in other regions (their NAT addresses only)' });
      // AWS/ApplicationELB metrics are per load balancer: the other regions' load arrives here, not at the first.
      new CfnOutput(this, 'PublicLoadBalancerFullName', { value: alb.loadBalancerFullName, description: 'Internet-facing ALB name (other regions\' generators) for AWS/ApplicationELB metrics' });
    }
    return { alb, listener };
  }

  private loadBalancerFor(id: string, vpc: ec2.IVpc, securityGroup: ec2.ISecurityGroup, internetFacing: boolean): elbv2.ApplicationLoadBalancer {
    const alb = new elbv2.ApplicationLoadBalancer(this, id, {
      vpc,
      internetFacing,
      // The VPC has public subnets only; an internal ALB may sit in them (its nodes get private addresses only).
      vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
      securityGroup,
      // WebSockets are held for a whole test; Socket.IO pings every 25 s, but raw-WebSocket
      // scenarios may sit silent, so allow an hour of idleness (the maximum is 4000 s). The target's own keep-alive
      // timeout must be longer (ELB User Guide, "Edit attributes": else a reused connection the target closed is a 502):
      // target-stack/app/http-timeouts.js, compared with this in test/cdk/target-keepalive.test.ts.
      idleTimeout: Duration.seconds(3600),
      dropInvalidHeaderFields: true,
    });
    Validations.of(alb).acknowledge({
      id: 'AwsSolutions-ELB2',
      reason: 'Access logs of a load test are millions of lines per run in a bucket that would outlive teardown; ALB CloudWatch metrics cover what the report uses.',
    });
    return alb;
  }
}
