/**
 * The run's summary (README.md "The run folder"; also the top of report.json) and its terminal table.
 * Pure: built from collected data, no I/O.
 */
import { countsList } from '../core/counts-list';
import type { Plan } from '../core/plan';
import { ArtilleryReport, ArtilleryReportSection, buildArtilleryReport } from '../core/merge';
import { decideVerdict, generatorErrorCode } from '../core/verdict';
import type { ErrorOrigins, HealthSample } from '../core/verdict';
import { artillerySummaryLines } from './artillery-format';
import type { GeneratorData } from './collect';
import { SCRIPT_BUDGET, decideResult, resultLine } from './result';
import { heldText } from './findings';
import { thresholdStatus } from './threshold-status';
import { clockRows, scenarioFigures } from './scenario-figures';
import type { GeneratorSummary, RunSummary, ThresholdResult } from './types';

/** Artillery's reporting period. */
export const PERIOD_MS = 10_000;

/** What the summary is built from. */
export interface SummaryInput {
  readonly runId: string;
  readonly platform: 'local' | 'aws';
  readonly target: string;
  readonly scenario: string;
  /** The built-in scenario whose measurements the run made (RunSummary.rigScenario): its figures and delivery checks. */
  readonly rigScenario?: string;
  readonly plan: Plan;
  readonly data: readonly GeneratorData[];
  readonly startAt?: number;
  readonly endedAt: number;
  readonly interrupted: boolean;
  readonly timedOut: boolean;
  readonly lostGenerators: ReadonlyArray<{ id: string; reason: string }>;
  readonly portRange: number;
  /** `--max-error-rate` as a fraction (0 when not given). */
  readonly maxErrorRate?: number;
  /** The budget is the script's `ensure.maxErrorRate`, not `--max-error-rate`. */
  readonly maxErrorRateFromScript?: boolean;
  /** Evaluates the run's thresholds on the merged aggregate; none when absent. */
  readonly thresholds?: (aggregate: ArtilleryReportSection) => readonly ThresholdResult[];
  /** The script's engines and whether it is built in, for telling its own errors from the target's. */
  readonly errorOrigins?: ErrorOrigins;
}

const maxOf = (xs: Array<number | undefined>): number | undefined => {
  const v = xs.filter((x): x is number => typeof x === 'number');
  return v.length ? Math.max(...v) : undefined;
};

/** The generator-side error codes among one period's counters, with their counts. */
function generatorErrorCodes(counters: Readonly<Record<string, number>>): Record<string, number> {
  const codes: Record<string, number> = {};
  for (const [name, n] of Object.entries(counters)) {
    const code = generatorErrorCode(name);
    if (code) codes[code] = (codes[code] ?? 0) + n;
  }
  return codes;
}

/** Builds the merged Artillery report and the summary. */
/** Each allowance's packets over a generator's samples, when any sample counted them (an EC2 generator with ENA). */
function nicAllowanceTotals(health: readonly HealthSample[]): { nicAllowanceExceeded?: Record<string, number> } {
  const counted = health.filter((h) => h.nicAllowanceExceeded);
  if (!counted.length) return {};
  const total: Record<string, number> = {};
  for (const h of counted) for (const [k, n] of Object.entries(h.nicAllowanceExceeded ?? {})) total[k] = (total[k] ?? 0) + n;
  return { nicAllowanceExceeded: total };
}

export function buildSummary(input: SummaryInput): { summary: RunSummary; report: ArtilleryReport } {
  const report = buildArtilleryReport(Object.fromEntries(input.data.map((g) => [g.id, g.periods])));
  const allStarts = input.data.flatMap((g) => g.startedAt);
  const startSkewMs = allStarts.length ? Math.max(...allStarts) - Math.min(...allStarts) : null;
  const errorsByPeriod = new Map<number, number>(
    report.intermediate.map((s) => [s.period, Object.entries(s.counters).filter(([k]) => k.startsWith('errors.')).reduce((a, [, v]) => a + v, 0)]),
  );
  const verdict = decideVerdict({
    samples: input.data.flatMap((g) => g.health),
    portRange: input.portRange,
    periodMs: PERIOD_MS,
    errorsByPeriod,
    lostGenerators: input.lostGenerators.map((l) => l.id),
    generatorErrors: input.data.flatMap((g) => g.periods.map((p) => ({ generator: g.id, period: p.period, codes: generatorErrorCodes(p.counters) }))),
    counters: report.aggregate.counters,
    ...(input.errorOrigins ? { errorOrigins: input.errorOrigins } : {}),
  });
  const lost = new Map(input.lostGenerators.map((l) => [l.id, l.reason]));
  const generators: GeneratorSummary[] = input.data.map((g) => ({
    id: g.id,
    counters: report.byGenerator[g.id]?.counters ?? {},
    startedAt: g.startedAt.length ? Math.min(...g.startedAt) : undefined,
    health: {
      peakCpuPercent: maxOf(g.health.map((h) => h.cpuPercent)),
      peakRssBytes: maxOf(g.health.map((h) => h.rssBytes)),
      peakOpenFiles: maxOf(g.health.map((h) => h.openFiles)),
      openFilesLimit: maxOf(g.health.map((h) => h.openFilesLimit)),
      peakPortsInUse: maxOf(g.health.map((h) => h.portsInUse)),
      peakEventLoopLagMs: maxOf(g.health.map((h) => h.eventLoopLagMs)),
      ...nicAllowanceTotals(g.health),
    },
    ...(lost.has(g.id) ? { lost: lost.get(g.id) } : {}),
    ...(g.osPackages ? { osPackages: g.osPackages } : {}),
  }));
  const c = report.aggregate.counters;
  const created = c['vusers.created'] ?? 0;
  const failedRatio = created > 0 ? (c['vusers.failed'] ?? 0) / created : 0;
  const asked = askedExitCodes(input.data);
  const afterLoad = failuresAfterLoad(input.data);
  const status: RunSummary['status'] = input.interrupted ? 'interrupted' : input.timedOut ? 'timed-out' : input.lostGenerators.length ? 'partial' : 'completed';
  const partial: Omit<RunSummary, 'result'> = {
    runId: input.runId,
    platform: input.platform,
    target: input.target,
    scenario: input.scenario,
    ...(input.rigScenario ? { rigScenario: input.rigScenario } : {}),
    status,
    startedAt: input.startAt,
    endedAt: input.endedAt,
    // Artillery's own --output aggregate, key for key (histograms beside summaries, period, first/last instants), so
    // what reads plain's report reads ours: `.aggregate.histograms[name].p99` was null.
    aggregate: { ...report.aggregate, counters: report.aggregate.counters, rates: report.aggregate.rates, summaries: report.aggregate.summaries },
    rig: {
      plan: {
        generators: input.plan.generators.length,
        arrivalsPerGenerator: input.plan.generators.map((g) => g.arrivals),
        peakConcurrent: input.plan.peakConcurrent,
        capacityPerGenerator: input.plan.capacityPerGenerator,
        bindingLimit: input.plan.bindingLimit,
      },
      generators,
      startSkewMs,
      verdict: verdict.verdict,
      verdictDetail: verdict,
      lostGenerators: input.lostGenerators,
      ...(asked.length ? { askedExitCodes: asked } : {}),
      ...(afterLoad.length ? { failedAfterLoad: afterLoad } : {}),
    },
    failedRatio,
    figures: scenarioFigures(input.rigScenario, report.aggregate, report.intermediate),
    thresholds: [...(input.thresholds?.(report.aggregate) ?? [])],
  };
  const summary: RunSummary = { ...partial, result: decideResult(partial, input.maxErrorRate ?? 0, input.maxErrorRateFromScript ? SCRIPT_BUDGET : undefined) };

  return { summary, report };
}

/**
 * The terminal summary for stderr: what ran, the engine's metrics as Artillery prints them, the
 * scenario's figures, the rig, the thresholds, where the report is, and last the result line (the same
 * words as the report's banner and the JSON's `result`).
 */
export function formatSummaryTable(s: RunSummary, reportPath?: string, suppressed: readonly string[] = []): string {
  const rows: Array<[string, string]> = [
    ['run', `${s.runId} (${s.platform}, ${s.status})`],
    ['target', s.target],
    ['scenario', s.scenario],
  ];
  const metrics = artillerySummaryLines(s.aggregate, suppressed);
  const heading = 'Summary report (every generator merged, as Artillery prints it)';
  const dashes = '-'.repeat(heading.length);
  const figureRows: Array<[string, string]> = (s.figures ?? []).map((f) => [f.label, f.text]);
  const rig: Array<[string, string]> = [];
  rig.push(['generators (arrivals each)', `${s.rig.plan.generators} (${countsList(s.rig.plan.arrivalsPerGenerator, ' / ')})`]);
  rig.push(['start skew', s.rig.startSkewMs === null ? 'n/a' : `${s.rig.startSkewMs} ms`]);
  for (const f of clockRows(s.aggregate)) rig.push([f.label, f.text]);
  const mem = s.rig.memoryPerVuser;
  if (mem && (mem.generatorBytes !== undefined || mem.targetBytes !== undefined)) {
    const kb = (b?: number) => (b === undefined ? 'n/a' : `${(b / 1024).toFixed(1)} KB`);
    rig.push(['memory per held vuser (generator / target)', `${kb(mem.generatorBytes)} / ${kb(mem.targetBytes)} (peak ${mem.peakHeld} held)`]);
  } else if (s.rig.held?.notSampled) {
    rig.push(['memory per held vuser', `not measured: ${s.rig.held.notSampled}`]);
  } else if (mem && mem.peakHeld > 0) {
    rig.push(['memory per held vuser', `not measured: ${mem.peakHeld} held at the peak, too few for start-up growth not to dominate (from 1,000)`]);
  }
  const held = heldText(s.rig, s.rigScenario);
  if (held) rig.push(['peak held at once', held.text]);
  rig.push(['rig verdict', `${s.rig.verdict}: ${s.rig.verdictDetail.summary}`]);
  const limited = (s.rig.verdictDetail.periods ?? []).filter((p) => p.rigLimited);
  for (const p of limited.slice(0, 5)) {
    rig.push([
      `  period ${new Date(p.period).toISOString().slice(11, 19)}`,
      `${p.saturated.map((g) => `${g.generator} (${g.reasons.join(', ')})`).join('; ')}${p.errors ? `; ${p.errors} errors` : ''}`,
    ]);
  }
  if (limited.length > 5) rig.push(['  …', `${limited.length - 5} more rig-limited periods in report.html`]);
  for (const t of s.thresholds) rig.push([`ensure ${t.expression}`, thresholdStatus(t).text]);
  const table = (rs: Array<[string, string]>) => {
    const width = Math.max(0, ...rs.map(([k]) => k.length));
    return rs.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`);
  };
  return [
    ...table(rows),
    '',
    dashes,
    heading,
    dashes,
    ...(metrics.length ? metrics : ['No measurements recorded']),
    '',
    ...table([...figureRows, ...rig]),
    '',
    ...(reportPath ? [`report: ${reportPath}`] : []),
    `result: ${resultLine(s.result)}`,
  ].join('\n');
}

/** Load processes that failed after their load, across every generator, grouped by exit code and why. */
function failuresAfterLoad(data: ReadonlyArray<Pick<GeneratorData, 'done'>>): Array<{ code: number; why: string; processes: number }> {
  const groups = new Map<string, { code: number; why: string; processes: number }>();
  for (const g of data) {
    for (const f of g.done?.failedAfterLoad ?? []) {
      if (!f) continue;
      const key = `${f.code}\u0000${f.why}`;
      const group = groups.get(key) ?? { code: f.code, why: f.why, processes: 0 };
      group.processes++;
      groups.set(key, group);
    }
  }
  return [...groups.values()];
}

/** The exit codes plugins asked for across every generator's load processes, with how many asked each. */
function askedExitCodes(data: ReadonlyArray<Pick<GeneratorData, 'done'>>): Array<{ code: number; processes: number }> {
  const counts = new Map<number, number>();
  for (const g of data) for (const c of g.done?.askedExitCodes ?? []) if (typeof c === 'number') counts.set(c, (counts.get(c) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a - b).map(([code, processes]) => ({ code, processes }));
}
