/**
 * `--ensure` thresholds, in Artillery's `ensure` expression syntax, evaluated on the MERGED aggregate
 * with filtrex (the expression library Artillery's ensure plugin uses). Metric names become
 * variables: counters and rates by name, histogram summaries as `<name>.<stat>` (e.g.
 * `ws.connect_time.p99 < 300`, `vusers.failed == 0`). As in Artillery, names are swapped for safe
 * identifiers before compiling, since metric names may hold characters filtrex does not accept.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { compileExpression } = require('filtrex') as { compileExpression: (expr: string) => (vars: Record<string, unknown>) => unknown };
import type { ArtilleryReportSection } from '../core/merge';
import type { ThresholdResult } from './summary';

/** Flattens the aggregate into name → number, the variables an expression can use. */
export function metricVariables(aggregate: Pick<ArtilleryReportSection, 'counters' | 'rates' | 'summaries'>): Map<string, number> {
  const vars = new Map<string, number>();
  for (const [k, v] of Object.entries(aggregate.counters)) vars.set(k, v);
  for (const [k, v] of Object.entries(aggregate.rates)) vars.set(k, v);
  for (const [name, s] of Object.entries(aggregate.summaries)) {
    for (const [stat, v] of Object.entries(s)) vars.set(`${name}.${stat}`, v as number);
  }
  return vars;
}

/** Evaluates each expression; a metric the run never produced counts as 0, as a counter would. */
export function evaluateThresholds(expressions: readonly string[], aggregate: Pick<ArtilleryReportSection, 'counters' | 'rates' | 'summaries'>): ThresholdResult[] {
  const vars = metricVariables(aggregate);
  return expressions.map((expression) => {
    const names = new Map<string, string>();
    // Longest names first so `a.b.p99` is replaced before `a.b`.
    let rewritten = expression;
    const known = [...vars.keys()].sort((a, b) => b.length - a.length);
    for (const name of known) {
      if (!rewritten.includes(name)) continue;
      const id = `m${names.size}_`;
      names.set(id, name);
      rewritten = rewritten.split(name).join(id);
    }
    // Unknown dotted names (a metric this run never emitted) evaluate as 0.
    rewritten = rewritten.replace(/\b[A-Za-z_][\w]*(\.[\w-]+)+\b/g, (unknown) => {
      const id = `m${names.size}_`;
      names.set(id, unknown);
      return id;
    });
    try {
      const f = compileExpression(rewritten);
      const values: Record<string, unknown> = {};
      for (const [id, name] of names) values[id] = vars.get(name) ?? 0;
      const result = f(values);
      if (result instanceof Error) return { expression, ok: false, error: result.message };
      return { expression, ok: result === true || result === 1 };
    } catch (err) {
      return { expression, ok: false, error: `cannot evaluate: ${(err as Error).message.split('\n')[0]}` };
    }
  });
}
