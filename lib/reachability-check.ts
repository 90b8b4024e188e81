import { Annotations, IAspect, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { IConstruct } from 'constructs';
import { RegionalGeneratorStack } from './generator-region-stack';

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

/**
 * Fails `cdk synth` (one error line on the regional stack) when generators in another region cannot reach the
 * target: they have no fixed egress address, or the app's target has no internet-facing load balancer whose
 * security group admits every one of their NAT addresses by CIDR.
 *
 * The AWS rules this relies on: a security-group rule that references a security group matches only traffic from
 * that group's network interfaces in the same VPC (or a peered VPC) — traffic from another region arrives over
 * the internet from a public address, so only an address rule on an internet-facing load balancer can admit it;
 * and an internal load balancer has no public address at all. The addresses cross regions as
 * `Fn::GetStackOutput` of the regional stack's `EgressAddress<i>` outputs; this rule looks for exactly those.
 * With no load balancer in the app (targetKind none) the target is the user's own: nothing can be judged.
 */
export class RemoteRegionReachabilityCheck implements IAspect {
  public visit(node: IConstruct): void {
    if (!(node instanceof RegionalGeneratorStack)) return;
    const region = node.generatorRegion;
    if (node.egressOutputKeys.length === 0) {
      Annotations.of(node).addError(`generators in ${region} have no fixed egress address (no NAT Elastic IP), so no target in another region can admit them; deploy the regional stack with egress 'nat'`);
      return;
    }
    const balancers = node.node.root.node.findAll().filter((c): c is elbv2.CfnLoadBalancer => c instanceof elbv2.CfnLoadBalancer);
    if (balancers.length === 0) return;
    const admitsAll = balancers.some((lb) => {
      const scheme = lb.scheme ?? 'internet-facing';
      if (Token.isUnresolved(scheme) || scheme !== 'internet-facing') return false;
      const admitted = admittedStackOutputs(lb);
      return node.egressOutputKeys.every((key) => admitted.has(`${node.stackName}/${key}`));
    });
    if (!admitsAll) {
      Annotations.of(node).addError(
        `generators in ${region} cannot reach the target: no internet-facing load balancer admits their NAT addresses (${node.egressOutputKeys.join(', ')} of ${node.stackName}) by CIDR; ` +
          'a security-group reference or an internal load balancer never matches traffic from another region — admit them (TargetStackProps.remoteGeneratorCidrs) or drop the region from generatorRegions',
      );
    }
  }
}

/** `StackName/OutputName` of every Fn::GetStackOutput in the ingress rules of the load balancer's own security groups. */
function admittedStackOutputs(lb: elbv2.CfnLoadBalancer): Set<string> {
  const stack = Stack.of(lb);
  const own = ((stack.resolve(lb.securityGroups) ?? []) as unknown[]).map(logicalIdOf).filter((id): id is string => id !== undefined);
  const found = new Set<string>();
  const collect = (cidr: unknown): void => {
    for (const ref of stackOutputsIn(cidr)) found.add(ref);
  };
  for (const child of stack.node.findAll()) {
    if (child instanceof ec2.CfnSecurityGroup && own.includes(stack.resolve(child.logicalId) as string)) {
      for (const r of (stack.resolve(child.securityGroupIngress) ?? []) as Array<Record<string, unknown>>) collect(r.cidrIp ?? r.CidrIp);
    }
    if (child instanceof ec2.CfnSecurityGroupIngress) {
      const groupId = logicalIdOf(stack.resolve(child.groupId));
      if (groupId !== undefined && own.includes(groupId)) collect(stack.resolve(child.cidrIp));
    }
  }
  return found;
}

/** Every `{ "Fn::GetStackOutput": { StackName, OutputName } }` inside a resolved CloudFormation value. */
function stackOutputsIn(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(stackOutputsIn);
  if (!v || typeof v !== 'object') return [];
  const o = v as Record<string, unknown>;
  const out = o['Fn::GetStackOutput'] as Record<string, unknown> | undefined;
  if (out && typeof out.StackName === 'string' && typeof out.OutputName === 'string') return [`${out.StackName}/${out.OutputName}`];
  return Object.values(o).flatMap(stackOutputsIn);
}
