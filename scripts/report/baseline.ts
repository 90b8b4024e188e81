/**
 * `--ensure` expressions against a baseline run (pure). `baseline.<name>` reads the baseline's value
 * of any name an expression can use (`pubsub.delivery_latency.p99 <= baseline.pubsub.delivery_latency.p99 * 1.1`).
 *
 * The short form `p99 <= baseline.p99 * 1.1`: a bare statistic (`p50`, `p95`, `p99`, `mean`,
 * `max`, …) names that statistic of the run's headline latency, the first of
 * {@link HEADLINE_LATENCIES} the run recorded (message delivery where the scenario delivers
 * messages, else connect time), or of its only latency histogram for a user's script; in
 * `baseline.p99` the same histogram of the baseline. When there is none, or several and none of the
 * headline names, the expression cannot be evaluated and says which names to use instead.
 *
 * Only `--ensure` flags read the baseline; a script's own ensure checks keep Artillery's semantics.
 *
 * A baseline that ran another scenario or load is not compared: an expression that reads it fails
 * with the differences as its reason, so CI never passes a build on a meaningless comparison.
 */
import type { ArtilleryReportSection } from '../core/merge';
import { RIG_INTERNAL_HISTOGRAMS } from './distribution';
import { EnsureCheck, evaluateEnsure, evaluateThresholds, flagEnsureChecks, metricVariables } from './thresholds';
import type { ThresholdResult } from './types';

type Aggregate = Pick<ArtilleryReportSection, 'counters' | 'rates' | 'summaries'>;

/** The baseline an evaluation reads: its run id, its aggregate, and how its scenario or load differs. */
export interface BaselineInput {
  readonly runId: string;
  readonly aggregate: Aggregate;
  /** Empty when comparable (see compare.ts `loadDifferences`). */
  readonly differences: readonly string[];
}

/** Histograms a bare statistic may name, in order of preference. */
export const HEADLINE_LATENCIES = ['pubsub.delivery_latency', 'broadcast.latency', 'recovery.delivery_latency', 'ws.connect_time'] as const;

const STATS = ['min', 'max', 'mean', 'median', 'count', 'p50', 'p75', 'p90', 'p95', 'p99', 'p999'];
/** A bare statistic, alone or after `baseline.`; not part of a longer name, not a function call (`max(a, b)`), not in a string. */
const BARE = new RegExp(`(?<![\\w."'])(baseline\\.)?(${STATS.join('|')})(?![\\w.]|\\s*\\()`, 'g');
const BASELINE_NAME = /(?<![\w.])baseline\.([\w.-]+[\w-])/g;

/** Whether an expression reads the baseline (`baseline.` anything). */
export const usesBaseline = (expression: string): boolean => /(?<![\w.])baseline\./.test(expression);

/** The histogram a bare statistic names in this run, or why there is none. */
export function headlineLatency(aggregate: Aggregate): { name: string } | { error: string } {
  const names = Object.keys(aggregate.summaries);
  const headline = HEADLINE_LATENCIES.find((n) => names.includes(n));
  if (headline) return { name: headline };
  const latencies = names.filter((n) => n !== 'vusers.session_length' && !RIG_INTERNAL_HISTOGRAMS.has(n));
  if (latencies.length === 1 && latencies[0]) return { name: latencies[0] };
  return {
    error: latencies.length
      ? `a bare statistic is ambiguous here (histograms: ${latencies.sort().join(', ')}); name one, e.g. ${latencies[0]}.p99 <= baseline.${latencies[0]}.p99 * 1.1`
      : 'a bare statistic names the run\'s latency histogram, and this run recorded none',
  };
}

/** The expression with every bare statistic spelled out (`p99` → `pubsub.delivery_latency.p99`). */
export function expandBareStatistics(expression: string, aggregate: Aggregate): { expanded: string } | { error: string } {
  if (!new RegExp(BARE.source).test(expression)) return { expanded: expression };
  const headline = headlineLatency(aggregate);
  if ('error' in headline) return headline;
  return { expanded: expression.replace(BARE, (_m, prefix: string | undefined, stat: string) => `${prefix ?? ''}${headline.name}.${stat}`) };
}

/**
 * Evaluates the expressions on the run's aggregate with the baseline's values as `baseline.*`;
 * `evaluate` is the rig's threshold evaluator (one expression at a time).
 */
export function evaluateWithBaseline(
  expressions: readonly string[],
  aggregate: Aggregate,
  baseline: BaselineInput | undefined,
  evaluate: (expressions: readonly string[], aggregate: Aggregate) => ThresholdResult[],
): ThresholdResult[] {
  const baseVars = baseline ? metricVariables(baseline.aggregate) : new Map<string, number>();
  const combined: Aggregate = {
    counters: { ...aggregate.counters, ...Object.fromEntries([...baseVars].map(([k, v]) => [`baseline.${k}`, v])) },
    rates: aggregate.rates,
    summaries: aggregate.summaries,
  };
  return expressions.map((expression): ThresholdResult => {
    const expansion = expandBareStatistics(expression, aggregate);
    if ('error' in expansion) return { expression, ok: false, error: expansion.error };
    const expanded = expansion.expanded;
    if (usesBaseline(expanded)) {
      if (!baseline) return { expression, ok: false, error: 'it reads baseline.* but the run has no --baseline' };
      if (baseline.differences.length) return { expression, ok: false, error: `not compared: baseline ${baseline.runId} ran a different scenario or load (${baseline.differences.join('; ')})` };
      const missing = [...expanded.matchAll(BASELINE_NAME)].map((m) => m[1] ?? '').filter((n) => !baseVars.has(n));
      if (missing.length) return { expression, ok: false, error: `baseline ${baseline.runId} has no ${[...new Set(missing)].join(', ')}` };
    }
    const reads = usesBaseline(expanded);
    const [result] = evaluate([expanded], reads ? combined : aggregate);
    const done: ThresholdResult = { ...(result ?? { ok: false, error: 'not evaluated' }), expression };
    // The text names `baseline.p99`, not the values it read: the reason shows them.
    return (reads || expanded !== expression) && !done.ok && !done.error ? { ...done, values: valuesRead(expanded, metricVariables(reads ? combined : aggregate)) } : done;
  });
}

/** "a.p99 = 12, baseline.a.p99 = 10": every known name in the expression, longest first, none twice. */
function valuesRead(expression: string, vars: ReadonlyMap<string, number>): string {
  const names = [...vars.keys()].filter((n) => new RegExp(`(?<![\\w.])${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.])`).test(expression));
  return names
    .sort((a, b) => expression.indexOf(a) - expression.indexOf(b) || b.length - a.length)
    .map((n) => `${n} = ${vars.get(n)}`)
    .join(', ');
}

/**
 * Every ensure check of a run: `--ensure` flags with the baseline (and bare statistics) as above, a
 * script's own checks exactly as Artillery's ensure plugin evaluates them.
 */
export function evaluateRunChecks(checks: ReadonlyArray<EnsureCheck | string>, aggregate: Aggregate, baseline: BaselineInput | undefined): ThresholdResult[] {
  return checks.map((c): ThresholdResult => {
    const check = typeof c === 'string' ? flagEnsureChecks([c])[0] : c;
    if (!check || check.source === 'script') return evaluateEnsure(check ? [check] : [], aggregate)[0] ?? { expression: String(c), ok: false, error: 'not evaluated' };
    const [r] = evaluateWithBaseline([check.expression], aggregate, baseline, evaluateThresholds);
    return { ...(r ?? { ok: false, error: 'not evaluated' }), expression: check.expression, ...(check.strict ? {} : { optional: true }) };
  });
}
