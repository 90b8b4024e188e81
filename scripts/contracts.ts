/**
 * The contracts every stage of a run shares: the bottom of the orchestrator's import graph.
 * Implementations (the local and AWS platforms, the orchestrator, the report) import their types from
 * here, never from each other's files. Nothing here imports the project except the run-store protocol,
 * which is itself a leaf: it is JavaScript because the agent and the rig's Artillery plugin load it on a
 * generator without a build step, and it names the store's keys and JSON shapes once for both sides.
 */
export type {
  AbortControl,
  DoneMarker,
  ErrorMarker,
  Heartbeat,
  HealthRecord,
  LoadProcessSpec,
  ReadyMarker,
  RunStore,
  Slice,
  StartControl,
  StartedMarker,
} from '../load-generators/lib/run-protocol';

/** The clock, injected so tests and the live loop never depend on wall time directly. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** What {@link Fleet.launch} may hand the agents besides their slices (never written to the store). */
export interface LaunchSecrets {
  /** The target URL with its credentials, when the slices carry it redacted. */
  readonly targetUrl?: string;
}

/** How an agent ended: its exit code or the signal's name, and what the fleet saw. */
export interface AgentEnd {
  readonly code?: number;
  readonly signal?: string;
  readonly detail?: string;
}

/** Launches and stops the generators' agents (local processes, or instances through SSM Run Command). */
export interface Fleet {
  /** Starts one agent per generator id; the slices are already in the store. */
  launch(generatorIds: readonly string[], secrets?: LaunchSecrets): Promise<void>;
  /** Exit codes of the agents that ended (undefined while running). */
  status(): ReadonlyMap<string, number | null | undefined>;
  /** How an agent ended; undefined while it runs or when the fleet cannot tell more than its exit code. */
  exitReason(generatorId: string): AgentEnd | undefined;
  /** Stops every agent still running (they stop their load processes). Idempotent. */
  stop(): Promise<void>;
}

/** A running target the run points at. */
export interface TargetHandle {
  readonly url: string;
  /** Set when the rig started the target itself. */
  readonly pid?: number;
  stop(): Promise<void>;
}

/** The time window of the load, for figures gathered outside the run store. */
export interface LoadWindow {
  readonly start: number;
  readonly end: number;
}

/**
 * Figures measured outside the agents while the load runs (the target's /metrics, CloudWatch), kept
 * in the run store or handed to the report. Started when the run opens.
 */
export interface MetricsSource {
  /** Starts sampling (once the target is known to answer). Idempotent. */
  start(): void;
  /**
   * Stops sampling (waiting for the sample in flight to be stored) and returns what the platform
   * measured outside the run store for the load's window; undefined when the load never started or
   * the platform measures nothing more.
   */
  collect(window: LoadWindow | undefined): Promise<CloudWatchSection | undefined>;
}


/** A CloudWatch series for the report (AWS runs; filled in by the AWS metrics adapter). */
export interface CloudWatchSeries {
  readonly id: string;
  readonly label: string;
  readonly unit?: string;
  /** Epoch ms, ascending. */
  readonly timestamps: readonly number[];
  readonly values: ReadonlyArray<number | null>;
}

/** CloudWatch data of an AWS run: series plus alarm state changes (shown when present). */
export interface CloudWatchSection {
  readonly series: readonly CloudWatchSeries[];
  readonly alarms?: ReadonlyArray<{ readonly at: number; readonly name: string; readonly state: string }>;
  /** The dashboard's graphs for the run window, saved as PNGs in the run folder (`file` is relative to it). */
  readonly images?: ReadonlyArray<{ readonly title: string; readonly file: string }>;
}
