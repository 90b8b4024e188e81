/**
 * The fleet one AWS run drives: before the generators launch, target scale-in is suspended (with a mark that
 * restores it after a kill); then the generator fleet (fleet.ts) launches and the rig's metrics start publishing.
 */
import { s3Store } from '../../../load-generators/lib/run-store';
import type { Clock, Fleet, RunStore } from '../../contracts';
import type { Plan } from '../../core/plan';
import type { ProbeSpec } from '../../preflight';
import { explainAwsError, stopGeneratorsCommand } from './aws-errors';
import type { AwsApi } from './clients';
import type { RigMetricsPublisher } from './cloudwatch';
import type { RigOutputs } from './discovery';
import { AwsFleetOptions, awsFleet } from './fleet';
import type { PublishingLoop } from './run-metrics';
import { suspendAzRebalance } from './fleet-processes';
import { commandTimeoutSeconds, fleetBudgets } from './fleet-span';
import { RestoreScaleIn, SuspendingRun, scaleInRestoreBy, suspendScaleIn } from './scale-in';

/** What the run's fleet is built from. */
export interface RunFleetProps {
  readonly api: AwsApi;
  readonly outputs: RigOutputs;
  readonly clock: Clock;
  readonly log: (line: string) => void;
  readonly root: string;
  readonly runId: string;
  readonly plan: Plan;
  /**
   * One vuser's session past its arrival (scripts/run.ts): the run lasts that long past the last arrival.
   * @default unknown: the scale-in deadline counts none, and the SSM commands keep fleet-context.ts's default timeout
   */
  readonly sessionSeconds?: number;
  readonly store: RunStore;
  readonly heapLimitMiB: number;
  readonly signal?: AbortSignal;
  /** Fleet timings (tests shorten them). */
  readonly timings?: Pick<AwsFleetOptions, 'instanceTimeoutMs' | 'pollMs' | 'preflightTimeoutMs'>;
  /** The preflight probe, once the run sequence has set it (before launch). */
  readonly probe: () => ProbeSpec | undefined;
  readonly publishing: PublishingLoop;
  readonly publisher: RigMetricsPublisher | undefined;
  /** Called when the launch begins: from then on the group is scaled back down after the run. */
  readonly onLaunch: () => void;
}

/** The run's fleet, and how to restore target scale-in and the groups' AZRebalance once the run is over (a no-op before launch). */
export function runFleet(props: RunFleetProps): { readonly fleet: Fleet; readonly restoreScaleIn: () => Promise<void> } {
  let restore: RestoreScaleIn[] = [];
  let inner: Fleet | undefined;
  const fleet: Fleet = {
    async launch(ids) {
      props.onLaunch();
      restore = await suspendForTheRun(props);
      const probe = props.probe();
      const { api, outputs, clock, log } = props;
      inner = awsFleet({
        api, runId: props.runId, store: props.store, root: props.root, asgName: outputs.generatorAsgName, bucket: outputs.resultsBucketName, region: api.region,
        agentHome: outputs.generatorAgentHome, clock, log, ...(probe ? { preflight: probe } : {}),
        heapLimitMiB: props.heapLimitMiB,
        ...(props.sessionSeconds !== undefined ? { commandTimeoutSeconds: commandTimeoutSeconds(props.plan, props.sessionSeconds) } : {}), ...(props.signal ? { signal: props.signal } : {}), ...props.timings,
      });
      await inner.launch(ids);
      if (props.publisher) props.publishing.start(props.publisher);
    },
    status: () => inner?.status() ?? new Map<string, number | null | undefined>(),
    exitReason: (id) => inner?.exitReason(id),
    async stop() {
      await props.publishing.stop();
      await inner?.stop();
    },
  };
  return {
    fleet,
    restoreScaleIn: async () => {
      for (const r of restore.splice(0).reverse()) await r();
    },
  };
}

/**
 * Before anything scales: target scale-in suspended, and AZRebalance on the EC2 target's group and the generator
 * group; each marked with the run's deadline, so the next run, `npm run leftovers` or the safety net restores it
 * after a kill. Returns the restores, in the order they were made.
 */
async function suspendForTheRun(props: RunFleetProps): Promise<RestoreScaleIn[]> {
  const { api, outputs, clock, log } = props;
  const restores: RestoreScaleIn[] = [];
  let doing = `suspending target scale-in (alarm ${outputs.scaleInAlarmName})`;
  try {
    const restoreBy = scaleInRestoreBy(clock.now(), props.plan, props.sessionSeconds ?? 0, fleetBudgets(props.timings));
    const run: SuspendingRun = { marks: s3Store(`s3://${outputs.resultsBucketName}`, api.s3), runId: props.runId, now: () => clock.now(), restoreBy };
    restores.push(await suspendScaleIn(api, outputs.scaleInAlarmName, log, run));
    for (const group of [outputs.targetAsgName, outputs.generatorAsgName]) {
      doing = `suspending AZRebalance on group ${group}`;
      restores.push(await suspendAzRebalance(api, group, log, run));
    }
    return restores;
  } catch (err) {
    for (const r of restores.reverse()) await r();
    // The run has opened and its launch begun: an AWS error is a rig failure (exit 3), never "nothing was started".
    throw explainAwsError(err, { region: api.region, doing, started: { stopGenerators: stopGeneratorsCommand(outputs), beforeScaling: true } });
  }
}
