import { Annotations, IAspect, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { IConstruct } from 'constructs';

/**
 * Fails `cdk synth` (an error annotation) when an internet-facing load balancer admits traffic only by
 * security-group reference.
 *
 * The AWS rule this relies on (VPC User Guide, "Security group rules": a rule that references a security
 * group "allows traffic from the network interfaces associated with the referenced security group" using
 * their PRIVATE addresses): a client that resolves an internet-facing load balancer gets its public
 * addresses, its packets leave the VPC through the internet gateway with the client's public IP, and arrive
 * from that public IP — which no security-group reference matches. Every such connection times out. So an
 * internet-facing load balancer whose only sources are security groups is unreachable by construction.
 * (moto cannot show this: it models neither routing nor security-group evaluation.)
 *
 * Applied to the whole app, it inspects every `AWS::ElasticLoadBalancingV2::LoadBalancer` whose scheme is
 * internet-facing (CloudFormation's default) and the ingress of its security groups in the same stack: the
 * inline `SecurityGroupIngress` and standalone `AWS::EC2::SecurityGroupIngress` resources.
 */
export class InternetFacingReachabilityCheck implements IAspect {
  public visit(node: IConstruct): void {
    if (!(node instanceof elbv2.CfnLoadBalancer)) return;
    const scheme = node.scheme ?? 'internet-facing';
    if (Token.isUnresolved(scheme) || scheme !== 'internet-facing') return;
    const stack = Stack.of(node);
    const groupIds = (stack.resolve(node.securityGroups) ?? []) as unknown[];
    const own = groupIds.map((g) => logicalIdOf(g)).filter((id): id is string => id !== undefined);
    // Groups from elsewhere (imported ids): their rules are not in this app, so nothing can be judged.
    if (own.length === 0 || own.length < groupIds.length) return;

    const sources: Array<'address' | 'group'> = [];
    for (const child of stack.node.findAll()) {
      if (child instanceof ec2.CfnSecurityGroup && own.includes(stack.resolve(child.logicalId) as string)) {
        const inline = (stack.resolve(child.securityGroupIngress) ?? []) as Array<Record<string, unknown>>;
        for (const r of inline) sources.push(admits(r.cidrIp ?? r.CidrIp, r.cidrIpv6 ?? r.CidrIpv6, r.sourcePrefixListId ?? r.SourcePrefixListId));
      }
      if (child instanceof ec2.CfnSecurityGroupIngress) {
        const groupId = logicalIdOf(stack.resolve(child.groupId));
        if (groupId !== undefined && own.includes(groupId)) sources.push(admits(child.cidrIp, child.cidrIpv6, child.sourcePrefixListId));
      }
    }
    if (sources.length > 0 && sources.every((s) => s === 'group')) {
      Annotations.of(node).addError(
        'internet-facing load balancer admits traffic only by security-group reference: clients reach its public addresses from their public IPs, ' +
          'which a security-group reference never matches (every connection times out); make it internal (internetFacing: false) or admit a CIDR',
      );
    }
  }
}

/** Logical id of `{ "Fn::GetAtt": [id, "GroupId"] }` or `{ Ref: id }`; undefined for anything else. */
function logicalIdOf(v: unknown): string | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const getAtt = o['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  if (typeof o.Ref === 'string') return o.Ref;
  return undefined;
}

/** Whether an ingress rule admits addresses (a CIDR or a prefix list) or only a security group. */
function admits(cidrIp: unknown, cidrIpv6: unknown, prefixList: unknown): 'address' | 'group' {
  return cidrIp !== undefined || cidrIpv6 !== undefined || prefixList !== undefined ? 'address' : 'group';
}
