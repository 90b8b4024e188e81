import { Template } from 'aws-cdk-lib/assertions';
import { buildTestRig, targetOf } from './helpers';

// cdk-outputs.json recorded no account: `npm run teardown` with another account's credentials found nothing, destroyed
// nothing and exited 0. The target stack now records its account (AWS::AccountId, resolved at deploy).
test('the target stack outputs the account it is deployed in', () => {
  const { rig } = buildTestRig({ targetKind: 'ec2' });
  Template.fromStack(targetOf(rig)).hasOutput('Account', { Value: { Ref: 'AWS::AccountId' } });
});
