/**
 * The report's shared shapes: the summary JSON (README.md, under the run folder), its result, and report.json.
 * Every report module imports these from here, and this module imports none of them, so the report's
 * modules never import each other for a type (no import cycle).
 */
import type { TargetSample } from '../adapters/target-metrics';
import type { CloudWatchSection } from '../contracts';
import type { ArtilleryReport, ArtilleryReportSection } from '../core/merge';
import type { HealthSample, Verdict } from '../core/verdict';
import type { Distribution } from './distribution';
import type { FigureRow } from './scenario-figures';
import type { RegionColumn, RegionSummary } from './regions';

/** One generator in the summary's `rig` section. */
export interface GeneratorSummary {
  readonly id: string;
  readonly counters: Record<string, number>;
  readonly startedAt?: number;
  readonly health: {
    readonly peakCpuPercent?: number;
    readonly peakRssBytes?: number;
    readonly peakOpenFiles?: number;
    readonly openFilesLimit?: number;
    readonly peakPortsInUse?: number;
    readonly peakEventLoopLagMs?: number;
    /** Packets the instance's EC2 network allowances queued or dropped over the run, by allowance (AWS only). */
    readonly nicAllowanceExceeded?: Readonly<Record<string, number>>;
  };
  readonly lost?: string;
  /**
   * The builds of the OS packages this generator's boot installed without a version (the CloudWatch agent, ethtool:
   * the AMI's repository decides them), name → version-release.arch, from its ready.json. AWS generators only; absent
   * for a generator booted before the record existed.
   */
  readonly osPackages?: Readonly<Record<string, string>>;
}

/** A threshold's outcome. */
export interface ThresholdResult {
  readonly expression: string;
  readonly ok: boolean;
  readonly error?: string;
  /** The values the expression read, when its text does not name them all (`baseline.*`, a bare `p99`). */
  readonly values?: string;
  /** A `strict: false` condition: a breach is shown but does not fail the run (as in Artillery). */
  readonly optional?: boolean;
  /** `--ensure` read a name this run never recorded (counted as 0): which, and the recorded name it is closest to. */
  readonly note?: string;
}

/** The summary JSON. */
export interface RunSummary {
  readonly runId: string;
  readonly platform: 'local' | 'aws';
  readonly target: string;
  readonly scenario: string;
  /**
   * The built-in scenario whose measurements the run made (its figure rows and delivery checks), decided by the rig
   * processor and functions the script runs, not its name (scripts/rig-processor.ts): `pubsub` for `--scenario pubsub`
   * and for a user's copy of pubsub.yml that keeps its processor and flow; absent for a script of the user's own.
   */
  readonly rigScenario?: string;
  readonly status: 'completed' | 'interrupted' | 'partial' | 'timed-out';
  readonly startedAt?: number;
  readonly endedAt: number;
  /** Artillery's aggregate; the extra keys (histograms, period, first/last instants) absent from runs of older rigs. */
  readonly aggregate: Pick<ArtilleryReportSection, 'counters' | 'rates' | 'summaries'> & Partial<Omit<ArtilleryReportSection, 'counters' | 'rates' | 'summaries'>>;
  readonly rig: {
    readonly plan: { readonly generators: number; readonly arrivalsPerGenerator: number[]; readonly peakConcurrent: number; readonly capacityPerGenerator: number; readonly bindingLimit: string };
    readonly generators: GeneratorSummary[];
    readonly startSkewMs: number | null;
    readonly verdict: Verdict['verdict'];
    readonly verdictDetail: Verdict;
    readonly lostGenerators: ReadonlyArray<{ id: string; reason: string }>;
    /**
     * Exit codes a plugin asked Artillery for at the end of a finished load process (artillery-plugin-expect's 21
     * when an expectation failed), each with how many load processes asked; absent when none did.
     */
    readonly askedExitCodes?: ReadonlyArray<{ readonly code: number; readonly processes: number }>;
    /**
     * Load processes that finished their load and then failed (the script's `after` section, a plugin's cleanup), by
     * exit code and why, each with how many; every figure is in. Absent when none did.
     */
    readonly failedAfterLoad?: ReadonlyArray<{ readonly code: number; readonly why: string; readonly processes: number }>;
    /** Peak memory per held vuser on the generators and on the target (bytes; undefined when not measurable). */
    readonly memoryPerVuser?: { readonly generatorBytes?: number; readonly targetBytes?: number; readonly peakHeld: number };
    /**
     * The most vusers held at once (target connections, generator sockets) next to `--vusers N`; `notSampled` instead
     * of the counts when the vusers held their connections for less than the 5-s sampling interval (the samples
     * would have caught a few of them, or none, by chance).
     */
    readonly held?: { readonly requested?: number; readonly targetConnections?: number; readonly generatorSockets?: number; readonly notSampled?: string };
  };
  readonly failedRatio: number;
  /** The scenario's own figures (e.g. every row of Relaybox's results table for `rooms`). */
  readonly figures: FigureRow[];
  readonly thresholds: ThresholdResult[];
  /** Passed or failed, the exit code, and every reason in words (the first thing report.html shows). */
  readonly result: RunResult;
  /** `--baseline`: the run compared with, and how its scenario or load differs (empty: comparable). */
  readonly baseline?: { readonly runId: string; readonly differences: readonly string[] };
  /** Generators in several regions: Relaybox's figures per region, one entry per region (scripts/report/regions.ts). */
  readonly regions?: readonly RegionColumn[];
}

/** `result` of the summary JSON. */
export interface RunResult {
  readonly passed: boolean;
  /** The documented exit code (0, 1, 3 or 130). */
  readonly exitCode: number;
  /** Why it failed, every reason in words; when it passed, what held. */
  readonly reasons: readonly string[];
}

/** CloudWatch data of an AWS run: one shape for the platform's metrics source and the report (scripts/contracts.ts). */
export type { CloudWatchSection, CloudWatchSeries } from '../contracts';

/** report.json: the summary JSON, then the raw material of the report. */
export interface ReportJson extends RunSummary {
  readonly intermediate: ArtilleryReport['intermediate'];
  readonly byGenerator: ArtilleryReport['byGenerator'];
  readonly timeline: {
    readonly periodMs: number;
    /** Every health sample of every load process, sorted by time. */
    readonly health: readonly HealthSample[];
    /** Target-side samples (reference target's /metrics), sorted by time. */
    readonly target: readonly TargetSample[];
  };
  /** Phases of each generator as planned. */
  readonly phases: ReadonlyArray<{ readonly generator: string; readonly phases: unknown[] }>;
  readonly cloudwatch?: CloudWatchSection;
  /** Latency distributions of the whole run, from the merged sketches (histogram buckets and ranges). */
  readonly distributions?: Record<string, Distribution>;
  /** Generators in several regions: each region's column with its timeline. */
  readonly regions?: readonly RegionSummary[];
}
