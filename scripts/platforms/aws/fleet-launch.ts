/**
 * The AWS fleet's launch steps (scripts/platforms/aws/fleet.ts runs them in order): ship the bundle, scale
 * the group and wait for its instances, send SSM commands, and the preflight from the first instance.
 */
import { generatorKeys } from '../../../load-generators/lib/run-protocol';
import type { Slice } from '../../contracts';
import { InvalidInstanceId, InvocationDoesNotExist } from '@aws-sdk/client-ssm';
import { RigError } from '../../errors';
import { PREFLIGHT_RESULT_KEY, PREFLIGHT_SPEC_KEY, ProbeResult, ProbeSpec, preflightError, preflightPassedLine } from '../../preflight';
import { bundleFiles, instanceLayout, preflightCommand, runPrefix, uploadBundle } from './bundle';
import type { Activity } from '@aws-sdk/client-auto-scaling';
import { FAILED_STATUSES, FleetContext, failureDetail, groupInstances } from './fleet-context';
import { LaunchWatch, launchFailureLine, watchLaunch } from './launch-failures';
import { fleetBudgets } from './fleet-span';

/** Uploads the bundle and points every slice at the instance-side scenario folder. */
export async function stageBundle({ opts }: FleetContext, ids: readonly string[]): Promise<ReturnType<typeof instanceLayout>> {
  const { store } = opts;
  const first = ids[0] === undefined ? undefined : await store.get(generatorKeys(ids[0]).slice);
  if (!first) throw new RigError(`no slice for generator ${ids[0]} in ${store.location}`);
  const localDir = String((JSON.parse(first) as { scriptDir: string }).scriptDir);
  const layout = instanceLayout({ root: opts.root, scenarioDir: localDir, agentHome: opts.agentHome, runId: opts.runId });
  const files = bundleFiles({ root: opts.root, scenarioDir: localDir, separateScenario: layout.separateScenario });
  const n = await uploadBundle(opts.api, opts.bucket, opts.runId, files);
  opts.log(`bundle: ${n} files → s3://${opts.bucket}/${runPrefix(opts.runId)}/bundle/`);
  // The orchestrator wrote the slices with this machine's scenario folder; agents need the instance's.
  for (const id of ids) {
    const text = await store.get(generatorKeys(id).slice);
    if (!text) throw new RigError(`no slice for generator ${id} in ${store.location}`);
    await store.put(generatorKeys(id).slice, JSON.stringify({ ...(JSON.parse(text) as Slice), scriptDir: layout.scriptDir } satisfies Slice));
  }
  return layout;
}

/** Sets the group's desired capacity and says so. */
export async function scaleGroupTo({ opts }: FleetContext, count: number, why = ''): Promise<void> {
  await opts.api.setDesiredCapacity({ AutoScalingGroupName: opts.asgName, DesiredCapacity: count, HonorCooldown: false });
  opts.log(`generator group ${opts.asgName}: desired capacity ${count}${why}`);
}

/** The group's recent scaling activities, newest first; none when they cannot be read (they are a diagnostic). */
async function recentActivities({ opts }: FleetContext): Promise<Activity[]> {
  try {
    const res = await opts.api.describeScalingActivities({ AutoScalingGroupName: opts.asgName, MaxRecords: 20 });
    return res?.Activities ?? [];
  } catch {
    return [];
  }
}

/**
 * Waits until `count` instances are in service; returns their ids (undefined when aborted). A Failed scaling
 * activity stops it only when no retry fixes it or nothing progressed after it (launch-failures.ts watchLaunch).
 * `began`: when the launch began (the timeout line gives the whole time since, preflight included).
 */
export async function waitForInstances(ctx: FleetContext, count: number, deadline: number, began?: number): Promise<string[] | undefined> {
  const { opts, aborted } = ctx;
  const { clock, log } = opts;
  const started = clock.now();
  const secondsSince = (t: number) => Math.round((clock.now() - t) / 1000);
  let lastLine = '';
  let watch: LaunchWatch | undefined;
  let lastFailure: string | undefined;
  for (;;) {
    const { inService, states, desired } = await groupInstances(opts.api, opts.asgName);
    // Right after SetDesiredCapacity the group may still hold instances it is about to terminate (a lower desired
    // count of an earlier run): pick only once in service and desired agree.
    if (inService.length >= count && (desired === undefined || inService.length === desired)) return inService.slice(0, count);
    const verdict = watchLaunch(watch, { now: clock.now(), inService: inService.length, activities: await recentActivities(ctx), since: started });
    watch = verdict.next;
    if (verdict.failure) {
      if (verdict.stop) throw new RigError(launchFailureLine(opts.asgName, verdict.failure));
      if (verdict.failure.message !== lastFailure) log(`generator group ${opts.asgName}: a launch failed (${verdict.failure.message}); the group retries (${verdict.failure.kind === 'propagation' ? 'IAM makes a new instance profile visible to EC2 within moments' : 'in another zone where it can'}), waiting for it`);
      lastFailure = verdict.failure.message;
    }
    const others = [...states.values()].filter((s) => s !== 'InService');
    const line = `generators: ${inService.length}/${count} in service${others.length ? ` (${others.join(', ')})` : ''}, ${secondsSince(started)} s`;
    if (line !== lastLine) log(line);
    lastLine = line;
    if (aborted()) return undefined;
    if (clock.now() > deadline) {
      const total = began !== undefined && began < started ? `, ${secondsSince(began)} s since the launch began` : '';
      const failure = lastFailure ? `; last failed launch: ${lastFailure}` : '';
      throw new RigError(`only ${inService.length} of ${count} generator instances in service after ${secondsSince(started)} s${total} (${others.join(', ') || 'none launching'})${failure}; check the group's activity history in the EC2 console (capacity, quotas, launch template)`);
    }
    await clock.sleep(5000);
  }
}

/** SSM registration, where the API answers (moto does not): a diagnostic, the agents' ready markers are the barrier. */
export async function checkSsmRegistration({ opts }: FleetContext, ids: readonly string[]): Promise<void> {
  try {
    const online = new Set<string | undefined>();
    // One page holds 10 by default (50 at most), and a filter takes at most 100 ids: 50 ids a request, every page
    // (one page of a 50-generator fleet read "10/50 registered").
    for (let k = 0; k < ids.length; k += 50) {
      let NextToken: string | undefined;
      do {
        const res = await opts.api.describeInstanceInformation({ Filters: [{ Key: 'InstanceIds', Values: ids.slice(k, k + 50) }], MaxResults: 50, ...(NextToken ? { NextToken } : {}) });
        for (const i of res.InstanceInformationList ?? []) if (i.PingStatus === 'Online') online.add(i.InstanceId);
        NextToken = res.NextToken;
      } while (NextToken);
    }
    opts.log(`ssm: ${online.size}/${ids.length} instances registered${online.size < ids.length ? ' (commands are retried until they register)' : ''}`);
  } catch (err) {
    opts.log(`ssm: registration check unavailable (${(err as Error).name}); readiness comes from the agents' ready markers`);
  }
}

/** One AWS-RunShellScript command for an instance: what it runs, and where SSM writes its output. */
export interface ShellCommand {
  readonly instanceId: string;
  readonly label: string;
  readonly commands: string[];
  readonly outputKeyPrefix: string;
}

/** Sends one AWS-RunShellScript command, retrying while the instance is not yet registered with SSM; undefined when aborted. */
export async function sendShellCommand({ opts, aborted }: FleetContext, cmd: ShellCommand, deadline: number): Promise<string | undefined> {
  const { instanceId, label } = cmd;
  for (;;) {
    try {
      const res = await opts.api.sendCommand({
        DocumentName: 'AWS-RunShellScript',
        InstanceIds: [instanceId],
        Comment: `loadtest-rig ${opts.runId} ${label}`.slice(0, 100),
        TimeoutSeconds: 600,
        Parameters: { commands: cmd.commands, executionTimeout: [String(opts.commandTimeoutSeconds ?? 10_800)] },
        OutputS3BucketName: opts.bucket,
        OutputS3KeyPrefix: cmd.outputKeyPrefix,
      });
      const commandId = res.Command?.CommandId;
      if (!commandId) throw new RigError(`SSM SendCommand for ${label} returned no command id`);
      return commandId;
    } catch (err) {
      // An instance that is in service but not yet registered with SSM is an "invalid instance id".
      if (!(err instanceof InvalidInstanceId)) throw err;
      if (opts.clock.now() > deadline) throw new RigError(`instance ${instanceId} (${label}) never registered with SSM; check its boot log (/var/log/loadtest-rig-user-data.log) and that it reaches the SSM endpoints`);
      if (aborted()) return undefined;
      await opts.clock.sleep(5000);
    }
  }
}

/**
 * The preflight: one instance, the probe from it, and only then the rest of the fleet. A failed probe throws
 * the run-stopping error (the platform's finish scales the group back to 0). False when aborted. `began`: when the
 * launch began (the timeout line gives the time since).
 */
export async function preflightFromFirst(ctx: FleetContext, spec: ProbeSpec, deadline: number, began?: number): Promise<boolean> {
  const { opts } = ctx;
  await opts.store.put(PREFLIGHT_SPEC_KEY, JSON.stringify(spec));
  // A fleet an earlier run kept (--keep-generators) is not lowered to one instance: lowering the desired capacity
  // terminates instances (EC2 Auto Scaling User Guide, "Control which Auto Scaling instances terminate during scale
  // in"), which the scale-out would then boot again. The probe runs on one of them (kept-generators.ts).
  const { desired } = await groupInstances(opts.api, opts.asgName);
  if (desired !== undefined && desired > 1) opts.log(`generator group ${opts.asgName}: desired capacity ${desired} kept from an earlier run (preflight on one of its instances before scaling to the plan)`);
  else await scaleGroupTo(ctx, 1, ' (preflight before scaling out)');
  const first = (await waitForInstances(ctx, 1, deadline, began))?.[0];
  if (!first) return false;
  const commands = preflightCommand({ bucket: opts.bucket, runId: opts.runId, agentHome: opts.agentHome, region: opts.region });
  const commandId = await sendShellCommand(ctx, { instanceId: first, label: 'preflight', commands, outputKeyPrefix: `${runPrefix(opts.runId)}/ssm/preflight` }, deadline);
  if (!commandId) return false;
  opts.log(`preflight: probing ${spec.target} from ${first}`);
  return awaitProbeResult(ctx, first, commandId);
}

/** Waits for the probe's answer in the run store; throws when it failed, its command failed, or it never came. */
async function awaitProbeResult({ opts, pollMs, aborted }: FleetContext, first: string, commandId: string): Promise<boolean> {
  const { clock } = opts;
  const started = clock.now();
  const probeDeadline = started + fleetBudgets(opts).probeMs;
  for (;;) {
    const text = await opts.store.get(PREFLIGHT_RESULT_KEY);
    if (text !== undefined) {
      const result = JSON.parse(text) as ProbeResult;
      const err = preflightError(result, `generator ${first}`);
      if (err) throw err;
      opts.log(preflightPassedLine(result, `generator ${first}`));
      return true;
    }
    try {
      const inv = await opts.api.getCommandInvocation({ CommandId: commandId, InstanceId: first });
      if (FAILED_STATUSES.has(String(inv.Status))) {
        const detail = failureDetail(inv.StandardErrorContent, 2);
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
}
