import { Stack, StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { RigNetwork } from './network';

/** The rig's network: VPC (public subnets, no NAT, flow logs) and the generators' security group. */
export class NetworkStack extends Stack {
  /** The network construct. */
  public readonly network: RigNetwork;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.network = new RigNetwork(this, 'Network');
  }
}
