import { CfnOutput, Duration, Stack, StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import { GeneratorFleet } from './generator-fleet';
import { addGeneratorOutputs } from './generator-stack';
import type { FlowLogTraffic } from './config';
import { RigNetwork, addFlowLogOutput } from './network';
import { ResultsBucket } from './results-bucket';

/** Output key of the i-th NAT Elastic IP of a regional generator stack (the target admits each as a /32). */
export const egressOutputKey = (i: number): string => `EgressAddress${i}`;

/** Properties of {@link RegionalGeneratorStack}. */
export interface RegionalGeneratorStackProps extends StackProps {
  /** The region (the stack is pinned to it). */
  readonly region: string;
  /** This region's share of every run. */
  readonly weight: number;
  readonly instanceType: ec2.InstanceType;
  readonly maxGenerators: number;
  readonly secondaryPrivateIps?: number;
  readonly maxLifetime: Duration;
  readonly resultsExpiryDays: number;
  /** What the region's VPC flow logs record. @default 'REJECT' */
  readonly flowLogTraffic?: FlowLogTraffic;
}

/**
 * The generators of one region other than the target's: their own VPC, fleet (same launch template, tuning and
 * safety net as the home fleet) and results bucket.
 *
 * A bucket per region rather than a cross-region writer: the agents poll their store every 50 ms for the start
 * instant and stream per-period metrics into it; a bucket in the same region keeps those requests local (latency,
 * no inter-region transfer charge, no dependence on another region during the run), and the CLI copies each
 * region's prefix into the run folder once at the end.
 *
 * Generators leave through NAT gateways with the stack's own Elastic IPs: the target (in another region) can only
 * admit them by address — a security-group rule that references a security group matches traffic from the
 * referenced group's network interfaces inside the same VPC (or a peered one), never traffic that arrives over
 * the internet from another region.
 */
export class RegionalGeneratorStack extends Stack {
  public readonly network: RigNetwork;
  public readonly fleet: GeneratorFleet;
  public readonly results: ResultsBucket;
  /** Output keys of the NAT addresses (EgressAddress0, …), read by the target stack with Fn::GetStackOutput. */
  public readonly egressOutputKeys: readonly string[];
  /** This stack's region (a literal, never a token). */
  public readonly generatorRegion: string;

  constructor(scope: Construct, id: string, props: RegionalGeneratorStackProps) {
    super(scope, id, { ...props, env: { ...props.env, region: props.region } });
    this.generatorRegion = props.region;
    this.network = new RigNetwork(this, 'Network', { egress: 'nat', ...(props.flowLogTraffic ? { flowLogTraffic: props.flowLogTraffic } : {}) });
    addFlowLogOutput(this, this.network);
    this.results = new ResultsBucket(this, 'Results', { expiryDays: props.resultsExpiryDays });
    this.fleet = new GeneratorFleet(this, 'Fleet', {
      vpc: this.network.vpc,
      subnets: { selection: this.network.generatorSubnets, publicIp: this.network.generatorsPublicIp },
      securityGroup: this.network.generatorSecurityGroup,
      resultsBucket: this.results.bucket,
      instanceType: props.instanceType,
      maxGenerators: props.maxGenerators,
      secondaryPrivateIps: props.secondaryPrivateIps,
      maxLifetime: props.maxLifetime,
    });
    addGeneratorOutputs(this, this.fleet, this.results, props);
    new CfnOutput(this, 'RegionWeight', { value: String(props.weight), description: 'This region\'s share of every run (generatorRegions)' });
    this.egressOutputKeys = this.network.egressAddresses.map((eip, i) => {
      const key = egressOutputKey(i);
      new CfnOutput(this, key, { value: eip.attrPublicIp, description: 'NAT address every generator connection of this region leaves from' });
      return key;
    });
  }
}
