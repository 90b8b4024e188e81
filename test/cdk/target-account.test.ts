import { Template } from 'aws-cdk-lib/assertions';
import { buildTestRig, targetOf } from './helpers';

// cdk-outputs.json recorded no account: `npm run teardown` with another account's credentials found nothing, destroyed
// nothing and exited 0. The target stack now records its account (AWS::AccountId, resolved at deploy).
test('the target stack outputs the account it is deployed in', () => {
  const { rig } = buildTestRig({ targetKind: 'ec2' });
  Template.fromStack(targetOf(rig)).hasOutput('Account', { Value: { Ref: 'AWS::AccountId' } });
});

// With targetKind=none there is no target stack: the generator stacks (home and every other region) record it too.
test('every generator stack outputs the account, so teardown checks it with targetKind=none too', () => {
  const { rig } = buildTestRig({ targetKind: 'none', generatorRegions: 'eu-west-2:2,us-east-1:1' });
  expect(rig.target).toBeUndefined();
  expect(rig.regional.length).toBeGreaterThan(0);
  for (const stack of [rig.generators, ...rig.regional]) Template.fromStack(stack).hasOutput('Account', { Value: { Ref: 'AWS::AccountId' } });
});
