import { Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elasticache from 'aws-cdk-lib/aws-elasticache';
import { Construct } from 'constructs';

/** Properties of {@link RedisPubSub}. */
export interface RedisPubSubProps {
  /** VPC to place the cache in. */
  readonly vpc: ec2.IVpc;
  /**
   * Node type.
   * @default cache.t4g.small
   */
  readonly nodeType?: string;
  /**
   * Port; not 6379 so scanners looking for default Redis ports find nothing.
   * @default 6390
   */
  readonly port?: number;
}

/**
 * ElastiCache Redis that backs the Socket.IO Redis adapter, so a message published on one target
 * instance reaches room members on every instance. In-VPC only, TLS in transit, encrypted at rest;
 * nothing may connect until a caller is allowed through {@link connections}.
 */
export class RedisPubSub extends Construct implements ec2.IConnectable {
  /** @inheritdoc */
  public readonly connections: ec2.Connections;
  /** `rediss://host:port` for the target's REDIS_URL (TLS). */
  public readonly url: string;

  constructor(scope: Construct, id: string, props: RedisPubSubProps) {
    super(scope, id);
    const port = props.port ?? 6390;
    const sg = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      description: 'loadtest-rig Redis: reachable only from the target',
      allowAllOutbound: false,
    });
    this.connections = new ec2.Connections({ securityGroups: [sg], defaultPort: ec2.Port.tcp(port) });
    const subnets = new elasticache.CfnSubnetGroup(this, 'Subnets', {
      description: 'loadtest-rig Redis subnets',
      subnetIds: props.vpc.publicSubnets.map((s) => s.subnetId),
    });
    const group = new elasticache.CfnReplicationGroup(this, 'Cache', {
      replicationGroupDescription: 'loadtest-rig Socket.IO adapter pub/sub',
      engine: 'redis',
      engineVersion: '7.1',
      cacheNodeType: props.nodeType ?? 'cache.t4g.small',
      numCacheClusters: 1,
      automaticFailoverEnabled: false,
      multiAzEnabled: false,
      port,
      cacheSubnetGroupName: subnets.ref,
      securityGroupIds: [sg.securityGroupId],
      atRestEncryptionEnabled: true,
      transitEncryptionEnabled: true,
    });
    this.url = `rediss://${group.attrPrimaryEndPointAddress}:${group.attrPrimaryEndPointPort}`;
    Validations.of(group).acknowledge(
      { id: 'AwsSolutions-AEC4', reason: 'Pub/sub fan-out for a disposable test target; Multi-AZ would double cost without changing what the test measures.' },
      { id: 'AwsSolutions-AEC6', reason: 'Reachable only from the target security group inside the VPC, TLS on; an AUTH token would add a secret to every target without reducing exposure.' },
    );
  }
}
