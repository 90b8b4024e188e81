import { CfnOutput, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { FlowLogTraffic } from './config';
import { GENERATOR_SUBNET_MASK, NAT_PUBLIC_SUBNET_MASK, RIG_AZS } from './subnet-capacity';

/** Properties of {@link RigNetwork}. */
export interface RigNetworkProps {
  /**
   * Availability zones to span.
   * @default 2
   */
  readonly maxAzs?: number;
  /**
   * How long VPC flow logs are kept.
   * @default logs.RetentionDays.ONE_WEEK
   */
  readonly flowLogRetention?: logs.RetentionDays;
  /**
   * What the flow logs record: `REJECT`, the connections a security group or network ACL refused (what a blocked run
   * leaves to debug), or `ALL`, every flow, a record per flow per minute on each interface it crosses: at 96,000 held
   * connections the run's largest item (docs/aws-costs.md).
   * @default 'REJECT'
   */
  readonly flowLogTraffic?: FlowLogTraffic;
  /**
   * How generators leave the VPC. `public`: public subnets, each instance's own public IP, no NAT (the target
   * is in this VPC and admits the generators' security group). `nat`: generators in private subnets behind one
   * NAT gateway per zone with Elastic IPs of the stack's own — fixed addresses a target in ANOTHER region can
   * admit by CIDR (a security-group reference never matches traffic from another region or VPC without peering).
   * @default 'public'
   */
  readonly egress?: 'public' | 'nat';
}

/**
 * The rig's VPC: public subnets only, no NAT gateway, flow logs on (rejected traffic, unless told all).
 *
 * No NAT on purpose: a NAT gateway caps simultaneous connections to one destination at
 * 55,000 and bills per GB, both wrong for a load test. Generators and targets get public
 * addresses and reach S3, package mirrors and each other directly.
 *
 * Also owns the generators' security group, so the target stack can allow it on its load
 * balancer without depending on the generator stack (which depends on the target for its
 * dashboard).
 */
export class RigNetwork extends Construct {
  /** The VPC. */
  public readonly vpc: ec2.IVpc;
  /** Security group of the generator fleet: no inbound rules at all. */
  public readonly generatorSecurityGroup: ec2.ISecurityGroup;
  /** Subnets the generators run in (public, or private behind the NAT gateways). */
  public readonly generatorSubnets: ec2.SubnetSelection;
  /** Whether generators get a public IP of their own (false behind NAT). */
  public readonly generatorsPublicIp: boolean;
  /** The NAT gateways' Elastic IPs (egress `nat` only): every generator connection leaves from one of these. */
  public readonly egressAddresses: readonly ec2.CfnEIP[];
  /** What the flow logs record (the stack's FlowLogTraffic output: the run's cost estimate prices it). */
  public readonly flowLogTraffic: FlowLogTraffic;

  constructor(scope: Construct, id: string, props: RigNetworkProps = {}) {
    super(scope, id);
    const flowLogGroup = new logs.LogGroup(this, 'FlowLogs', {
      retention: props.flowLogRetention ?? logs.RetentionDays.ONE_WEEK,
      // Teardown must leave nothing billing behind.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.flowLogTraffic = props.flowLogTraffic ?? 'REJECT';
    const maxAzs = props.maxAzs ?? RIG_AZS;
    const nat = props.egress === 'nat';
    // One NAT gateway per zone, each with an Elastic IP the stack owns (its address is an output the target admits).
    // A NAT gateway holds 55,000 simultaneous connections per address to one destination address:port (docs/aws-regions.md).
    this.egressAddresses = nat
      ? Array.from({ length: maxAzs }, (_, i) => new ec2.CfnEIP(this, `NatAddress${i}`, { domain: 'vpc', tags: [{ key: 'Name', value: `loadtest-rig generator egress ${i}` }] }))
      : [];
    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs,
      natGateways: nat ? maxAzs : 0,
      ...(nat ? { natGatewayProvider: ec2.NatProvider.gateway({ eipAllocationIds: this.egressAddresses.map((e) => e.attrAllocationId) }) } : {}),
      // Sizes shared with lib/subnet-capacity.ts, which refuses a context whose full fleet would not fit them.
      subnetConfiguration: nat
        ? [{ name: 'Public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: NAT_PUBLIC_SUBNET_MASK }, { name: 'Generators', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: GENERATOR_SUBNET_MASK }]
        : [{ name: 'Public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: GENERATOR_SUBNET_MASK }],
      // Behind NAT, the agents' S3 traffic (bundle, periods, results) would be billed per GB by the NAT gateways; a
      // gateway endpoint (free) takes it for this region's buckets (VPC User Guide, "Gateway endpoints for Amazon S3").
      ...(nat ? { gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } } } : {}),
      // cdk-nag's AwsSolutions-VPC7 ("The VPC does not have an associated Flow Log") asks for a flow log on the VPC,
      // whatever traffic it records (cdk-nag rules/vpc/VPCFlowLogsEnabled: ResourceType VPC, its id). Rejected traffic is
      // what the flow log is for here (a security group or network ACL refusing the load); logging every accepted flow
      // of a load test bills a record per connection per minute on each interface for nothing (docs/aws-costs.md).
      flowLogs: {
        FlowLog: {
          destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogGroup),
          trafficType: this.flowLogTraffic === 'ALL' ? ec2.FlowLogTrafficType.ALL : ec2.FlowLogTrafficType.REJECT,
          // Fewer records only on interfaces not attached to Nitro instances: "When a network interface is attached to a
          // Nitro-based instance, the aggregation interval is always 1 minute or less, regardless of the specified maximum
          // aggregation interval" (VPC User Guide, "Flow log records"); the estimate prices 1 minute everywhere.
          maxAggregationInterval: ec2.FlowLogMaxAggregationInterval.TEN_MINUTES,
        },
      },
    });
    this.vpc = vpc;
    this.generatorSubnets = { subnetType: nat ? ec2.SubnetType.PRIVATE_WITH_EGRESS : ec2.SubnetType.PUBLIC };
    this.generatorsPublicIp = !nat;

    const generatorSg = new ec2.SecurityGroup(this, 'GeneratorSecurityGroup', {
      vpc,
      description: 'loadtest-rig generators: no inbound (runs arrive through SSM), all outbound',
      allowAllOutbound: true,
    });
    this.generatorSecurityGroup = generatorSg;

    // The flow-log role is written by CDK; it needs log-stream wildcards under its one log group.
    const flowLogRole = vpc.node.tryFindChild('FlowLog')?.node.tryFindChild('IAMRole');
    if (flowLogRole) {
      Validations.of(flowLogRole).acknowledge({
        id: 'AwsSolutions-IAM5',
        reason: 'CDK-generated flow-log role: wildcards cover log streams inside this VPC\'s single flow-log group only.',
      });
    }
  }
}

/** Output key of what a rig VPC's flow logs record (scripts/platforms/aws/discovery.ts reads it for the cost estimate). */
export const FLOW_LOG_TRAFFIC_OUTPUT = 'FlowLogTraffic';

/** Adds the stack's {@link FLOW_LOG_TRAFFIC_OUTPUT} output for `network`. */
export function addFlowLogOutput(stack: Stack, network: RigNetwork): void {
  new CfnOutput(stack, FLOW_LOG_TRAFFIC_OUTPUT, { value: network.flowLogTraffic, description: 'What the VPC flow logs record (REJECT or ALL; context flowLogTraffic): the run\'s cost estimate prices it' });
}
