/**
 * A platform is where a run's generators and target live (this machine, or the deployed AWS rig).
 * The run sequence (scripts/run.ts) is the same for every platform; each platform supplies its limits,
 * target, run store, fleet and extra data through this one interface, built in one place.
 */
import type { RunStore } from '../../load-generators/lib/run-store';
import type { Fleet } from '../adapters/local-fleet';
import type { TargetHandle } from '../adapters/local-target';
import type { ArrivalCapacity, GeneratorLimits, Plan } from '../core/plan';
import type { ProbeSpec } from '../preflight';
import type { CloudWatchSection } from '../report/types';

/** What a platform provides to one run. */
export interface Platform {
  readonly name: 'local' | 'aws';
  /** Limits of one generator, for the planner (processes = load processes per generator). */
  readonly limits: GeneratorLimits;
  /** How fast its generators create vusers (the capacity model's rate), for the planner's arrival-rate check. */
  readonly arrivalCapacity?: ArrivalCapacity;
  /** Most generators the platform can start (aws: the stack's maxGenerators). */
  readonly maxGenerators?: number;
  /** Most vusers the whole platform holds at once, and why (local: this machine's memory); undefined: no bound. */
  readonly maxConcurrent?: { readonly vusers: number; readonly why: string };
  /** Size of the ephemeral port range of one source address on a generator (for the verdict). */
  readonly portRange: number;
  /** Starts the target for the run, or checks the one given with --target. Nothing else starts before it. */
  prepareTarget(plan: Plan, runId: string): Promise<TargetHandle>;
  /**
   * Proves a client reaches the target before the fleet starts (scripts/preflight.ts); throws the run-stopping
   * error. aws: runs the probe from the first ready generator as the fleet launches, before it scales out.
   * @default the probe from this machine, now
   */
  preflight?(spec: ProbeSpec): Promise<void>;
  /** The run store the agents write to (local folder, or S3 prefix). */
  openStore(runId: string, runDir: string): RunStore;
  /** Source address of generator g's load process k; undefined lets the agent choose. */
  sourceAddress(generatorIndex: number, processIndex: number): string | undefined;
  /** The fleet that runs the agents. */
  createFleet(runId: string, store: RunStore): Fleet;
  /** After the load: data for the report from outside the run store (aws: CloudWatch for the window). */
  collectExtra?(window: { readonly start: number; readonly end: number }): Promise<CloudWatchSection | undefined>;
  /** Copies the run store into the local run folder when they differ (aws: S3 → runs/<id>/). */
  syncToRunDir?(store: RunStore, runDir: string): Promise<void>;
  /** After the report: scale the fleet down, tear down. Always called, idempotent. */
  finish?(): Promise<void>;
}
