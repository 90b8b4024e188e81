/**
 * What the AWS fleet's parts share (scripts/platforms/aws/fleet.ts and fleet-launch.ts): its options, the
 * context each part runs in, the SSM statuses that mean an agent is gone, and the generator group's members.
 */
import type { Clock, RunStore } from '../../contracts';
import { RigError } from '../../errors';
import type { ProbeSpec } from '../../preflight';
import type { AwsApi } from './clients';

/** Options of the AWS fleet (scripts/platforms/aws/fleet.ts). */
export interface AwsFleetOptions {
  readonly api: AwsApi;
  readonly runId: string;
  readonly store: RunStore;
  /** Repository root (the bundle is load-generators/ plus the scenario folder). */
  readonly root: string;
  readonly asgName: string;
  readonly bucket: string;
  readonly region: string;
  /** GeneratorAgentHome output: where agent.js and its node_modules live on each instance. */
  readonly agentHome: string;
  readonly clock: Clock;
  readonly log: (line: string) => void;
  /** Aborts the wait for instances (Ctrl-C): launch returns without dispatching. */
  readonly signal?: AbortSignal;
  /**
   * Longest wait for the instances to be in service and accept commands, each launch stage.
   * @default fleet-span.ts FLEET_BUDGETS.launchMs (10 minutes: boot, host tuning and the agent install)
   */
  readonly instanceTimeoutMs?: number;
  /**
   * Interval between status polls.
   * @default 2000
   */
  readonly pollMs?: number;
  /**
   * V8 heap limit of each load process, MiB (the capacity model's heapLimitMiB for the instance).
   * @default Node's own default
   */
  readonly heapLimitMiB?: number;
  /**
   * What the first ready generator probes before the group scales out (scripts/preflight.ts); none: no probe.
   */
  readonly preflight?: ProbeSpec;
  /**
   * Longest wait for the probe's answer once its command is sent (the boot may still be finishing).
   * @default fleet-span.ts FLEET_BUDGETS.probeMs (5 minutes)
   */
  readonly preflightTimeoutMs?: number;
  /**
   * SSM executionTimeout of each command, seconds (the run's: fleet-span.ts commandTimeoutSeconds).
   * @default 10_800 (3 hours, the default generatorMaxLifetimeMinutes)
   */
  readonly commandTimeoutSeconds?: number;
}

/** The fleet's options with its defaults applied, and whether it was stopped (or Ctrl-C pressed). */
export interface FleetContext {
  readonly opts: AwsFleetOptions;
  readonly pollMs: number;
  readonly aborted: () => boolean;
}

/**
 * How much of a command's stderr GetCommandInvocation returns inline: "the first 8,000 characters written by the
 * plugin to stderr" (SSM API Reference, GetCommandInvocation, StandardErrorContent); the rest is only in the S3 output.
 */
export const SSM_INLINE_STDERR_CHARS = 8000;

/**
 * Lines of a failed command's stderr that say nothing of why: the SSM agent's own last line (`failed to run commands:
 * exit status N`, appended to the command's stderr), an uncaught error's stack frames (`at …`) and Node's version line
 * after them (`Node.js vNN`), and the caret Node prints under the source line it quotes.
 */
const NOISE_LINES: readonly RegExp[] = [/^failed to run commands: exit status \d+$/, /^at\s/, /^Node\.js v\d/, /^\^+$/];

/** A line that states the failure: the agent's or the probe's own (`agent: …`, `preflight: …`), or one naming an Error. */
const ERROR_LINE = /^(agent|preflight):|\b\w*Error\b/;

/** Longest line a failure line quotes, characters (one line of a bundled processor's source can be megabytes). */
export const FAILURE_DETAIL_LINE_CHARS = 300;

/**
 * What a failure line quotes of a failed command's inline stderr, on one line: up to `lines` non-blank lines, trimmed,
 * without {@link NOISE_LINES}, ending at the last error-shaped line when there is one (else at the last line), each cut
 * to {@link FAILURE_DETAIL_LINE_CHARS}. The commands keep their own output's stderr under {@link SSM_INLINE_STDERR_CHARS}
 * (bundle.ts: the agent's and the probe's stderr are cut to their last characters), so the last lines inline are the
 * last lines written.
 */
export function failureDetail(standardErrorContent: string | undefined, lines: number): string {
  const kept = (standardErrorContent ?? '').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !NOISE_LINES.some((re) => re.test(l)));
  let end = kept.length;
  while (end > 0 && !ERROR_LINE.test(kept[end - 1] as string)) end--;
  if (end === 0) end = kept.length;
  const cut = (l: string) => (l.length > FAILURE_DETAIL_LINE_CHARS ? `${l.slice(0, FAILURE_DETAIL_LINE_CHARS - 1)}…` : l);
  return kept.slice(Math.max(0, end - lines), end).map(cut).join(' | ');
}

/** SSM command statuses after which the agent is no longer running. */
export const FAILED_STATUSES = new Set(['Cancelled', 'Cancelling', 'Failed', 'TimedOut', 'Undeliverable', 'Terminated', 'DeliveryTimedOut', 'ExecutionTimedOut', 'InvalidPlatform', 'AccessDenied']);

/** The generator group's in-service instances, sorted by id, and the rest by lifecycle state. */
export async function groupInstances(api: AwsApi, asgName: string): Promise<{ inService: string[]; states: Map<string, string>; desired?: number }> {
  const res = await api.describeAutoScalingGroups({ AutoScalingGroupNames: [asgName] });
  const group = res.AutoScalingGroups?.[0];
  if (!group) throw new RigError(`the generator group ${asgName} does not exist; the stacks are not deployed (or cdk-outputs.json is stale): run \`npm run deploy\``);
  const states = new Map<string, string>();
  for (const i of group.Instances ?? []) if (i.InstanceId) states.set(i.InstanceId, `${i.LifecycleState ?? '?'}${i.HealthStatus && i.HealthStatus !== 'Healthy' ? `/${i.HealthStatus}` : ''}`);
  const inService = [...states].filter(([, s]) => s === 'InService').map(([id]) => id).sort();
  return { inService, states, desired: group.DesiredCapacity };
}
