/**
 * Writes a run's report from the raw data in its run store: report.json (the summary JSON on top,
 * then the merged periods and the timelines) and report.html. One code path for the end of a run and
 * for `npm run report -- runs/<id>`; at the end of a run, the run's end state goes to outcome.json so a rebuild is exact.
 */
import type { RunStore } from '../contracts';
import { TargetSample, readTargetSamples } from '../adapters/target-metrics';
import { aggregate } from '../core/merge';
import type { Plan } from '../core/plan';
import type { ErrorOrigins, HealthSample } from '../core/verdict';
import { generatorBytesPerVuser, targetBytesPerVuser } from '../bench/figures';
import { BaselineInput, evaluateRunChecks } from './baseline';
import { collectRun } from './collect';
import { distributionsOf } from './distribution';
import { renderHtml } from './html';
import { PERIOD_MS, buildSummary } from './summary';
import { RegionRecord, regionColumn, regionalBreakdown } from './regions';
import type { EnsureCheck } from './thresholds';
import type { CloudWatchSection, ReportJson, RunSummary } from './types';

/** The run's end state: everything the report needs that is not in run.json or the raw data. */
export interface RunOutcomeRecord {
  readonly generatorIds: readonly string[];
  readonly startAt?: number;
  readonly endedAt: number;
  readonly interrupted: boolean;
  readonly timedOut: boolean;
  readonly lostGenerators: ReadonlyArray<{ readonly id: string; readonly reason: string }>;
  /** Ephemeral port range size of one source address on the generators. */
  readonly portRange: number;
  /** Every `--ensure` flag and script ensure check of the run (plain strings: `--ensure` flags of older runs). */
  readonly ensure: ReadonlyArray<EnsureCheck | string>;
  /** `--max-error-rate` as a fraction; absent in run folders written before it was kept (then 0). */
  readonly maxErrorRate?: number;
  /** The failed-vuser budget is the script's `ensure.maxErrorRate` (no `--max-error-rate`): the result names it so. */
  readonly maxErrorRateFromScript?: true;
  /** `--baseline`: the baseline's figures as `--ensure` reads them (`baseline.*`), kept so a rebuild is exact. */
  readonly baseline?: BaselineInput;
  /** Generators in several regions: which ran where (the report's per-region section). */
  readonly regions?: readonly RegionRecord[];
  /** The script's engines and whether it is built in (the verdict tells its own errors from the target's by them). */
  readonly errorOrigins?: ErrorOrigins;
}

/** What {@link writeReport} needs besides the store. */
export interface WriteReportInput extends RunOutcomeRecord {
  readonly runId: string;
  readonly platform: 'local' | 'aws';
  readonly target: string;
  readonly scenario: string;
  /** The built-in scenario whose measurements the run made (RunSummary.rigScenario). */
  readonly rigScenario?: string;
  readonly plan: Plan;
  readonly cloudwatch?: CloudWatchSection;
  /** `--vusers N`, when given: the peak held is shown next to it. */
  readonly requestedVusers?: number;
}

/** Options of {@link writeReport}. */
export interface WriteReportOptions {
  /** Where a skipped sample is said (scripts/report/run-files.ts). */
  readonly note?: (line: string) => void;
  /**
   * Whether outcome.json is written (the end of a run: the run's end state, kept for rebuilds). A rebuild reads it
   * and leaves it as it was.
   * @default true
   */
  readonly writeOutcome?: boolean;
}

/**
 * Writes outcome.json (unless told not to), builds the report from the store's raw data, then writes report.json and
 * report.html: neither is written until every file the report needs was read.
 */
export async function writeReport(store: RunStore, input: WriteReportInput, opts: WriteReportOptions = {}): Promise<{ summary: RunSummary; report: ReportJson }> {
  const note = opts.note ?? (() => undefined);
  const outcome: RunOutcomeRecord = {
    generatorIds: input.generatorIds,
    startAt: input.startAt,
    endedAt: input.endedAt,
    interrupted: input.interrupted,
    timedOut: input.timedOut,
    lostGenerators: input.lostGenerators,
    portRange: input.portRange,
    ensure: input.ensure,
    maxErrorRate: input.maxErrorRate ?? 0,
    ...(input.maxErrorRateFromScript ? { maxErrorRateFromScript: true as const } : {}),
    ...(input.baseline ? { baseline: input.baseline } : {}),
    ...(input.regions ? { regions: input.regions } : {}),
    ...(input.errorOrigins ? { errorOrigins: input.errorOrigins } : {}),
  };
  // First, so a run whose raw data turns out unreadable still keeps its end state for a later rebuild.
  if (opts.writeOutcome ?? true) await store.put('outcome.json', JSON.stringify(outcome, null, 2));
  const data = await collectRun(store, input.generatorIds, note);
  // The result is decided once, with the thresholds: the exit code, the banner and the JSON agree.
  const { summary, report } = buildSummary({
    ...input,
    data,
    thresholds: (aggregate) => evaluateRunChecks(input.ensure, aggregate, input.baseline),
    maxErrorRate: input.maxErrorRate ?? 0,
  });
  const health = data.flatMap((g) => g.health).sort((a, b) => a.at - b.at || a.generator.localeCompare(b.generator) || a.process.localeCompare(b.process));
  const targetSamples = await readTargetSamples(store, note);
  const held = peakHeldOf(input.requestedVusers, targetSamples, health, summary.aggregate.summaries['vusers.session_length']);
  const memoryPerVuser = memoryPerHeldVuser(held, input.plan.peakConcurrent, health, targetSamples);
  const regions = input.regions?.length ? regionalBreakdown(input.regions, data) : undefined;
  const finalSummary: RunSummary = {
    ...summary,
    rig: { ...summary.rig, memoryPerVuser, held },
    ...(input.baseline ? { baseline: { runId: input.baseline.runId, differences: input.baseline.differences } } : {}),
    ...(regions ? { regions: regions.map(regionColumn) } : {}),
  };
  // report.json's per-region block is the summary's columns with each region's timeline.
  const { regions: _columns, ...summaryFields } = finalSummary;
  const reportJson: ReportJson = {
    ...summaryFields,
    intermediate: report.intermediate,
    byGenerator: report.byGenerator,
    timeline: { periodMs: PERIOD_MS, health, target: targetSamples },
    phases: input.plan.generators.map((g, i) => ({ generator: input.generatorIds[i] ?? `#${g.index}`, phases: g.phases as unknown[] })),
    ...(input.cloudwatch ? { cloudwatch: input.cloudwatch } : {}),
    distributions: distributionsOf(aggregate(data.flatMap((g) => g.periods)).histograms),
    ...(regions ? { regions } : {}),
  };
  const html = renderHtml(reportJson);
  await store.put('report.json', JSON.stringify(reportJson, null, 2));
  await store.put('report.html', html);
  return { summary: finalSummary, report: reportJson };
}

/**
 * The most vusers held at once, seen from both sides: the target's open connections and the generators'
 * established sockets (summed over every load process per health interval). Both are sampled every 5 s: when
 * most vusers' sessions (`sessionLength`, Artillery's `vusers.session_length`) are shorter than that, a sample
 * finds some of them or none by chance ("0 generator sockets" with 20 vusers held 2 s), so no count is given.
 */
export function peakHeldOf(
  requested: number | undefined,
  target: readonly TargetSample[],
  health: readonly HealthSample[],
  sessionLength?: { readonly p50?: number; readonly median?: number },
): NonNullable<RunSummary['rig']['held']> {
  const typical = sessionLength?.p50 ?? sessionLength?.median;
  if (typical !== undefined && typical < HEALTH_WINDOW_MS) {
    return { ...(requested !== undefined ? { requested } : {}), notSampled: `sessions shorter than the ${HEALTH_WINDOW_MS / 1000}-s sampling` };
  }
  const connections = target.map((s) => s.connections).filter((c): c is number => typeof c === 'number');
  const byWindow = new Map<number, Map<string, number>>();
  for (const h of health) {
    if (typeof h.socketsEstablished !== 'number') continue;
    const window = Math.round(h.at / HEALTH_WINDOW_MS);
    const perProcess = byWindow.get(window) ?? new Map<string, number>();
    const key = `${h.generator}/${h.process}`;
    perProcess.set(key, Math.max(perProcess.get(key) ?? 0, h.socketsEstablished));
    byWindow.set(window, perProcess);
  }
  const sockets = [...byWindow.values()].map((m) => [...m.values()].reduce((a, b) => a + b, 0));
  return {
    ...(requested !== undefined ? { requested } : {}),
    ...(connections.length ? { targetConnections: Math.max(...connections) } : {}),
    ...(sockets.length ? { generatorSockets: Math.max(...sockets) } : {}),
  };
}

/**
 * Peak memory per held vuser, each side: RSS growth over the peak of connections actually held — the target's
 * connections (reference target), else the generators' established sockets (any target), else the plan's peak.
 * A run that held nothing (HTTP-only steps: 0 sockets), or whose sessions were too short to sample, has no such figure:
 * undefined, not growth ÷ the plan.
 */
export function memoryPerHeldVuser(held: NonNullable<RunSummary['rig']['held']>, plannedPeak: number, health: readonly HealthSample[], target: readonly TargetSample[]): NonNullable<RunSummary['rig']['memoryPerVuser']> {
  // Sessions shorter than the sampling: nothing measured was held, and growth ÷ the plan is the figure this replaced.
  if (held.notSampled) return { generatorBytes: undefined, targetBytes: undefined, peakHeld: 0 };
  const peakHeld = held.targetConnections || (held.generatorSockets ?? plannedPeak);
  // Below this the processes' own start-up growth (tens of MB) dominates: 10 held read as 2,692 KB each.
  if (peakHeld > 0 && peakHeld < MIN_HELD_FOR_MEMORY) return { generatorBytes: undefined, targetBytes: undefined, peakHeld };
  return { generatorBytes: generatorBytesPerVuser(health, peakHeld), targetBytes: targetBytesPerVuser(target), peakHeld };
}

/** Fewest connections held at once for a per-vuser memory figure (docs/performance.md "Per-vuser memory in every report"). */
export const MIN_HELD_FOR_MEMORY = 1000;

/** Health samples of different load processes within this window count as one instant. */
const HEALTH_WINDOW_MS = 5000;
