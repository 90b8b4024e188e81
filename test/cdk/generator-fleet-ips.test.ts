import { Match, Template } from 'aws-cdk-lib/assertions';
import { parseRigConfig } from '../../lib/config';
import { buildTestRig } from './helpers';

const interfaceOf = (t: Template) => {
  const lts = Object.values(t.findResources('AWS::EC2::LaunchTemplate'));
  expect(lts).toHaveLength(1);
  return (lts[0]?.Properties.LaunchTemplateData.NetworkInterfaces as Array<Record<string, unknown>>)[0] ?? {};
};

describe('generator secondary private IPs', () => {
  test('default: one secondary IP on the primary interface, which keeps its public address and security group', () => {
    const t = Template.fromStack(buildTestRig({}).rig.generators);
    t.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({
        NetworkInterfaces: [Match.objectLike({ DeviceIndex: 0, AssociatePublicIpAddress: true, SecondaryPrivateIpAddressCount: 1, Groups: Match.anyValue() })],
      }),
    });
  });

  test('generatorSecondaryIps from context sets the count; 0 leaves the interface without secondary IPs', () => {
    expect(interfaceOf(Template.fromStack(buildTestRig({ generatorSecondaryIps: 3 }).rig.generators)).SecondaryPrivateIpAddressCount).toBe(3);
    const none = interfaceOf(Template.fromStack(buildTestRig({ generatorSecondaryIps: 0 }).rig.generators));
    expect(none.SecondaryPrivateIpAddressCount).toBeUndefined();
    expect(none.AssociatePublicIpAddress).toBe(true);
  });

  test('the stack outputs the instance type and secondary-IP count the capacity model plans with', () => {
    const t = Template.fromStack(buildTestRig({ generatorSecondaryIps: 2, generatorInstanceType: 'm5.large' }).rig.generators);
    t.hasOutput('GeneratorInstanceType', { Value: 'm5.large' });
    t.hasOutput('GeneratorSecondaryIps', { Value: '2' });
  });

  test('config: default 1, whole numbers 0..49 only', () => {
    expect(parseRigConfig({}).generatorSecondaryIps).toBe(1);
    expect(() => parseRigConfig({ generatorSecondaryIps: -1 })).toThrow(/generatorSecondaryIps/);
    expect(() => parseRigConfig({ generatorSecondaryIps: 1.5 })).toThrow(/generatorSecondaryIps/);
    expect(() => parseRigConfig({ generatorSecondaryIps: 50 })).toThrow(/generatorSecondaryIps/);
  });

  // EC2 User Guide, "Maximum IP addresses per network interface": c5.large has 10 per interface (the primary and 9
  // secondary), c5.xlarge 15. More secondary IPs than that on the launch template's interface and EC2 refuses every
  // launch (moto does not model the limit), so synth refuses it for the types the rig knows.
  test('config: more secondary IPs than one interface of the generator type holds is refused at synth, naming the most it takes', () => {
    expect(parseRigConfig({ generatorSecondaryIps: 9 }).generatorSecondaryIps).toBe(9);
    expect(() => parseRigConfig({ generatorSecondaryIps: 10 })).toThrow(
      'context "generatorSecondaryIps": generatorSecondaryIps 10 does not fit c5.large: it has 10 private IPv4 addresses per network interface, the primary and at most 9 secondary, so EC2 would refuse to launch every generator; use -c generatorSecondaryIps=9 or fewer',
    );
    expect(parseRigConfig({ generatorSecondaryIps: 14, generatorInstanceType: 'c5.xlarge' }).generatorSecondaryIps).toBe(14);
    // A type the rig has no figures for is checked by the CLI against EC2 DescribeInstanceTypes instead.
    expect(parseRigConfig({ generatorSecondaryIps: 20, generatorInstanceType: 'c6a.2xlarge' }).generatorSecondaryIps).toBe(20);
  });
});
