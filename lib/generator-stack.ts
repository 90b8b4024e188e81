import { Aws, CfnOutput, Duration, Stack, StackProps, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import { RigDashboard, TargetDashboardMetrics } from './dashboard';
import { GeneratorFleet } from './generator-fleet';
import { ResultsBucket } from './results-bucket';

/** Properties of {@link GeneratorStack}. */
export interface GeneratorStackProps extends StackProps {
  /** VPC from the network stack. */
  readonly vpc: ec2.IVpc;
  /** The generators' security group (no inbound rules). */
  readonly generatorSecurityGroup: ec2.ISecurityGroup;
  /** Generator instance type. */
  readonly instanceType: ec2.InstanceType;
  /** Upper bound of the generator group. */
  readonly maxGenerators: number;
  /** Secondary private IPv4 addresses per generator (see GeneratorFleetProps.secondaryPrivateIps). */
  readonly secondaryPrivateIps?: number;
  /** Generators older than this are scaled to zero. */
  readonly maxLifetime: Duration;
  /** Custom CloudWatch namespace of the rig's own metrics. */
  readonly metricsNamespace: string;
  /** Days before results expire. */
  readonly resultsExpiryDays: number;
  /** Name of the dashboard. */
  readonly dashboardName: string;
  /**
   * Target metrics for the dashboard.
   * @default - no target rows (bring-your-own target)
   */
  readonly target?: TargetDashboardMetrics;
}

/** Results bucket, generator fleet with its safety net, and the run dashboard. */
export class GeneratorStack extends Stack {
  /** The fleet. */
  public readonly fleet: GeneratorFleet;
  /** The results bucket. */
  public readonly results: ResultsBucket;
  /** The dashboard. */
  public readonly dashboard: RigDashboard;

  constructor(scope: Construct, id: string, props: GeneratorStackProps) {
    super(scope, id, props);
    this.results = new ResultsBucket(this, 'Results', { expiryDays: props.resultsExpiryDays });
    this.fleet = new GeneratorFleet(this, 'Fleet', {
      vpc: props.vpc,
      securityGroup: props.generatorSecurityGroup,
      resultsBucket: this.results.bucket,
      instanceType: props.instanceType,
      maxGenerators: props.maxGenerators,
      secondaryPrivateIps: props.secondaryPrivateIps,
      maxLifetime: props.maxLifetime,
    });
    this.dashboard = new RigDashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      generatorAsgName: this.fleet.autoScalingGroup.autoScalingGroupName,
      rigNamespace: props.metricsNamespace,
      target: props.target,
    });

    // Stable output keys the CLI reads from cdk-outputs.json.
    new CfnOutput(this, 'GeneratorAsgName', { value: this.fleet.autoScalingGroup.autoScalingGroupName });
    new CfnOutput(this, 'GeneratorAgentHome', { value: this.fleet.agentHome, description: 'Directory of agent.js on each generator' });
    new CfnOutput(this, 'ResultsBucketName', { value: this.results.bucket.bucketName });
    new CfnOutput(this, 'DashboardName', { value: props.dashboardName });
    new CfnOutput(this, 'DashboardUrl', {
      value: `https://${Aws.REGION}.console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards:name=${props.dashboardName}`,
    });
    new CfnOutput(this, 'Region', { value: Aws.REGION });
    new CfnOutput(this, 'MaxGenerators', { value: String(props.maxGenerators) });
    // What the planner's capacity model needs (scripts/core/capacity-model.ts awsGenerator).
    new CfnOutput(this, 'GeneratorInstanceType', { value: props.instanceType.toString() });
    new CfnOutput(this, 'GeneratorSecondaryIps', { value: String(props.secondaryPrivateIps ?? 1) });
    new CfnOutput(this, 'RigMetricsNamespace', { value: props.metricsNamespace });
    new CfnOutput(this, 'SafetyNetFunctionName', { value: this.fleet.safetyNet.functionName });

    // CDK's singleton that empties the results bucket on destroy (autoDeleteObjects).
    const autoDelete = this.node.tryFindChild('Custom::S3AutoDeleteObjectsCustomResourceProvider');
    if (autoDelete) {
      Validations.of(autoDelete).acknowledge(
        { id: 'AwsSolutions-IAM4', reason: 'CDK-managed provider that empties the results bucket on teardown; its basic-execution policy only writes its logs.' },
        { id: 'AwsSolutions-L1', reason: 'CDK-managed provider; its runtime is chosen by aws-cdk-lib and upgraded with it.' },
      );
    }
  }
}
