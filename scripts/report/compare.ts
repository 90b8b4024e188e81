/**
 * Comparing a run with its baseline (pure): every counter and rate, every summary's p50/p95/p99, the
 * rig verdicts and the results side by side with absolute and relative deltas, and whether the two
 * runs are comparable at all (same scenario and load). A baseline that ran something else is said
 * so, never compared silently.
 */
import { secondsOfPhase, type Phase } from '../core/phases';
import { isBookkeeping } from './artillery-format';
import type { RunSummary } from './types';

/** What defines a run's load: a different value in the baseline makes the comparison apples to oranges. */
export interface RunLoad {
  readonly scenario: string;
  /** Total vusers (arrivals over every generator). */
  readonly vusers: number;
  /** The arrival phases, summed over the generators: "ramp 2 s, 20 arrivals". */
  readonly phases: readonly string[];
  /** `--hold` in seconds, `default` without one; absent when the run did not record its flags. */
  readonly holdSeconds?: number | 'default';
  /** Scenario variables (`--var`), when the run recorded them. */
  readonly vars?: Readonly<Record<string, string>>;
}

/** One run as the comparison sees it: its summary and its load. */
export interface ComparedRun {
  readonly summary: Pick<RunSummary, 'runId' | 'scenario' | 'status' | 'aggregate' | 'failedRatio' | 'result'> & { readonly rig: Pick<RunSummary['rig'], 'verdict' | 'plan'> };
  readonly load: RunLoad;
}

/** One row of the comparison table. */
export interface ComparisonRow {
  /** `counter`, `rate`, `summary` (one statistic of a histogram) or `ratio`. */
  readonly kind: 'counter' | 'rate' | 'summary' | 'ratio';
  /** The name an `--ensure` expression uses (`pubsub.delivery_latency.p99`, `vusers.failed`). */
  readonly metric: string;
  /** Absent when that run did not produce the metric. */
  readonly base?: number;
  readonly run?: number;
  /** run − base; absent when either is. */
  readonly delta?: number;
  /** (run − base) / base; absent when either is missing or the base is 0. */
  readonly relative?: number;
}

/** The comparison of two runs. */
export interface Comparison {
  readonly base: { readonly runId: string; readonly verdict: string; readonly result: string; readonly load: RunLoad };
  readonly run: { readonly runId: string; readonly verdict: string; readonly result: string; readonly load: RunLoad };
  /** Empty when comparable; otherwise each difference of scenario or load, in words. */
  readonly differences: readonly string[];
  readonly rows: readonly ComparisonRow[];
}

/** The statistics of each histogram the table shows. */
export const COMPARED_STATS = ['p50', 'p95', 'p99'] as const;

/** The per-generator phases of a plan summed into one list ("ramp 2 s, 20 arrivals"). */
export function phasesOf(perGenerator: ReadonlyArray<{ readonly phases: readonly unknown[] }>): string[] {
  const merged: Array<{ name: string; seconds: number; arrivals: number; rate: number }> = [];
  for (const g of perGenerator) {
    for (const [i, raw] of g.phases.entries()) {
      const p = (raw ?? {}) as Record<string, unknown>;
      const slot = (merged[i] ??= { name: typeof p.name === 'string' ? p.name : `phase ${i + 1}`, seconds: 0, arrivals: 0, rate: 0 });
      slot.seconds = Math.max(slot.seconds, secondsOfPhase(p as Pick<Phase, 'duration' | 'pause'>));
      slot.arrivals += Number(p.arrivalCount ?? 0) || 0;
      slot.rate += Number(p.arrivalRate ?? 0) || 0;
    }
  }
  return merged.map((m) => `${m.name} ${m.seconds} s${m.arrivals ? `, ${m.arrivals} arrivals` : ''}${m.rate ? `, ${m.rate}/s` : ''}`);
}

/** How the baseline's scenario or load differs from the run's, each difference in words. */
export function loadDifferences(base: RunLoad, run: RunLoad): string[] {
  const out: string[] = [];
  if (base.scenario !== run.scenario) out.push(`scenario: baseline ${base.scenario}, this run ${run.scenario}`);
  if (base.vusers !== run.vusers) out.push(`vusers: baseline ${base.vusers}, this run ${run.vusers}`);
  if (base.phases.join('; ') !== run.phases.join('; ')) out.push(`phases: baseline ${base.phases.join('; ') || 'none'}, this run ${run.phases.join('; ') || 'none'}`);
  if (base.holdSeconds !== undefined && run.holdSeconds !== undefined && base.holdSeconds !== run.holdSeconds) {
    const hold = (h: number | 'default') => (h === 'default' ? 'the scenario\'s default' : `${h} s`);
    out.push(`hold: baseline ${hold(base.holdSeconds)}, this run ${hold(run.holdSeconds)}`);
  }
  if (base.vars && run.vars) {
    for (const k of [...new Set([...Object.keys(base.vars), ...Object.keys(run.vars)])].sort()) {
      const b = base.vars[k];
      const r = run.vars[k];
      if (b !== r) out.push(`--var ${k}: baseline ${b ?? '(not set)'}, this run ${r ?? '(not set)'}`);
    }
  }
  return out;
}

function row(kind: ComparisonRow['kind'], metric: string, base: number | undefined, run: number | undefined): ComparisonRow {
  const both = base !== undefined && run !== undefined;
  return {
    kind,
    metric,
    ...(base !== undefined ? { base } : {}),
    ...(run !== undefined ? { run } : {}),
    ...(both ? { delta: run - base } : {}),
    ...(both && base !== 0 ? { relative: (run - base) / base } : {}),
  };
}

const names = (a: object, b: object) => [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((n) => !isBookkeeping(n)).sort();
const resultText = (r: ComparedRun['summary']['result']) => `${r.passed ? 'PASSED' : 'FAILED'} (exit ${r.exitCode})`;

/** Compares a run with its baseline. */
export function compareRuns(base: ComparedRun, run: ComparedRun): Comparison {
  const b = base.summary.aggregate;
  const r = run.summary.aggregate;
  const rows: ComparisonRow[] = [];
  for (const n of names(b.counters, r.counters)) rows.push(row('counter', n, b.counters[n], r.counters[n]));
  rows.push(row('ratio', 'failed ratio', base.summary.failedRatio, run.summary.failedRatio));
  for (const n of names(b.rates, r.rates)) rows.push(row('rate', n, b.rates[n], r.rates[n]));
  for (const n of names(b.summaries, r.summaries)) {
    for (const stat of COMPARED_STATS) rows.push(row('summary', `${n}.${stat}`, b.summaries[n]?.[stat], r.summaries[n]?.[stat]));
  }
  const side = (c: ComparedRun) => ({ runId: c.summary.runId, verdict: c.summary.rig.verdict, result: resultText(c.summary.result), load: c.load });
  return { base: side(base), run: side(run), differences: loadDifferences(base.load, run.load), rows };
}

/** A number as the table shows it: integers as they are, others to one decimal (ratios to four). */
export function formatNumber(n: number | undefined, kind: ComparisonRow['kind'] = 'counter'): string {
  if (n === undefined || Number.isNaN(n)) return '–';
  if (kind === 'ratio') return `${Number((n * 100).toFixed(2))}%`;
  return Number.isInteger(n) ? String(n) : (Math.round(n * 10) / 10).toFixed(1);
}

/** The delta columns of a row: "+12", "+8.3%" (signed), "–" where there is none. */
export function formatDelta(r: ComparisonRow): { delta: string; relative: string } {
  const sign = (n: number) => (n > 0 ? '+' : '');
  const delta = r.delta === undefined ? (r.base === undefined ? 'only in this run' : r.run === undefined ? 'only in baseline' : '–') : r.kind === 'ratio' ? `${sign(r.delta)}${Number((r.delta * 100).toFixed(2))} pp` : `${sign(r.delta)}${formatNumber(r.delta)}`;
  const relative = r.relative === undefined ? '–' : `${sign(r.relative)}${(r.relative * 100).toFixed(1)}%`;
  return { delta, relative };
}

/** The comparison as a plain-text table (stdout of `npm run report -- --compare` and the end of a `--baseline` run). */
export function formatComparison(c: Comparison): string {
  const header = ['metric', `baseline ${c.base.runId}`, `this run ${c.run.runId}`, 'Δ', 'Δ %'];
  const body: string[][] = [
    ['rig verdict', c.base.verdict, c.run.verdict, c.base.verdict === c.run.verdict ? 'same' : 'changed', ''],
    ['result', c.base.result, c.run.result, c.base.result === c.run.result ? 'same' : 'changed', ''],
    ...c.rows.map((r) => {
      const d = formatDelta(r);
      return [r.metric, formatNumber(r.base, r.kind), formatNumber(r.run, r.kind), d.delta, d.relative];
    }),
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ').trimEnd();
  const out = [`Comparison: this run ${c.run.runId} against baseline ${c.base.runId}`];
  if (c.differences.length) {
    out.push('NOT COMPARABLE: the baseline ran a different scenario or load; the deltas below are not a regression measure:');
    for (const d of c.differences) out.push(`  - ${d}`);
  } else out.push(`same scenario and load: ${c.run.load.scenario}, ${c.run.load.vusers} vusers (${c.run.load.phases.join('; ')})`);
  out.push('', line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line));
  return out.join('\n');
}
