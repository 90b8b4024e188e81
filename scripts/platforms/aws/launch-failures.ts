/**
 * When a Failed scaling activity ends the fleet's wait for its instances. Pure: the wait (fleet-launch.ts) feeds it
 * each poll's group activities and in-service count.
 *
 * The rules relied on (AWS documentation):
 * - EC2 Auto Scaling API Reference, "Activity": StatusCode Successful, Failed and Cancelled are final; every other
 *   code (PendingSpotBidPlacement, WaitingFor…, PreInService, InProgress, MidLifecycleAction, …) is a launch or
 *   termination still under way.
 * - AWS::AutoScaling::AutoScalingGroup AvailabilityZoneDistribution, CapacityDistributionStrategy: with the default
 *   balanced-best-effort, "if launches fail in an Availability Zone, Auto Scaling will attempt to launch in another
 *   healthy Availability Zone instead" — InsufficientInstanceCapacity in one zone is often followed by a successful
 *   launch in another, and the group keeps retrying until the desired capacity is met.
 * - EC2 Auto Scaling User Guide, "Troubleshoot Amazon EC2 Auto Scaling: EC2 instance launch failures": the
 *   StatusMessage of a vCPU limit ("You have requested more vCPU capacity than your current vCPU limit of …"), an
 *   instance quota ("Your quota allows for 0 more running instance(s)"), or a configuration AWS refuses (a resource
 *   that "does not exist", a parameter that "is invalid", "not authorized") is the same in every zone and on every
 *   retry: no retry fixes it — except an instance profile EC2 does not see yet.
 * - IAM User Guide, "Troubleshoot IAM: Changes that I make are not always immediately visible": IAM is eventually
 *   consistent, and a role or instance profile just created (a `cdk deploy` moments before the run) may be refused by
 *   EC2 as "Invalid IAM Instance Profile name/ARN" until it has propagated; the group's own retries then launch.
 */
import type { Activity } from '@aws-sdk/client-auto-scaling';

/** A Failed activity this old before the wait began still counts (the local clock against AWS's). */
export const ACTIVITY_SKEW_MS = 60_000;

/**
 * How long a failure the group may retry past (capacity in one zone) may stand with no progress after it — no later
 * launch under way or successful, no more instances in service — before the wait ends.
 */
export const RETRY_GRACE_MS = 120_000;

/** Activity status codes that are final (API Reference, "Activity"); any other is under way. */
const FINAL = new Set(['Successful', 'Failed', 'Cancelled']);

/**
 * What a failure's StatusMessage says of it: no retry fixes `quota` or `configuration`; the group may retry past
 * `capacity` (another zone, later) and `propagation` (an instance profile IAM has not yet made visible to EC2).
 */
export type LaunchFailureKind = 'quota' | 'configuration' | 'capacity' | 'propagation';

/** A Failed activity's kind, from its StatusMessage. Pure. */
export function failureKind(message: string): LaunchFailureKind {
  if (/vCPU (capacity|limit)|VcpuLimitExceeded|InstanceLimitExceeded|quota allows for \d+ more/i.test(message)) return 'quota';
  if (/Invalid IAM Instance Profile/i.test(message)) return 'propagation';
  if (/not authorized|does not exist|is invalid|InvalidParameter|UnauthorizedOperation/i.test(message)) return 'configuration';
  return 'capacity';
}

/** What the wait remembers between polls. */
export interface LaunchWatch {
  /** Instances in service at the last poll. */
  readonly inService: number;
  /** Since when a retryable failure has stood with no progress after it (this machine's clock). */
  readonly failingSince?: number;
}

/** One poll: the time, the group's in-service count and its recent activities. */
export interface LaunchObservation {
  readonly now: number;
  readonly inService: number;
  readonly activities: readonly Activity[];
  /** When the wait began: older failures are an earlier launch's (less {@link ACTIVITY_SKEW_MS}). */
  readonly since: number;
}

/** The verdict of one poll: whether to stop, and the newest failure (one line) with its kind. */
export interface LaunchVerdict {
  readonly next: LaunchWatch;
  readonly failure?: { readonly message: string; readonly kind: LaunchFailureKind };
  readonly stop: boolean;
}

const startOf = (a: Activity) => a.StartTime?.getTime() ?? 0;

/**
 * Stops the wait on the newest Failed activity since the wait began only when no retry fixes it (quota,
 * configuration), or when nothing has progressed for {@link RETRY_GRACE_MS} since it: no launch under way, none
 * successful after it, and no more instances in service than at the poll before. Pure.
 */
export function watchLaunch(prev: LaunchWatch | undefined, obs: LaunchObservation): LaunchVerdict {
  const recent = obs.activities.filter((a) => startOf(a) >= obs.since - ACTIVITY_SKEW_MS).sort((a, b) => startOf(b) - startOf(a));
  const failed = recent.find((a) => a.StatusCode === 'Failed');
  if (!failed) return { next: { inService: obs.inService }, stop: false };
  const message = (failed.StatusMessage ?? failed.Description ?? 'no message').replace(/\s+/g, ' ').trim();
  const failure = { message, kind: failureKind(message) };
  if (failure.kind === 'quota' || failure.kind === 'configuration') return { next: { inService: obs.inService }, failure, stop: true };
  // A launch under way (a termination under way — "Terminating EC2 instance: …" — brings no instance).
  const launch = (a: Activity) => !/^Terminating/i.test(a.Description ?? '');
  const underWay = (a: Activity) => !FINAL.has(String(a.StatusCode)) && launch(a);
  const progressed =
    (prev !== undefined && obs.inService > prev.inService) ||
    recent.some((a) => underWay(a) || (startOf(a) > startOf(failed) && a.StatusCode === 'Successful' && launch(a)));
  if (progressed) return { next: { inService: obs.inService }, failure, stop: false };
  const failingSince = prev?.failingSince ?? obs.now;
  return { next: { inService: obs.inService, failingSince }, failure, stop: obs.now - failingSince >= RETRY_GRACE_MS };
}

/** The one line of a failure that stopped the wait: what AWS said, and the fix for its kind. Pure. */
export function launchFailureLine(groupName: string, failure: NonNullable<LaunchVerdict['failure']>): string {
  const fix = {
    quota: 'request a quota increase (Service Quotas) or lower --generators',
    configuration: 'check the generator launch template, its subnets and its instance role (npm run deploy redeploys them)',
    capacity: `no launch succeeded or began in the ${RETRY_GRACE_MS / 1000} s after it, in this zone or another; choose another generatorInstanceType, or retry later`,
    propagation: `no launch succeeded or began in the ${RETRY_GRACE_MS / 1000} s after it, longer than IAM takes to make a new instance profile visible; check the generator stack's instance role and profile (npm run deploy redeploys them)`,
  }[failure.kind];
  return `the generator group ${groupName} could not launch instances: ${failure.message} — ${fix}`;
}
