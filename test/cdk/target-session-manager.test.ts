/** Session Manager on the EC2 target is an opt-in (context targetSessionManager): off, its role has no SSM policy. */
import { Template } from 'aws-cdk-lib/assertions';
import { buildTestRig, targetOf } from './helpers';

function targetRoleManagedPolicies(context: Parameters<typeof buildTestRig>[0]): string[] {
  const t = Template.fromStack(targetOf(buildTestRig(context).rig));
  const roles = Object.values(t.findResources('AWS::IAM::Role')).filter((r) => JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('ec2.amazonaws.com'));
  expect(roles).toHaveLength(1);
  return (roles[0]?.Properties.ManagedPolicyArns ?? []).map((a: unknown) => JSON.stringify(a));
}

test('by default the target instances have no Session Manager (no AmazonSSMManagedInstanceCore)', () => {
  expect(targetRoleManagedPolicies({}).filter((a) => a.includes('AmazonSSMManagedInstanceCore'))).toEqual([]);
});

test('targetSessionManager=true adds it; a value other than true/false is refused with the allowed values', () => {
  expect(targetRoleManagedPolicies({ targetSessionManager: 'true' }).filter((a) => a.includes('AmazonSSMManagedInstanceCore'))).toHaveLength(1);
  expect(() => buildTestRig({ targetSessionManager: 'yes' })).toThrow(/targetSessionManager.*true \| false/);
});
