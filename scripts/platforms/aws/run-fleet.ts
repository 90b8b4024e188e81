/**
 * The fleet one AWS run drives: before the generators launch, target scale-in is suspended (with a mark that
 * restores it after a kill); then the generator fleet (fleet.ts) launches and the rig's metrics start publishing.
 */
import { s3Store } from '../../../load-generators/lib/run-store';
import type { Clock, Fleet, RunStore } from '../../contracts';
import type { Plan } from '../../core/plan';
import type { ProbeSpec } from '../../preflight';
import { explainAwsError } from './aws-errors';
import type { AwsApi } from './clients';
import type { RigMetricsPublisher } from './cloudwatch';
import type { RigOutputs } from './discovery';
import { AwsFleetOptions, awsFleet } from './fleet';
import type { PublishingLoop } from './run-metrics';
import { RestoreScaleIn, scaleInRestoreBy, suspendScaleIn } from './scale-in';

/** What the run's fleet is built from. */
export interface RunFleetProps {
  readonly api: AwsApi;
  readonly outputs: RigOutputs;
  readonly clock: Clock;
  readonly log: (line: string) => void;
  readonly root: string;
  readonly runId: string;
  readonly plan: Plan;
  /** One vuser's session past its arrival (scripts/run.ts): the run lasts that long past the last arrival. */
  readonly sessionSeconds: number;
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

/** The run's fleet, and how to restore target scale-in once the run is over (a no-op before launch). */
export function runFleet(props: RunFleetProps): { readonly fleet: Fleet; readonly restoreScaleIn: () => Promise<void> } {
  let restore: RestoreScaleIn | undefined;
  let inner: Fleet | undefined;
  const fleet: Fleet = {
    async launch(ids) {
      props.onLaunch();
      restore = await suspendTargetScaleIn(props);
      const probe = props.probe();
      const { api, outputs, clock, log } = props;
      inner = awsFleet({
        api, runId: props.runId, store: props.store, root: props.root, asgName: outputs.generatorAsgName, bucket: outputs.resultsBucketName, region: api.region,
        agentHome: outputs.generatorAgentHome, clock, log, ...(probe ? { preflight: probe } : {}),
        heapLimitMiB: props.heapLimitMiB, ...(props.signal ? { signal: props.signal } : {}), ...props.timings,
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
  return { fleet, restoreScaleIn: async () => restore?.() };
}

/** Suspends target scale-in for the run; the mark (with its deadline) lets the next run, `npm run leftovers` or the safety net restore it after a kill. */
async function suspendTargetScaleIn(props: RunFleetProps): Promise<RestoreScaleIn> {
  const { api, outputs, clock, log } = props;
  try {
    const now = clock.now();
    const restoreBy = scaleInRestoreBy(now, props.plan, props.sessionSeconds, props.timings?.instanceTimeoutMs);
    return await suspendScaleIn(api, outputs.scaleInAlarmName, log, { marks: s3Store(`s3://${outputs.resultsBucketName}`, api.s3), runId: props.runId, now: () => clock.now(), restoreBy });
  } catch (err) {
    throw explainAwsError(err, { region: api.region, doing: `suspending target scale-in (alarm ${outputs.scaleInAlarmName})` });
  }
}
