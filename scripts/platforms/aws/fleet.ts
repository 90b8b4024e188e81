/**
 * The AWS fleet (edge adapter, same {@link Fleet} interface as the local one): scales the generator
 * auto-scaling group to the plan's count, waits until the instances are in service (and, where the
 * API answers, registered with SSM), ships the scenario bundle, and dispatches one
 * `AWS-RunShellScript` command per generator that runs the agent against the S3 run store.
 *
 * An agent's end is read from its done.json in the run store (the agent writes it before it exits);
 * SSM's invocation status and the group's membership only detect failures — a command that fails,
 * is cancelled or times out, an instance that leaves the group — so a generator is never declared
 * finished before its data is in the store.
 */
import { COMPLETED, generatorKeys } from '../../../load-generators/lib/run-protocol';
import type { DoneMarker, Fleet } from '../../contracts';
import { InvocationDoesNotExist } from '@aws-sdk/client-ssm';
import { agentCommand, instanceLayout, runPrefix } from './bundle';
import { Backoff, backoff } from '../../../load-generators/lib/backoff';
import { AwsFleetOptions, FAILED_STATUSES, FleetContext, failureDetail, groupInstances } from './fleet-context';
import { fleetBudgets, launchSpanMs } from './fleet-span';
import { checkSsmRegistration, preflightFromFirst, scaleGroupTo, sendShellCommand, stageBundle, waitForInstances } from './fleet-launch';

export { groupInstances };
export type { AwsFleetOptions };

/** Generators whose status (done.json, then the SSM invocation) one poll tick reads at most. */
export const POLL_BUDGET = 10;
/**
 * The longest a running generator's SSM invocation goes unread. SSM only reports failures (the end comes from
 * done.json, read on every visit), so each generator's invocation read backs off from the poll interval to this
 * while it stays InProgress (SSM throttles GetCommandInvocation per account): a crashed agent is noticed within it.
 */
export const SSM_CHECK_CEILING_MS = 30_000;

interface Dispatched {
  readonly instanceId: string;
  readonly commandId: string;
  /** When its SSM invocation is next read, and the backoff that spaces the reads. */
  nextSsmAt: number;
  readonly ssmPoll: Backoff;
  code?: number;
  /** Why the fleet marked it lost (command status, instance state), for the report. */
  why?: string;
  /** Its cancel was sent (whatever came of it): a second stop does not send or say it again. */
  cancelSent?: true;
}

/** Exit code the agent's done.json stands for (0 ok, 1 a load process failed, 3 stopped). */
export function exitCodeOfDone(text: string): number {
  try {
    const done = JSON.parse(text) as Partial<DoneMarker>;
    if (done.reason && done.reason !== COMPLETED) return 3;
    return (done.exitCodes ?? []).every((c) => c === 0) ? 0 : 1;
  } catch {
    return 3;
  }
}

/** The dispatched agents and where the round-robin poll stands. */
interface PollState {
  readonly dispatched: Map<string, Dispatched>;
  tick: number;
  cursor: number;
}

function markLost(ctx: FleetContext, id: string, d: Dispatched, code: number, why: string): void {
  if (d.code !== undefined) return;
  d.code = code;
  d.why = why;
  ctx.opts.log(`generator ${id} (${d.instanceId}): ${why}`);
}

/**
 * One poll tick. A bounded number of generators per tick, round-robin: the request rate to S3 and SSM stays flat
 * however large the fleet (SSM throttles GetCommandInvocation per account), and each generator is still seen every
 * ceil(running / POLL_BUDGET) ticks. Every fifth tick, agents whose instance left the group are marked lost.
 */
async function pollGenerators(ctx: FleetContext, state: PollState): Promise<void> {
  state.tick++;
  const running = [...state.dispatched].filter(([, d]) => d.code === undefined);
  const batch = running.length <= POLL_BUDGET ? running : Array.from({ length: POLL_BUDGET }, (_, k) => running[(state.cursor + k) % running.length] as [string, Dispatched]);
  state.cursor = running.length ? (state.cursor + batch.length) % running.length : 0;
  for (const [id, d] of batch) await pollGenerator(ctx, id, d);
  if (state.tick % 5 === 0) await markInstancesGone(ctx, state.dispatched);
}

/** Reads one generator's done.json, then (when due) its SSM invocation. */
async function pollGenerator(ctx: FleetContext, id: string, d: Dispatched): Promise<void> {
  const { api, clock, log, store } = ctx.opts;
  if (d.code !== undefined) return;
  const done = await store.get(generatorKeys(id).done).catch(() => undefined);
  if (done !== undefined) {
    d.code = exitCodeOfDone(done);
    return;
  }
  if (clock.now() < d.nextSsmAt) return;
  d.nextSsmAt = clock.now() + d.ssmPoll.next();
  try {
    const inv = await api.getCommandInvocation({ CommandId: d.commandId, InstanceId: d.instanceId });
    if (FAILED_STATUSES.has(String(inv.Status))) {
      const rc = inv.ResponseCode !== undefined && inv.ResponseCode > 0 ? inv.ResponseCode : 3;
      const detail = failureDetail(inv.StandardErrorContent, 3);
      markLost(ctx, id, d, rc, `command ${inv.Status} (exit ${inv.ResponseCode ?? '?'})${detail ? `: ${detail}` : ''}`);
    }
    // Success without done.json: the agent always writes done.json before exiting, so keep waiting for it.
  } catch (err) {
    if (!(err instanceof InvocationDoesNotExist)) log(`generator ${id}: status check failed (${(err as Error).name}); retrying`);
  }
}

/** Marks lost the running agents whose instance is no longer in service in the group. */
async function markInstancesGone(ctx: FleetContext, dispatched: ReadonlyMap<string, Dispatched>): Promise<void> {
  try {
    const { states } = await groupInstances(ctx.opts.api, ctx.opts.asgName);
    for (const [id, d] of dispatched) {
      const state = states.get(d.instanceId);
      if (d.code === undefined && (state === undefined || !state.startsWith('InService'))) markLost(ctx, id, d, 3, `instance ${state ? `is ${state}` : 'left the generator group'}`);
    }
  } catch (err) {
    ctx.opts.log(`generator group check failed (${(err as Error).name}); retrying`);
  }
}

/** Sends generator `id`'s agent command to its instance and records it (in memory and in the run store). */
async function dispatchAgent(ctx: FleetContext, dispatched: Map<string, Dispatched>, id: string, instanceId: string, layout: ReturnType<typeof instanceLayout>, deadline: number): Promise<void> {
  const { opts, pollMs } = ctx;
  const commands = agentCommand({ bucket: opts.bucket, runId: opts.runId, generatorId: id, agentHome: opts.agentHome, region: opts.region, layout, ...(opts.heapLimitMiB ? { heapLimitMiB: opts.heapLimitMiB } : {}) });
  const commandId = await sendShellCommand(ctx, { instanceId, label: id, commands, outputKeyPrefix: `${runPrefix(opts.runId)}/ssm/${id}` }, deadline);
  if (!commandId) return;
  dispatched.set(id, { instanceId, commandId, nextSsmAt: opts.clock.now(), ssmPoll: backoff({ initialMs: pollMs, ceilingMs: SSM_CHECK_CEILING_MS }) });
  await opts.store.put(generatorKeys(id).instance, JSON.stringify({ instanceId, commandId, at: opts.clock.now() }));
}

/**
 * Cancels the SSM commands of the agents still running, each once however often the fleet is stopped (the run's
 * end, then the platform's close); failures are said once per cause, every generator named.
 */
async function cancelRunning(ctx: FleetContext, dispatched: ReadonlyMap<string, Dispatched>): Promise<void> {
  const { api, log } = ctx.opts;
  const running = [...dispatched].filter(([, d]) => d.code === undefined && !d.cancelSent);
  const failed = new Map<string, string[]>();
  await Promise.all(
    running.map(async ([id, d]) => {
      d.cancelSent = true;
      try {
        await api.cancelCommand({ CommandId: d.commandId, InstanceIds: [d.instanceId] });
      } catch (err) {
        const name = (err as Error).name;
        failed.set(name, [...(failed.get(name) ?? []), id]);
      }
    }),
  );
  for (const [name, ids] of failed) {
    const many = ids.length > 1;
    log(`generator${many ? 's' : ''} ${ids.sort().join(', ')}: cancel failed (${name}); ${many ? 'the agents stop themselves' : 'the agent stops itself'} when the heartbeat goes stale`);
  }
  const cancelled = running.length - [...failed.values()].reduce((n, ids) => n + ids.length, 0);
  if (cancelled) log(`cancelled ${cancelled} running agent command${cancelled === 1 ? '' : 's'}`);
}

/** A fleet of generator instances driven through auto-scaling and SSM Run Command. */
export function awsFleet(opts: AwsFleetOptions): Fleet & { readonly instances: ReadonlyMap<string, string> } {
  const { clock, log } = opts;
  let stopped = false;
  const ctx: FleetContext = { opts, pollMs: opts.pollMs ?? 2000, aborted: () => stopped || Boolean(opts.signal?.aborted) };
  const state: PollState = { dispatched: new Map<string, Dispatched>(), tick: 0, cursor: 0 };
  const { dispatched } = state;
  const instances = new Map<string, string>();
  let polling = false;
  let pollLoop: Promise<void> | undefined;

  return {
    instances,
    async launch(ids) {
      const began = clock.now();
      const budgets = fleetBudgets(opts);
      const layout = await stageBundle(ctx, ids);
      // Each stage has its own budget (the preflight's boot and probe do not eat the rest of the fleet's), the first
      // counted from the launch's start (the bundle's upload in it), so the whole launch never outlasts launchSpanMs:
      // the span every estimate of the run counts (fleet-span.ts).
      if (opts.preflight && !(await preflightFromFirst(ctx, opts.preflight, began + budgets.launchMs, began))) return;
      await scaleGroupTo(ctx, ids.length);
      const deadline = Math.min(clock.now() + budgets.launchMs, began + launchSpanMs(budgets));
      const ready = await waitForInstances(ctx, ids.length, deadline, began);
      if (!ready) return;
      await checkSsmRegistration(ctx, ready);
      for (const [i, id] of ids.entries()) {
        const instanceId = ready[i] as string;
        instances.set(id, instanceId);
        await dispatchAgent(ctx, dispatched, id, instanceId, layout, deadline);
        if (ctx.aborted()) return;
      }
      log(`dispatched ${dispatched.size} agent command${dispatched.size === 1 ? '' : 's'} (${[...dispatched].map(([id, d]) => `${id}=${d.instanceId}`).join(', ')})`);
      polling = true;
      pollLoop = (async () => {
        while (polling) {
          await pollGenerators(ctx, state).catch((err: Error) => log(`fleet status poll failed: ${err.message}`));
          if (polling) await clock.sleep(ctx.pollMs);
        }
      })();
    },
    status() {
      return new Map([...dispatched].map(([id, d]) => [id, d.code]));
    },
    exitReason(id) {
      const d = dispatched.get(id);
      return d?.code === undefined ? undefined : { code: d.code, ...(d.why ? { detail: d.why } : {}) };
    },
    async stop() {
      stopped = true;
      polling = false;
      await pollLoop?.catch(() => undefined);
      await cancelRunning(ctx, dispatched);
    },
  };
}
