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
  /**
   * This region's weight when the generators run in several regions.
   * @default - one region (no RegionWeight output)
   */
  readonly regionWeight?: number;
  /**
   * The other generator regions, so the CLI finds their stacks without an outputs file.
   * @default - none
   */
  readonly remoteRegions?: readonly string[];
}

/**
 * The outputs every generator stack (home or another region) has: the stable keys the CLI reads from
 * cdk-outputs.json, and the acknowledgement of CDK's bucket-emptying provider.
 */
export function addGeneratorOutputs(
  stack: Stack,
  fleet: GeneratorFleet,
  results: ResultsBucket,
  props: { readonly instanceType: ec2.InstanceType; readonly maxGenerators: number; readonly secondaryPrivateIps?: number; readonly maxLifetime: Duration },
): void {
  new CfnOutput(stack, 'GeneratorAsgName', { value: fleet.autoScalingGroup.autoScalingGroupName });
  new CfnOutput(stack, 'GeneratorAgentHome', { value: fleet.agentHome, description: 'Directory of agent.js on each generator' });
  new CfnOutput(stack, 'ResultsBucketName', { value: results.bucket.bucketName });
  new CfnOutput(stack, 'Region', { value: Aws.REGION });
  // Every rig stack records its account, so `npm run teardown` checks the credentials with targetKind=none too.
  new CfnOutput(stack, 'Account', { value: Aws.ACCOUNT_ID, description: 'The account the rig is deployed in (npm run teardown checks the credentials against it)' });
  new CfnOutput(stack, 'MaxGenerators', { value: String(props.maxGenerators) });
  // What the planner's capacity model needs (scripts/core/capacity-model.ts awsGenerator).
  new CfnOutput(stack, 'GeneratorInstanceType', { value: props.instanceType.toString() });
  new CfnOutput(stack, 'GeneratorSecondaryIps', { value: String(props.secondaryPrivateIps ?? 1) });
  new CfnOutput(stack, 'SafetyNetFunctionName', { value: fleet.safetyNet.functionName });
  // The CLI refuses a run longer than this before anything scales: the safety net would scale it to 0 mid-run.
  new CfnOutput(stack, 'GeneratorMaxLifetimeMinutes', { value: String(props.maxLifetime.toMinutes()), description: 'The safety net scales the generators to 0 once any has run this long' });

  // CDK's singleton that empties the results bucket on destroy (autoDeleteObjects).
  const autoDelete = stack.node.tryFindChild('Custom::S3AutoDeleteObjectsCustomResourceProvider');
  if (autoDelete) {
    Validations.of(autoDelete).acknowledge(
      { id: 'AwsSolutions-IAM4', reason: 'CDK-managed provider that empties the results bucket on teardown; its basic-execution policy only writes its logs.' },
      { id: 'AwsSolutions-L1', reason: 'CDK-managed provider; its runtime is chosen by aws-cdk-lib and upgraded with it.' },
    );
  }
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

    addGeneratorOutputs(this, this.fleet, this.results, props);
    new CfnOutput(this, 'DashboardName', { value: props.dashboardName });
    new CfnOutput(this, 'DashboardUrl', {
      value: `https://${Aws.REGION}.console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards:name=${props.dashboardName}`,
    });
    new CfnOutput(this, 'RigMetricsNamespace', { value: props.metricsNamespace });
    if (props.regionWeight !== undefined) new CfnOutput(this, 'RegionWeight', { value: String(props.regionWeight), description: 'This region\'s share of every run (generatorRegions)' });
    if (props.remoteRegions?.length) {
      new CfnOutput(this, 'RemoteGeneratorRegions', { value: props.remoteRegions.join(','), description: 'The other generator regions (stacks LoadTestRig-Generators-<region>)' });
    }
  }
}
