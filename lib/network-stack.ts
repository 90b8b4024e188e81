import { Stack, StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { FlowLogTraffic } from './config';
import { RigNetwork, addFlowLogOutput } from './network';

/** Properties of {@link NetworkStack}. */
export interface NetworkStackProps extends StackProps {
  /** What the VPC flow logs record. @default 'REJECT' */
  readonly flowLogTraffic?: FlowLogTraffic;
}

/** The rig's network: VPC (public subnets, no NAT, flow logs) and the generators' security group. */
export class NetworkStack extends Stack {
  /** The network construct. */
  public readonly network: RigNetwork;

  constructor(scope: Construct, id: string, props: NetworkStackProps = {}) {
    super(scope, id, props);
    this.network = new RigNetwork(this, 'Network', props.flowLogTraffic ? { flowLogTraffic: props.flowLogTraffic } : {});
    addFlowLogOutput(this, this.network);
  }
}
