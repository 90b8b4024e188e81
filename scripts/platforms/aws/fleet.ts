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
import type { Clock, DoneMarker, Fleet, RunStore, Slice } from '../../contracts';
import { InvalidInstanceId, InvocationDoesNotExist } from '@aws-sdk/client-ssm';
import { RigError } from '../../errors';
import { PREFLIGHT_RESULT_KEY, PREFLIGHT_SPEC_KEY, ProbeResult, ProbeSpec, preflightError, preflightPassedLine } from '../../preflight';
import { agentCommand, bundleFiles, instanceLayout, preflightCommand, runPrefix, uploadBundle } from './bundle';
import type { AwsApi } from './clients';
import { Backoff, backoff } from '../../../load-generators/lib/backoff';

/** Generators whose status (done.json, then the SSM invocation) one poll tick reads at most. */
export const POLL_BUDGET = 10;
/**
 * The longest a running generator's SSM invocation goes unread. SSM only reports failures (the end comes from
 * done.json, read on every visit), so each generator's invocation read backs off from the poll interval to this
 * while it stays InProgress (SSM throttles GetCommandInvocation per account): a crashed agent is noticed within it.
 */
export const SSM_CHECK_CEILING_MS = 30_000;

/** SSM command statuses after which the agent is no longer running. */
const FAILED_STATUSES = new Set(['Cancelled', 'Cancelling', 'Failed', 'TimedOut', 'Undeliverable', 'Terminated', 'DeliveryTimedOut', 'ExecutionTimedOut', 'InvalidPlatform', 'AccessDenied']);

/** Options of {@link awsFleet}. */
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
   * Longest wait for the instances to be in service and accept commands.
   * @default 600_000 (10 minutes: boot, host tuning and the agent install)
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
   * @default 300_000
   */
  readonly preflightTimeoutMs?: number;
  /**
   * SSM executionTimeout of each command, seconds.
   * @default 10_800 (3 hours, the fleet's maximum lifetime)
   */
  readonly commandTimeoutSeconds?: number;
}

interface Dispatched {
  readonly instanceId: string;
  readonly commandId: string;
  /** When its SSM invocation is next read, and the backoff that spaces the reads. */
  nextSsmAt: number;
  readonly ssmPoll: Backoff;
  code?: number;
  /** Why the fleet marked it lost (command status, instance state), for the report. */
  why?: string;
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

/** A fleet of generator instances driven through auto-scaling and SSM Run Command. */
export function awsFleet(opts: AwsFleetOptions): Fleet & { readonly instances: ReadonlyMap<string, string> } {
  const { api, clock, log, store } = opts;
  const pollMs = opts.pollMs ?? 2000;
  const dispatched = new Map<string, Dispatched>();
  const instances = new Map<string, string>();
  let polling = false;
  let pollLoop: Promise<void> | undefined;
  let stopped = false;
  const aborted = () => stopped || Boolean(opts.signal?.aborted);

  const markLost = (id: string, d: Dispatched, code: number, why: string) => {
    if (d.code !== undefined) return;
    d.code = code;
    d.why = why;
    log(`generator ${id} (${d.instanceId}): ${why}`);
  };

  /** Uploads the bundle and points every slice at the instance-side scenario folder. */
  const stage = async (ids: readonly string[]) => {
    const first = ids[0] === undefined ? undefined : await store.get(generatorKeys(ids[0]).slice);
    if (!first) throw new RigError(`no slice for generator ${ids[0]} in ${store.location}`);
    const localDir = String((JSON.parse(first) as { scriptDir: string }).scriptDir);
    const layout = instanceLayout({ root: opts.root, scenarioDir: localDir, agentHome: opts.agentHome, runId: opts.runId });
    const files = bundleFiles({ root: opts.root, scenarioDir: localDir, separateScenario: layout.separateScenario });
    const n = await uploadBundle(api, opts.bucket, opts.runId, files);
    log(`bundle: ${n} files → s3://${opts.bucket}/${runPrefix(opts.runId)}/bundle/`);
    // The orchestrator wrote the slices with this machine's scenario folder; agents need the instance's.
    for (const id of ids) {
      const text = await store.get(generatorKeys(id).slice);
      if (!text) throw new RigError(`no slice for generator ${id} in ${store.location}`);
      await store.put(generatorKeys(id).slice, JSON.stringify({ ...(JSON.parse(text) as Slice), scriptDir: layout.scriptDir } satisfies Slice));
    }
    return layout;
  };

  /** Waits until `count` instances are in service; returns their ids. */
  const waitForInstances = async (count: number, deadline: number): Promise<string[] | undefined> => {
    const started = clock.now();
    let lastLine = '';
    for (;;) {
      const { inService, states } = await groupInstances(api, opts.asgName);
      if (inService.length >= count) return inService.slice(0, count);
      const others = [...states.values()].filter((s) => s !== 'InService');
      const line = `generators: ${inService.length}/${count} in service${others.length ? ` (${others.join(', ')})` : ''}, ${Math.round((clock.now() - started) / 1000)} s`;
      if (line !== lastLine) log(line);
      lastLine = line;
      if (aborted()) return undefined;
      if (clock.now() > deadline) {
        throw new RigError(`only ${inService.length} of ${count} generator instances in service after ${Math.round((clock.now() - started) / 1000)} s (${others.join(', ') || 'none launching'}); check the group's activity history in the EC2 console (capacity, quotas, launch template)`);
      }
      await clock.sleep(5000);
    }
  };

  /** SSM registration, where the API answers (moto does not): a diagnostic, the agents' ready markers are the barrier. */
  const checkSsm = async (ids: readonly string[]) => {
    try {
      const res = await api.describeInstanceInformation({ Filters: [{ Key: 'InstanceIds', Values: [...ids] }] });
      const online = new Set((res.InstanceInformationList ?? []).filter((i) => i.PingStatus === 'Online').map((i) => i.InstanceId));
      log(`ssm: ${online.size}/${ids.length} instances registered${online.size < ids.length ? ' (commands are retried until they register)' : ''}`);
    } catch (err) {
      log(`ssm: registration check unavailable (${(err as Error).name}); readiness comes from the agents' ready markers`);
    }
  };

  /** Sends one AWS-RunShellScript command, retrying while the instance is not yet registered with SSM; undefined when aborted. */
  const send = async (instanceId: string, label: string, commands: string[], outputKeyPrefix: string, deadline: number): Promise<string | undefined> => {
    for (;;) {
      try {
        const res = await api.sendCommand({
          DocumentName: 'AWS-RunShellScript',
          InstanceIds: [instanceId],
          Comment: `loadtest-rig ${opts.runId} ${label}`.slice(0, 100),
          TimeoutSeconds: 600,
          Parameters: { commands, executionTimeout: [String(opts.commandTimeoutSeconds ?? 10_800)] },
          OutputS3BucketName: opts.bucket,
          OutputS3KeyPrefix: outputKeyPrefix,
        });
        const commandId = res.Command?.CommandId;
        if (!commandId) throw new RigError(`SSM SendCommand for ${label} returned no command id`);
        return commandId;
      } catch (err) {
        // An instance that is in service but not yet registered with SSM is an "invalid instance id".
        if (!(err instanceof InvalidInstanceId)) throw err;
        if (clock.now() > deadline) throw new RigError(`instance ${instanceId} (${label}) never registered with SSM; check its boot log (/var/log/loadtest-rig-user-data.log) and that it reaches the SSM endpoints`);
        if (aborted()) return undefined;
        await clock.sleep(5000);
      }
    }
  };

  const dispatch = async (id: string, instanceId: string, layout: ReturnType<typeof instanceLayout>, deadline: number) => {
    const commands = agentCommand({ bucket: opts.bucket, runId: opts.runId, generatorId: id, agentHome: opts.agentHome, region: opts.region, layout, ...(opts.heapLimitMiB ? { heapLimitMiB: opts.heapLimitMiB } : {}) });
    const commandId = await send(instanceId, id, commands, `${runPrefix(opts.runId)}/ssm/${id}`, deadline);
    if (!commandId) return;
    dispatched.set(id, { instanceId, commandId, nextSsmAt: clock.now(), ssmPoll: backoff({ initialMs: pollMs, ceilingMs: SSM_CHECK_CEILING_MS }) });
    await store.put(generatorKeys(id).instance, JSON.stringify({ instanceId, commandId, at: clock.now() }));
  };

  /**
   * The preflight: one instance, the probe from it, and only then the rest of the fleet. A failed probe throws
   * the run-stopping error (the platform's finish scales the group back to 0). False when aborted.
   */
  const preflightFromFirst = async (spec: ProbeSpec, deadline: number): Promise<boolean> => {
    await store.put(PREFLIGHT_SPEC_KEY, JSON.stringify(spec));
    await api.setDesiredCapacity({ AutoScalingGroupName: opts.asgName, DesiredCapacity: 1, HonorCooldown: false });
    log(`generator group ${opts.asgName}: desired capacity 1 (preflight before scaling out)`);
    const first = (await waitForInstances(1, deadline))?.[0];
    if (!first) return false;
    const commands = preflightCommand({ bucket: opts.bucket, runId: opts.runId, agentHome: opts.agentHome, region: opts.region });
    const commandId = await send(first, 'preflight', commands, `${runPrefix(opts.runId)}/ssm/preflight`, deadline);
    if (!commandId) return false;
    log(`preflight: probing ${spec.target} from ${first}`);
    const started = clock.now();
    const probeDeadline = started + (opts.preflightTimeoutMs ?? 300_000);
    for (;;) {
      const text = await store.get(PREFLIGHT_RESULT_KEY);
      if (text !== undefined) {
        const result = JSON.parse(text) as ProbeResult;
        const err = preflightError(result, `generator ${first}`);
        if (err) throw err;
        log(preflightPassedLine(result, `generator ${first}`));
        return true;
      }
      try {
        const inv = await api.getCommandInvocation({ CommandId: commandId, InstanceId: first });
        if (FAILED_STATUSES.has(String(inv.Status))) {
          const detail = (inv.StandardErrorContent ?? '').trim().split('\n').slice(-2).join(' | ');
          throw new RigError(`preflight on generator ${first} could not run (command ${inv.Status}, exit ${inv.ResponseCode ?? '?'})${detail ? `: ${detail}` : ''}`);
        }
      } catch (err) {
        if (!(err instanceof InvocationDoesNotExist)) throw err;
      }
      if (aborted()) return false;
      if (clock.now() > probeDeadline) {
        throw new RigError(`preflight on generator ${first}: no answer after ${Math.round((clock.now() - started) / 1000)} s; see the command output under ${runPrefix(opts.runId)}/ssm/preflight/ in the results bucket`);
      }
      await clock.sleep(pollMs);
    }
  };

  let tick = 0;
  let cursor = 0;
  const poll = async () => {
    tick++;
    // A bounded number of generators per tick, round-robin: the request rate to S3 and SSM stays flat however
    // large the fleet (SSM throttles GetCommandInvocation per account), and each generator is still seen every
    // ceil(running / POLL_BUDGET) ticks.
    const running = [...dispatched].filter(([, d]) => d.code === undefined);
    const batch = running.length <= POLL_BUDGET ? running : Array.from({ length: POLL_BUDGET }, (_, k) => running[(cursor + k) % running.length] as [string, Dispatched]);
    cursor = running.length ? (cursor + batch.length) % running.length : 0;
    for (const [id, d] of batch) {
      if (d.code !== undefined) continue;
      const done = await store.get(generatorKeys(id).done).catch(() => undefined);
      if (done !== undefined) {
        d.code = exitCodeOfDone(done);
        continue;
      }
      if (clock.now() < d.nextSsmAt) continue;
      d.nextSsmAt = clock.now() + d.ssmPoll.next();
      try {
        const inv = await api.getCommandInvocation({ CommandId: d.commandId, InstanceId: d.instanceId });
        if (FAILED_STATUSES.has(String(inv.Status))) {
          const rc = inv.ResponseCode !== undefined && inv.ResponseCode > 0 ? inv.ResponseCode : 3;
          const detail = (inv.StandardErrorContent ?? '').trim().split('\n').slice(-3).join(' | ');
          markLost(id, d, rc, `command ${inv.Status} (exit ${inv.ResponseCode ?? '?'})${detail ? `: ${detail}` : ''}`);
        }
        // Success without done.json: the agent always writes done.json before exiting, so keep waiting for it.
      } catch (err) {
        if (!(err instanceof InvocationDoesNotExist)) log(`generator ${id}: status check failed (${(err as Error).name}); retrying`);
      }
    }
    if (tick % 5 === 0) {
      try {
        const { states } = await groupInstances(api, opts.asgName);
        for (const [id, d] of dispatched) {
          const state = states.get(d.instanceId);
          if (d.code === undefined && (state === undefined || !state.startsWith('InService'))) markLost(id, d, 3, `instance ${state ? `is ${state}` : 'left the generator group'}`);
        }
      } catch (err) {
        log(`generator group check failed (${(err as Error).name}); retrying`);
      }
    }
  };

  return {
    instances,
    async launch(ids) {
      const deadline = clock.now() + (opts.instanceTimeoutMs ?? 600_000);
      const layout = await stage(ids);
      if (opts.preflight && !(await preflightFromFirst(opts.preflight, deadline))) return;
      await api.setDesiredCapacity({ AutoScalingGroupName: opts.asgName, DesiredCapacity: ids.length, HonorCooldown: false });
      log(`generator group ${opts.asgName}: desired capacity ${ids.length}`);
      const ready = await waitForInstances(ids.length, deadline);
      if (!ready) return;
      await checkSsm(ready);
      for (const [i, id] of ids.entries()) {
        const instanceId = ready[i] as string;
        instances.set(id, instanceId);
        await dispatch(id, instanceId, layout, deadline);
        if (aborted()) return;
      }
      log(`dispatched ${dispatched.size} agent command${dispatched.size === 1 ? '' : 's'} (${[...dispatched].map(([id, d]) => `${id}=${d.instanceId}`).join(', ')})`);
      polling = true;
      pollLoop = (async () => {
        while (polling) {
          await poll().catch((err: Error) => log(`fleet status poll failed: ${err.message}`));
          if (polling) await clock.sleep(pollMs);
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
      const running = [...dispatched].filter(([, d]) => d.code === undefined);
      await Promise.all(
        running.map(async ([id, d]) => {
          try {
            await api.cancelCommand({ CommandId: d.commandId, InstanceIds: [d.instanceId] });
          } catch (err) {
            log(`generator ${id}: cancel failed (${(err as Error).name}); the agent stops itself when the heartbeat goes stale`);
          }
        }),
      );
      if (running.length) log(`cancelled ${running.length} running agent command${running.length === 1 ? '' : 's'}`);
    },
  };
}
