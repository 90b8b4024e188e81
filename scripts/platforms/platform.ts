/**
 * A platform is where a run's generators and target live (this machine, or the deployed AWS rig).
 * The run sequence (scripts/run.ts) is the same for every platform: it plans with the platform's limits,
 * then opens one run on it and uses what it gets back — target, run store, fleet, metrics source and
 * timings — and closes it. Nothing in the sequence asks which platform it runs on.
 */
import type { Fleet, MetricsSource, RunStore, TargetHandle } from '../contracts';
import type { ArrivalCapacity, GeneratorLimits, Plan } from '../core/plan';
import type { RegionPlanInput, RegionalPlan } from '../core/regions';
import type { ProbeSpec } from '../preflight';

/** What one run is opened with. */
export interface OpenRequest {
  readonly runId: string;
  /** The local run folder (the report is written there on every platform). */
  readonly runDir: string;
  readonly plan: Plan;
  /**
   * How long one vuser's session lasts past its arrival (the run's deadline counts it after the last arrival).
   * @default 0 (the phases only)
   */
  readonly sessionSeconds?: number;
  /** Aborted at the run's first Ctrl-C: what opening waits on (the local --target's reachability check) ends at once. */
  readonly signal?: AbortSignal;
}

/** How long the run sequence waits on this platform. */
export interface RunTimings {
  /** From launch until every agent must have reported ready. */
  readonly readyTimeoutMs: number;
  /** Lead time between the last agent reporting ready and the shared start. */
  readonly startLeadMs: number;
}

/** One run opened on a platform: everything the run sequence uses, and how to give it back. */
export interface OpenRun {
  readonly target: TargetHandle;
  /** The run store the agents write to (the local run folder, or the run's S3 prefix). */
  readonly store: RunStore;
  readonly fleet: Fleet;
  /** Target-side and platform figures; started once the target is proven reachable. */
  readonly metrics: MetricsSource;
  readonly timings: RunTimings;
  /**
   * Proves a client reaches the target before the fleet starts (scripts/preflight.ts); throws the
   * run-stopping error. Local: the probe from this machine, now; AWS: from the first ready generator as
   * the fleet launches, before it scales out (this only hands it the spec). Once `signal` aborts (the run's Ctrl-C),
   * it settles at once, with nothing of it left running: InterruptedBeforeStart.
   */
  preflight(spec: ProbeSpec, signal?: AbortSignal): Promise<void>;
  /** Makes the run folder hold the store's data (AWS: copies S3 into it; local: the store is the folder). */
  copyToRunDir(): Promise<void>;
  /** Stops everything the run started (fleet, metrics, target, scaled capacity), in reverse. Idempotent. */
  close(): Promise<void>;
}

/** What a platform provides: the figures the planner needs, and runs. */
export interface Platform {
  readonly name: 'local' | 'aws';
  /** Limits of one generator, for the planner (processes = load processes per generator). */
  readonly limits: GeneratorLimits;
  /** How fast its generators create vusers (the capacity model's rate), for the planner's arrival-rate check. */
  readonly arrivalCapacity?: ArrivalCapacity;
  /** Most generators the platform can start (aws: the stack's maxGenerators). */
  readonly maxGenerators?: number;
  /** What sets maxGenerators, said when a plan needs more (local: this machine's memory or cores). */
  readonly maxGeneratorsWhy?: string;
  /** Most vusers the whole platform holds at once, and why (local: this machine's memory); undefined: no bound. */
  readonly maxConcurrent?: { readonly vusers: number; readonly why: string };
  /**
   * Set when every connection of the run leaves from one source address (local: a script of the user's own, or a
   * target the loopback aliases cannot reach): the vusers one port range holds to one target address, and why.
   */
  readonly oneSourceAddress?: { readonly vusers: number; readonly why: string };
  /** Size of the ephemeral port range of one source address on a generator (for the verdict). */
  readonly portRange: number;
  /**
   * true: the agents get a credentialed target URL through their environment and the slices keep it
   * redacted (local); false: the slices carry the URL as it is (credentials are refused before the run).
   */
  readonly secretsInEnvironment: boolean;
  /** Source address of generator g's load process k; undefined lets the agent choose. */
  sourceAddress(generatorIndex: number, processIndex: number): string | undefined;
  /** Opens one run: starts (or checks) the target, opens the store, prepares the fleet. Undoes itself if it fails. */
  open(request: OpenRequest): Promise<OpenRun>;
}

/** Cleanups run last-in first-out, each once, none stopping the others. */
export function cleanupStack(): { push(cleanup: () => Promise<void>): void; run(): Promise<void> } {
  const cleanups: Array<() => Promise<void>> = [];
  return {
    push: (cleanup) => void cleanups.push(cleanup),
    async run() {
      for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
    },
  };
}

/** A platform that also plans over regions. */
export interface RegionalPlatform extends Platform {
  /** Each region's weight and generator limits, home first. */
  readonly regions: readonly RegionPlanInput[];
  /** Told the regional plan once it is made (before open). */
  useRegions(regional: RegionalPlan): void;
  /** The URL generator `index` loads, when it is not the run's target (another region's generators). */
  generatorTarget(index: number): string | undefined;
}

/**
 * True for a platform that plans over several regions. Here, not in aws/multi-region.ts: the run sequence asks it of
 * every platform, and importing the AWS platform would load the AWS SDK at every local start (~150 ms of CPU).
 */
export function isRegional(p: Platform): p is RegionalPlatform {
  return Array.isArray((p as Partial<RegionalPlatform>).regions) && ((p as RegionalPlatform).regions.length > 1);
}
