import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildTestRig } from './helpers';

describe('network', () => {
  let t: Template;
  beforeAll(() => {
    t = Template.fromStack(buildTestRig({}).rig.network);
  });

  test('two public subnets and no NAT gateway', () => {
    t.resourceCountIs('AWS::EC2::Subnet', 2);
    t.allResourcesProperties('AWS::EC2::Subnet', { MapPublicIpOnLaunch: true });
    t.resourceCountIs('AWS::EC2::NatGateway', 0);
    t.resourceCountIs('AWS::EC2::InternetGateway', 1);
  });

  test('VPC flow logs capture rejected traffic (the default) to a log group deleted on teardown', () => {
    t.hasResourceProperties('AWS::EC2::FlowLog', { ResourceType: 'VPC', TrafficType: 'REJECT', LogDestinationType: 'cloud-watch-logs' });
    t.hasResource('AWS::Logs::LogGroup', { DeletionPolicy: 'Delete' });
  });

  test('the generators\' security group has no inbound rules at all', () => {
    t.hasResourceProperties('AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('generators'),
      SecurityGroupIngress: Match.absent(),
    });
    const { rig } = buildTestRig({});
    for (const stack of [rig.network, rig.target, rig.generators, ...rig.regional]) {
      if (!stack) continue;
      const ingress = Object.values(Template.fromStack(stack).findResources('AWS::EC2::SecurityGroupIngress'));
      for (const i of ingress) expect(JSON.stringify(i.Properties.GroupId)).not.toMatch(/GeneratorSecurityGroup/);
    }
  });
});
