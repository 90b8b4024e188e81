import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Duration, Token, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { AwsSolutionsChecks } from 'cdk-nag';
import { parseRigConfig } from '../../lib/config';
import { RegionalGeneratorStack } from '../../lib/generator-region-stack';
import { buildRig } from '../../bin/rig';
import { targetOf } from './helpers';

process.env.JSII_DEPRECATED = 'quiet';
// cdk.json's setting: cross-stack references are Fn::GetStackOutput, not exports.
const CDK_JSON_CONTEXT = { '@aws-cdk/core:defaultCrossStackReferences': 'weak' };

function twoRegions(extra: Record<string, unknown> = {}) {
  const app = new App({ context: CDK_JSON_CONTEXT, outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'rig-regions-')) });
  const rig = buildRig(app, parseRigConfig({ generatorRegions: 'eu-west-2:3,us-east-1:1', ...extra }));
  return { app, rig };
}

describe('generatorRegions: one generator stack per extra region', () => {
  test('default: one region, env-agnostic stacks, no regional stack (nothing changes for existing users); one region listed: pinned to it', () => {
    const app = new App({ context: CDK_JSON_CONTEXT });
    const rig = buildRig(app, parseRigConfig({}));
    expect(rig.regional).toEqual([]);
    expect(Token.isUnresolved(rig.generators.region)).toBe(true);
    expect(Template.fromStack(rig.generators).findOutputs('RegionWeight')).toEqual({});
    // One region listed: the home stacks are pinned to it (what was asked), still no regional stack.
    const one = buildRig(new App({ context: CDK_JSON_CONTEXT }), parseRigConfig({ generatorRegions: 'eu-west-2' }));
    expect([one.network.region, one.generators.region, one.regional.length]).toEqual(['eu-west-2', 'eu-west-2', 0]);
  });

  test('two regions: home stacks pinned to the first region, LoadTestRig-Generators-us-east-1 in us-east-1 with the same fleet tuning', () => {
    const { rig } = twoRegions({ generatorInstanceType: 'c5.xlarge', generatorSecondaryIps: 2, maxGenerators: 7 });
    expect([rig.network.region, targetOf(rig).region, rig.generators.region]).toEqual(['eu-west-2', 'eu-west-2', 'eu-west-2']);
    expect(rig.regional.map((s) => [s.stackName, s.region])).toEqual([['LoadTestRig-Generators-us-east-1', 'us-east-1']]);
    const home = Template.fromStack(rig.generators);
    const remote = Template.fromStack(rig.regional[0]!);
    for (const t of [home, remote]) {
      t.hasResourceProperties('AWS::EC2::LaunchTemplate', Match.objectLike({ LaunchTemplateData: Match.objectLike({ InstanceType: 'c5.xlarge' }) }));
      t.hasResourceProperties('AWS::AutoScaling::AutoScalingGroup', Match.objectLike({ MinSize: '0', MaxSize: '7' }));
      t.hasOutput('GeneratorSecondaryIps', { Value: '2' });
    }
    home.hasOutput('RegionWeight', { Value: '3' });
    home.hasOutput('RemoteGeneratorRegions', { Value: 'us-east-1' });
    remote.hasOutput('RegionWeight', { Value: '1' });
    // The regional fleet sits behind NAT: private subnets, no public IP of its own, two NAT gateways with the stack's EIPs.
    const lt = Object.values(remote.findResources('AWS::EC2::LaunchTemplate'))[0] as { Properties: { LaunchTemplateData: { NetworkInterfaces: Array<{ AssociatePublicIpAddress: boolean }> } } };
    expect(lt.Properties.LaunchTemplateData.NetworkInterfaces[0]!.AssociatePublicIpAddress).toBe(false);
    remote.resourceCountIs('AWS::EC2::NatGateway', 2);
    remote.resourceCountIs('AWS::EC2::EIP', 2);
    remote.hasOutput('EgressAddress0', { Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('NatAddress0'), 'PublicIp'] } });
    remote.hasOutput('ResultsBucketName', Match.anyValue());
  });

  // AWS rule: a security-group reference matches only interfaces in the same (or a peered) VPC, so generators in
  // another region are admitted by their NAT addresses, as /32s, on an internet-facing load balancer.
  test('the target admits each NAT address of the other region as a /32 read with Fn::GetStackOutput, on an internet-facing ALB; it deploys after that region', () => {
    const { rig } = twoRegions();
    const target = Template.fromStack(targetOf(rig));
    for (const key of ['EgressAddress0', 'EgressAddress1']) {
      target.hasResourceProperties('AWS::EC2::SecurityGroup', {
        SecurityGroupIngress: Match.arrayWith([Match.objectLike({
          FromPort: 80,
          CidrIp: { 'Fn::Join': ['', [{ 'Fn::GetStackOutput': { StackName: 'LoadTestRig-Generators-us-east-1', Region: 'us-east-1', OutputName: key } }, '/32']] },
        })]),
      });
    }
    target.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', { Scheme: 'internet-facing' });
    target.hasOutput('PublicTargetUrl', Match.anyValue());
    expect(targetOf(rig).dependencies.map((s) => s.stackName)).toContain('LoadTestRig-Generators-us-east-1');
  });

  // AWS rule: AWS/ApplicationELB metrics are per load balancer (the LoadBalancer dimension; ELB User Guide, "CloudWatch
  // metrics for your Application Load Balancer"), and the other regions' generators load the internet-facing one.
  test('the internet-facing ALB the other regions load is an output and on the dashboard beside the first (its metrics are its own)', () => {
    const { rig } = twoRegions();
    const target = Template.fromStack(targetOf(rig));
    target.hasOutput('PublicLoadBalancerFullName', { Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^OperatorLoadBalancer'), 'LoadBalancerFullName'] } });
    const dashboards = Object.values(Template.fromStack(rig.generators).findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboards[0]?.Properties.DashboardBody);
    for (const label of ['active', 'new', 'target 5xx', 'p99']) expect(body).toContain(`${label} (other regions' ALB)`);
    // Those series read the internet-facing ALB (its full name, published across regions from the target stack).
    expect(body.match(/OutputName[^}]*OperatorLoadBalancer[A-Za-z0-9]*LoadBalancerFullName/g)?.length).toBe(6);
    // One region: no second load balancer, no such output or series.
    const app = new App({ context: CDK_JSON_CONTEXT });
    const one = buildRig(app, parseRigConfig({}));
    expect(Object.keys(Template.fromStack(targetOf(one)).findOutputs('PublicLoadBalancerFullName'))).toEqual([]);
    expect(JSON.stringify(Template.fromStack(one.generators).toJSON())).not.toContain('other regions\' ALB');
  });

  test('the other region\'s private subnets reach S3 through a gateway endpoint, not the NAT gateways (billed per GB); the home VPC (public subnets) has none', () => {
    const { rig } = twoRegions();
    const remote = Template.fromStack(rig.regional[0]!);
    const endpoints = Object.values(remote.findResources('AWS::EC2::VPCEndpoint')).map((r) => r.Properties);
    expect(endpoints).toHaveLength(1);
    expect(endpoints[0]).toMatchObject({ VpcEndpointType: 'Gateway' });
    expect(JSON.stringify(endpoints[0].ServiceName)).toMatch(/com\.amazonaws\..*\.s3/);
    // On the generators' route tables (one per private subnet, two zones), among the VPC's.
    expect(endpoints[0].RouteTableIds).toEqual(expect.arrayContaining([{ Ref: expect.stringMatching(/GeneratorsSubnet1RouteTable/) }, { Ref: expect.stringMatching(/GeneratorsSubnet2RouteTable/) }]));
    expect(Object.keys(Template.fromStack(rig.network).findResources('AWS::EC2::VPCEndpoint'))).toEqual([]);
  });

  test('cdk-nag: two regions have no unacknowledged finding', () => {
    const { app } = twoRegions();
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });
});

describe('synth rule: a remote region that cannot reach the target', () => {
  const remoteProps = { region: 'us-east-1', weight: 1, instanceType: new ec2.InstanceType('c5.large'), maxGenerators: 2, maxLifetime: Duration.hours(1), resultsExpiryDays: 1 };

  // AWS rule: a security-group rule referencing a security group never matches traffic from another region or VPC
  // (without peering); only a CIDR rule for the region's NAT addresses on an internet-facing load balancer admits it.
  test('fails the synth with one line when the target does not admit the region\'s NAT addresses (a security-group reference never matches another region)', () => {
    // The target of a one-region rig admits no other region; a regional stack added beside it cannot reach it.
    const app = new App({ context: CDK_JSON_CONTEXT });
    buildRig(app, parseRigConfig({ targetKind: 'ec2', operatorCidr: '203.0.113.7/32' }));
    const remote = new RegionalGeneratorStack(app, 'LoadTestRig-Generators-us-east-1', remoteProps);
    const errors = Annotations.fromStack(remote).findError('*', Match.anyValue());
    expect(errors).toHaveLength(1);
    const line = String(errors[0]?.entry.data);
    expect(line).toMatch(/^generators in us-east-1 cannot reach the target: no internet-facing load balancer admits their NAT addresses \(EgressAddress0, EgressAddress1 of LoadTestRig-Generators-us-east-1\)/);
    expect(line).not.toContain('\n');
  });

  test('passes the rig\'s own two-region shape, and a bring-your-own target (nothing to judge)', () => {
    const { rig } = twoRegions();
    Annotations.fromStack(rig.regional[0]!).hasNoError('*', Match.anyValue());
    const none = twoRegions({ targetKind: 'none' });
    Annotations.fromStack(none.rig.regional[0]!).hasNoError('*', Match.anyValue());
  });
});
