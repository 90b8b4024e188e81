import { App, Aspects, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { InternetFacingReachabilityCheck } from '../../lib/reachability-check';
import { buildTestRig } from './helpers';

const MESSAGE = /internet-facing load balancer admits traffic only by security-group reference/;

/** A VPC, a client security group in another stack, and a load balancer admitting what `admit` adds. */
function albStack(internetFacing: boolean, admit: (sg: ec2.SecurityGroup, clients: ec2.ISecurityGroup) => void): Stack {
  const app = new App();
  const net = new Stack(app, 'Net');
  const vpc = new ec2.Vpc(net, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'Public', subnetType: ec2.SubnetType.PUBLIC }] });
  const clients = new ec2.SecurityGroup(net, 'Clients', { vpc });
  const stack = new Stack(app, 'Lb');
  const sg = new ec2.SecurityGroup(stack, 'LbSg', { vpc, allowAllOutbound: false });
  admit(sg, clients);
  new elbv2.ApplicationLoadBalancer(stack, 'Alb', { vpc, internetFacing, vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC }, securityGroup: sg });
  Aspects.of(app).add(new InternetFacingReachabilityCheck());
  return stack;
}

// AWS rule relied on: a security-group reference matches the referenced group's PRIVATE addresses; traffic
// to an internet-facing load balancer arrives from the client's public IP, so no reference ever matches it.
describe('synth rule: internet-facing load balancer guarded only by a security-group reference', () => {
  test('fails the synth with one line when an internet-facing ALB admits only a security group', () => {
    const stack = albStack(true, (sg, clients) => sg.addIngressRule(clients, ec2.Port.tcp(80)));
    Annotations.fromStack(stack).hasError('/Lb/Alb/Resource', Match.stringLikeRegexp(MESSAGE.source));
    const errors = Annotations.fromStack(stack).findError('*', Match.anyValue());
    expect(errors).toHaveLength(1);
    expect(String(errors[0]?.entry.data)).not.toContain('\n');
  });

  test('passes an internal ALB admitting only a security group (the reference matches inside the VPC)', () => {
    const stack = albStack(false, (sg, clients) => sg.addIngressRule(clients, ec2.Port.tcp(80)));
    Annotations.fromStack(stack).hasNoError('*', Match.anyValue());
  });

  test('passes an internet-facing ALB that also admits a CIDR', () => {
    const stack = albStack(true, (sg, clients) => {
      sg.addIngressRule(clients, ec2.Port.tcp(80));
      sg.addIngressRule(ec2.Peer.ipv4('203.0.113.7/32'), ec2.Port.tcp(80));
    });
    Annotations.fromStack(stack).hasNoError('*', Match.anyValue());
  });

  test('the rig itself passes, with and without the operator ALB, for both target kinds', () => {
    for (const context of [{ targetKind: 'ec2' }, { targetKind: 'fargate' }, { targetKind: 'ec2', operatorCidr: '203.0.113.7/32' }, { targetKind: 'fargate', operatorCidr: '203.0.113.7/32' }]) {
      const { rig } = buildTestRig(context);
      for (const stack of [rig.network, rig.target, rig.generators]) if (stack) Annotations.fromStack(stack).hasNoError('*', Match.stringLikeRegexp(MESSAGE.source));
    }
  });
});
