import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

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
}

/**
 * The rig's VPC: public subnets only, no NAT gateway, flow logs on.
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

  constructor(scope: Construct, id: string, props: RigNetworkProps = {}) {
    super(scope, id);
    const flowLogGroup = new logs.LogGroup(this, 'FlowLogs', {
      retention: props.flowLogRetention ?? logs.RetentionDays.ONE_WEEK,
      // Teardown must leave nothing billing behind.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: props.maxAzs ?? 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'Public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 20 }],
      flowLogs: {
        All: {
          destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogGroup),
          trafficType: ec2.FlowLogTrafficType.ALL,
          maxAggregationInterval: ec2.FlowLogMaxAggregationInterval.TEN_MINUTES,
        },
      },
    });
    this.vpc = vpc;

    const generatorSg = new ec2.SecurityGroup(this, 'GeneratorSecurityGroup', {
      vpc,
      description: 'loadtest-rig generators: no inbound (runs arrive through SSM), all outbound',
      allowAllOutbound: true,
    });
    this.generatorSecurityGroup = generatorSg;

    // The flow-log role is written by CDK; it needs log-stream wildcards under its one log group.
    const flowLogRole = vpc.node.tryFindChild('All')?.node.tryFindChild('IAMRole');
    if (flowLogRole) {
      Validations.of(flowLogRole).acknowledge({
        id: 'AwsSolutions-IAM5',
        reason: 'CDK-generated flow-log role: wildcards cover log streams inside this VPC\'s single flow-log group only.',
      });
    }
  }
}
