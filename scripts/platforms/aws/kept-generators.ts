/**
 * Generators an earlier run left in service (`--keep-generators`), and what a new run must respect about them.
 *
 * - The safety net scales the whole group to 0 once ANY instance's EC2 launch time is older than
 *   generatorMaxLifetimeMinutes (lib/safety-net/index.js). A kept instance has been up since the earlier run, so the
 *   span this run needs counts from its launch, not from this run's start: {@link checkKeptGenerators} refuses a
 *   run the safety net would stop mid-way (exit 2, nothing scaled).
 * - Lowering an auto-scaling group's desired capacity terminates instances (EC2 Auto Scaling User Guide, "Control
 *   which Auto Scaling instances terminate during scale in"): the preflight does not lower a kept fleet to one
 *   instance (fleet-launch.ts), or --keep-generators would save no boot at all.
 *
 * When each instance was launched is read from the group's scaling activities ("Launching a new EC2 instance: i-…",
 * their StartTime, a few seconds before the instance's own launch time: the safer side), which the operator's
 * policy already allows; an instance whose launch is not found there is said, not guessed.
 */
import type { Activity } from '@aws-sdk/client-auto-scaling';
import { UsageError } from '../../errors';
import { stopGeneratorsCommand } from './aws-errors';
import type { AwsApi } from './clients';

/** Pages of scaling activities read at most (100 each): a kept fleet's launches are among the recent ones. */
const MAX_ACTIVITY_PAGES = 10;

const minutes = (ms: number) => Math.ceil(ms / 60_000);

/** When each of `ids` was launched, from the group's successful launch activities (those found). */
async function launchTimes(api: Pick<AwsApi, 'describeScalingActivities'>, asgName: string, ids: readonly string[]): Promise<Map<string, number>> {
  const wanted = new Set(ids);
  const out = new Map<string, number>();
  let NextToken: string | undefined;
  for (let page = 0; page < MAX_ACTIVITY_PAGES && out.size < wanted.size; page++) {
    const res = await api.describeScalingActivities({ AutoScalingGroupName: asgName, MaxRecords: 100, ...(NextToken ? { NextToken } : {}) });
    for (const a of (res?.Activities ?? []) as Activity[]) {
      const id = /Launching a new EC2 instance: (i-[0-9a-f]+)/.exec(a.Description ?? '')?.[1];
      if (id && wanted.has(id) && a.StartTime && !out.has(id)) out.set(id, new Date(a.StartTime).getTime());
    }
    NextToken = res?.NextToken;
    if (!NextToken) break;
  }
  return out;
}

/** What {@link checkKeptGenerators} compares. */
export interface KeptGeneratorsCheck {
  readonly api: Pick<AwsApi, 'describeAutoScalingGroups' | 'describeScalingActivities' | 'region'>;
  readonly asgName: string;
  /** The deployed generatorMaxLifetimeMinutes (absent on stacks deployed before that output: nothing to check). */
  readonly maxLifetimeMinutes: number | undefined;
  /** How long this run keeps its generators at the most (fleet-span.ts fleetSpanMs). */
  readonly spanMs: number;
  readonly now: number;
  readonly log: (line: string) => void;
}

/**
 * Refuses a run whose kept generators would pass their maximum lifetime before it ends (the safety net would scale
 * the group to 0 mid-run); says which kept instances it could not date. Nothing in the group: nothing to do.
 * @throws UsageError naming the oldest instance's age, the run's span, the lifetime and the two ways out
 */
export async function checkKeptGenerators(c: KeptGeneratorsCheck): Promise<void> {
  if (c.maxLifetimeMinutes === undefined) return;
  let ids: string[];
  try {
    const group = (await c.api.describeAutoScalingGroups({ AutoScalingGroupNames: [c.asgName] }))?.AutoScalingGroups?.[0];
    ids = (group?.Instances ?? []).filter((i) => i.InstanceId && !/^Terminat/.test(String(i.LifecycleState))).map((i) => String(i.InstanceId));
  } catch (err) {
    c.log(`kept generators: not checked (${(err as Error).name}); the group is read again before it scales`);
    return;
  }
  if (ids.length === 0) return;
  let launched: Map<string, number>;
  try {
    launched = await launchTimes(c.api, c.asgName, ids);
  } catch (err) {
    // Throttled or refused: said, as an unreadable group is; the run goes on as it did before this check.
    c.log(`kept generators: their launch times could not be read (${(err as Error).name}); their age is not checked against generatorMaxLifetimeMinutes`);
    return;
  }
  const undated = ids.filter((id) => !launched.has(id));
  if (undated.length) c.log(`kept generators: no launch found for ${undated.join(', ')} in the group's recent activities; their age is not checked against generatorMaxLifetimeMinutes`);
  if (launched.size === 0) return;
  const [oldestId, oldestAt] = [...launched].sort((a, b) => a[1] - b[1])[0] as [string, number];
  const age = c.now - oldestAt;
  const lifetimeMs = c.maxLifetimeMinutes * 60_000;
  if (age + c.spanMs < lifetimeMs) {
    c.log(`kept generators: ${ids.length} instance(s) from an earlier run, the oldest (${oldestId}) up ${minutes(age)} min; this run needs at most ${minutes(c.spanMs)} min more, within generatorMaxLifetimeMinutes ${c.maxLifetimeMinutes}`);
    return;
  }
  // The command names the group's region (a multi-region run checks each region's group); the lifetime that would
  // do, as checkGeneratorLifetime gives it (at most a day).
  const needed = Math.min(1440, minutes(age + c.spanMs) + 1);
  throw new UsageError(
    `the generator group ${c.asgName} (${c.api.region}) holds ${ids.length} instance(s) left running by an earlier run (--keep-generators, or a run that did not scale it to 0), the oldest (${oldestId}) up ${minutes(age)} min; this run needs them up to ${minutes(c.spanMs)} min more, past generatorMaxLifetimeMinutes ${c.maxLifetimeMinutes}, and the safety net would scale the group to 0 mid-run: ${stopGeneratorsCommand({ generatorAsgName: c.asgName, region: c.api.region })} first, or redeploy with -c generatorMaxLifetimeMinutes=${needed} (npm run deploy)`,
  );
}
