/**
 * When a Failed scaling activity ends the wait for the generators (scripts/platforms/aws/launch-failures.ts). AWS's
 * rules it follows: an activity's StatusCode is final only as Successful, Failed or Cancelled (API Reference,
 * "Activity"); with the default balanced-best-effort distribution a group whose launch fails in one zone launches in
 * another (CapacityDistributionStrategy); a vCPU limit, an instance quota or a refused configuration fails the same
 * in every zone ("Troubleshoot … EC2 instance launch failures").
 */
import type { Activity } from '@aws-sdk/client-auto-scaling';
import { ACTIVITY_SKEW_MS, RETRY_GRACE_MS, failureKind, launchFailureLine, watchLaunch } from '../../scripts/platforms/aws/launch-failures';

const T = Date.UTC(2026, 10, 26, 12, 0);
const CAPACITY = 'We currently do not have sufficient c5.large capacity in the Availability Zone you requested (eu-west-1a). Our system will be working on provisioning additional capacity. You can currently get c5.large capacity by not specifying an Availability Zone in your request or choosing eu-west-1b, eu-west-1c. Launching EC2 instance failed.';
const VCPU = 'You have requested more vCPU capacity than your current vCPU limit of 32 allows for the instance bucket that the specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit. Launching EC2 instance failed.';

const act = (StatusCode: string, at: number, StatusMessage?: string, Description = 'Launching a new EC2 instance: i-0abc') =>
  ({ ActivityId: `${StatusCode}-${at}`, AutoScalingGroupName: 'gen', StatusCode, StartTime: new Date(at), Cause: 'x', Description, ...(StatusMessage ? { StatusMessage } : {}) }) as Activity;

test('the kinds AWS documents: a vCPU limit or an instance quota and a refused configuration no retry fixes; capacity in a zone the group retries past', () => {
  expect(failureKind(VCPU)).toBe('quota');
  expect(failureKind('Your quota allows for 0 more running instance(s). You requested at least 1. Launching EC2 instance failed.')).toBe('quota');
  expect(failureKind('The security group \'sg-0123\' does not exist in VPC \'vpc-0123\'. Launching EC2 instance failed.')).toBe('configuration');
  expect(failureKind('The specified launch template, with template ID lt-0123, does not exist. Launching EC2 instance failed.')).toBe('configuration');
  expect(failureKind(CAPACITY)).toBe('capacity');
  expect(failureKind('Your requested instance type (c5.large) is not supported in your requested Availability Zone (us-east-1e). Launching EC2 instance failed.')).toBe('capacity');
});

test('a vCPU limit stops the wait at once, with the quota fix', () => {
  const v = watchLaunch(undefined, { now: T, inService: 0, since: T, activities: [act('Failed', T + 1000, VCPU)] });
  expect(v.stop).toBe(true);
  expect(launchFailureLine('gen', v.failure!)).toBe(`the generator group gen could not launch instances: ${VCPU} — request a quota increase (Service Quotas) or lower --generators`);
});

test('InsufficientInstanceCapacity in one zone followed by a successful launch in another: the wait goes on', () => {
  const activities = [act('Failed', T + 1000, CAPACITY), act('Successful', T + 4000, undefined, 'Launching a new EC2 instance: i-0def')];
  let watch = watchLaunch(undefined, { now: T + 5000, inService: 0, since: T, activities });
  expect(watch.stop).toBe(false);
  // Long after the grace: the success after the failure still counts as progress.
  watch = watchLaunch(watch.next, { now: T + 10 * RETRY_GRACE_MS, inService: 1, since: T, activities });
  expect(watch).toMatchObject({ stop: false, failure: { kind: 'capacity' } });
});

test('a capacity failure followed by a launch under way, or by more instances in service, is progress', () => {
  const underWay = watchLaunch({ inService: 0, failingSince: T }, { now: T + 3 * RETRY_GRACE_MS, inService: 0, since: T, activities: [act('Failed', T + 1000, CAPACITY), act('PreInService', T + 2000)] });
  expect(underWay).toMatchObject({ stop: false, next: { inService: 0 } });
  expect(underWay.next.failingSince).toBeUndefined();
  const rose = watchLaunch({ inService: 1, failingSince: T }, { now: T + 3 * RETRY_GRACE_MS, inService: 2, since: T, activities: [act('Failed', T + 1000, CAPACITY)] });
  expect(rose.stop).toBe(false);
  // A termination under way brings no instance: not progress.
  const terminating = watchLaunch({ inService: 0, failingSince: T }, { now: T + RETRY_GRACE_MS, inService: 0, since: T, activities: [act('Failed', T + 1000, CAPACITY), act('InProgress', T + 2000, undefined, 'Terminating EC2 instance: i-0old')] });
  expect(terminating.stop).toBe(true);
});

test('a capacity failure with no progress after it stops the wait once it has stood RETRY_GRACE_MS, not before', () => {
  const activities = [act('Failed', T + 1000, CAPACITY), act('Successful', T - 30_000)];
  let v = watchLaunch(undefined, { now: T + 5000, inService: 0, since: T, activities });
  expect(v).toMatchObject({ stop: false, next: { failingSince: T + 5000 } });
  v = watchLaunch(v.next, { now: T + 5000 + RETRY_GRACE_MS - 1, inService: 0, since: T, activities: [act('Failed', T + 60_000, CAPACITY), ...activities] });
  expect(v.stop).toBe(false);
  v = watchLaunch(v.next, { now: T + 5000 + RETRY_GRACE_MS, inService: 0, since: T, activities });
  expect(v.stop).toBe(true);
  expect(launchFailureLine('gen', v.failure!)).toBe(`the generator group gen could not launch instances: ${CAPACITY} — no launch succeeded or began in the 120 s after it, in this zone or another; choose another generatorInstanceType, or retry later`);
});

test('a termination that succeeds after a capacity failure is no progress: it brings no instance', () => {
  const activities = [act('Successful', T + 2000, undefined, 'Terminating EC2 instance: i-0old'), act('Failed', T + 1000, CAPACITY)];
  let v = watchLaunch(undefined, { now: T + 5000, inService: 0, since: T, activities });
  v = watchLaunch(v.next, { now: T + 5000 + RETRY_GRACE_MS, inService: 0, since: T, activities });
  expect(v.stop).toBe(true);
});

test('failures from before the wait (an earlier launch, beyond the clock skew) are not this launch\'s', () => {
  const v = watchLaunch(undefined, { now: T, inService: 0, since: T, activities: [act('Failed', T - ACTIVITY_SKEW_MS - 1, VCPU)] });
  expect(v).toEqual({ next: { inService: 0 }, stop: false });
  expect(watchLaunch(undefined, { now: T, inService: 0, since: T, activities: [act('Failed', T - ACTIVITY_SKEW_MS, VCPU)] }).stop).toBe(true);
});

const PROFILE = 'Value (arn:aws:iam::123456789012:instance-profile/GeneratorProfile) for parameter iamInstanceProfile.arn is invalid. Invalid IAM Instance Profile ARN. Launching EC2 instance failed.';

test('an instance profile EC2 does not see yet (IAM is eventually consistent right after a deploy) is retried past, not fatal at once', () => {
  expect(failureKind(PROFILE)).toBe('propagation');
  expect(failureKind('Value (loadtest-rig) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name. Launching EC2 instance failed.')).toBe('propagation');
  const activities = [act('Failed', T + 1000, PROFILE)];
  let v = watchLaunch(undefined, { now: T + 5000, inService: 0, since: T, activities });
  expect(v).toMatchObject({ stop: false, failure: { kind: 'propagation' } });
  // The group's retry then launches: progress, the wait goes on.
  const retried = watchLaunch(v.next, { now: T + 20_000, inService: 0, since: T, activities: [...activities, act('Successful', T + 15_000, undefined, 'Launching a new EC2 instance: i-0def')] });
  expect(retried.stop).toBe(false);
  // Still refused with no progress past the grace: the wait ends, naming the role and profile.
  v = watchLaunch(v.next, { now: T + 5000 + RETRY_GRACE_MS, inService: 0, since: T, activities });
  expect(v.stop).toBe(true);
  expect(launchFailureLine('gen', v.failure!)).toBe(`the generator group gen could not launch instances: ${PROFILE} — no launch succeeded or began in the 120 s after it, longer than IAM takes to make a new instance profile visible; check the generator stack's instance role and profile (npm run deploy redeploys them)`);
});
