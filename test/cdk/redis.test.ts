import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildTestRig, targetOf } from './helpers';

describe('pub/sub across instances', () => {
  test('more than one target instance gets an encrypted in-VPC Redis', () => {
    const t = Template.fromStack(targetOf(buildTestRig({ maxCapacity: 4 }).rig));
    t.hasResourceProperties('AWS::ElastiCache::ReplicationGroup', {
      Engine: 'redis', TransitEncryptionEnabled: true, AtRestEncryptionEnabled: true, Port: 6390,
    });
  });

  test('Redis is reachable only from the target security group', () => {
    const t = Template.fromStack(targetOf(buildTestRig({ maxCapacity: 4 }).rig));
    const redisSg = Object.keys(t.findResources('AWS::EC2::SecurityGroup', { Properties: { GroupDescription: Match.stringLikeRegexp('Redis') } }))[0];
    const ingress = Object.values(t.findResources('AWS::EC2::SecurityGroupIngress', { Properties: { GroupId: { 'Fn::GetAtt': [redisSg, 'GroupId'] } } }));
    expect(ingress).toHaveLength(1);
    expect(ingress[0]?.Properties).toMatchObject({ FromPort: 6390, ToPort: 6390, SourceSecurityGroupId: { 'Fn::GetAtt': [expect.stringMatching(/^Ec2SecurityGroup/), 'GroupId'] } });
  });

  test('a single-instance target has no Redis', () => {
    const t = Template.fromStack(targetOf(buildTestRig({ maxCapacity: 1 }).rig));
    t.resourceCountIs('AWS::ElastiCache::ReplicationGroup', 0);
  });
});
