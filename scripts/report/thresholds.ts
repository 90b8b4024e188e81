/**
 * `--ensure` thresholds, in Artillery's `ensure` expression syntax, evaluated on the MERGED aggregate
 * with filtrex (the expression library Artillery's ensure plugin uses). Metric names become
 * variables: counters and rates by name, histogram summaries as `<name>.<stat>` (e.g.
 * `ws.connect_time.p99 < 300`, `vusers.failed == 0`). As in Artillery, names are swapped for safe
 * identifiers before compiling, since metric names may hold characters filtrex does not accept.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { compileExpression } = require('filtrex') as { compileExpression: (expr: string) => (vars: Record<string, unknown>) => unknown };
import { createHash } from 'node:crypto';
import { distance } from 'fastest-levenshtein';
import { UsageError } from '../errors';
import type { ArtilleryReportSection } from '../core/merge';
import type { ThresholdResult } from './types';

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

/** Statistics a histogram has as `<name>.<stat>`. */
const HISTOGRAM_STATS = ['min', 'max', 'mean', 'median', 'count', 'p50', 'p75', 'p90', 'p95', 'p99', 'p999'];
const PERCENTILE_STATS = HISTOGRAM_STATS.filter((s) => !['min', 'max', 'count'].includes(s));
/** filtrex 2's words and functions: never metric names. */
const FILTREX_WORDS = new Set(['and', 'or', 'not', 'in', 'if', 'then', 'else', 'abs', 'ceil', 'floor', 'log', 'max', 'min', 'random', 'round', 'sqrt']);
/** A quoted string (kept as is) or a name, dotted or not, that is not a function call. */
const NAME_OR_STRING = /("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?<![\w.])([A-Za-z_][\w]*(?:\.[\w-]+)*)(?![\w(])/g;

/**
 * Evaluates each expression. A counter the run never produced counts as 0 (`ws.dropped == 0` holds on a run that
 * dropped nothing), and the result names it (`note`), with the recorded name it is closest to: a typo such as
 * `vusers.faild == 0` would otherwise hold silently. A statistic of a histogram the run never recorded (or a
 * statistic histograms do not have) cannot be evaluated: counted as 0, `ws.connect_time.p99 < 300` would pass on
 * a run that measured no connect at all.
 */
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
    // Names this run never emitted, dotted or not (strings, filtrex's words and the ids above left alone).
    rewritten = rewritten.replace(NAME_OR_STRING, (all, quoted: string | undefined, name: string | undefined) => {
      if (quoted !== undefined || name === undefined || FILTREX_WORDS.has(name) || names.has(name)) return all;
      const id = `m${names.size}_`;
      names.set(id, name);
      return id;
    });
    const unrecorded = [...new Set([...names.values()].filter((n) => !vars.has(n)))];
    const problem = histogramProblem(unrecorded, aggregate);
    if (problem) return { expression, ok: false, error: problem };
    const note = unrecorded.length ? unrecordedNote(unrecorded, vars) : undefined;
    try {
      const f = compileExpression(rewritten);
      const values: Record<string, unknown> = {};
      for (const [id, name] of names) values[id] = vars.get(name) ?? 0;
      const result = f(values);
      if (result instanceof Error) return { expression, ok: false, error: result.message };
      return { expression, ok: result === true || result === 1, ...(note ? { note } : {}) };
    } catch (err) {
      return { expression, ok: false, error: `cannot evaluate: ${(err as Error).message.split('\n')[0]}` };
    }
  });
}

/** Why a name read as `<histogram>.<stat>` cannot be evaluated, if one can't. */
function histogramProblem(unrecorded: readonly string[], aggregate: Pick<ArtilleryReportSection, 'summaries'>): string | undefined {
  const histograms = Object.keys(aggregate.summaries).sort();
  for (const name of unrecorded) {
    const dot = name.lastIndexOf('.');
    if (dot < 0) continue;
    const [base, stat] = [name.slice(0, dot), name.slice(dot + 1)];
    if (histograms.includes(base)) return `${base} has no statistic ${stat}; use one of ${HISTOGRAM_STATS.join(', ')}`;
    // Percentiles, mean and median name nothing but a histogram's statistic; min, max and count could end a counter's
    // name. A histogram of a family the run recorded (http.response_time.5xx beside http.response_time) is absent
    // because nothing fell in it, and reads 0 with a note; one of a family the run never recorded
    // (ws.connect_time on an HTTP-only run) names the wrong metric for this script.
    const family = `${base.split('.')[0]}.`;
    if (PERCENTILE_STATS.includes(stat) && !histograms.some((h) => h.startsWith(family))) {
      return `this run recorded no histogram ${base}${histograms.length ? ` (histograms: ${histograms.join(', ')})` : ''}, so ${name} has no value`;
    }
  }
  return undefined;
}

/** "vusers.faild was not recorded by this run (counted as 0; did you mean vusers.failed?)". */
function unrecordedNote(unrecorded: readonly string[], vars: ReadonlyMap<string, number>): string {
  const recorded = [...vars.keys()];
  return unrecorded
    .map((name) => {
      const near = recorded.filter((r) => distance(r, name) <= Math.min(2, Math.floor(name.length / 4))).sort((a, b) => distance(a, name) - distance(b, name))[0];
      return `${name} was not recorded by this run (counted as 0${near ? `; did you mean ${near}?` : ''})`;
    })
    .join('; ');
}

// ---------------------------------------------------------------------------------------------------
/*
 * The `ensure` checks of a run, gathered once before it starts and evaluated once on the MERGED
 * aggregate (a load process never runs ensure on its slice: scripts/scenario.ts strips it).
 *
 * Two sources, two documented semantics:
 *  - `--ensure EXPR` (the rig's flag): {@link evaluateThresholds} — a metric the run never produced counts as 0;
 *  - the script's own `config.ensure` / `config.plugins.ensure` (when the plugin is enabled, as Artillery
 *    requires), in every form Artillery 2.0.34's ensure plugin reads (`thresholds`, `conditions` with
 *    `strict`, the legacy `p99`/`max`/… and `maxErrorRate` keys), evaluated exactly as that plugin does (artillery-plugin-ensure `runChecks`): the same
 *    expressions, metric names swapped for quoted SHA-256 names in the report's key order, a check passes
 *    only when filtrex returns 1, and a missing metric stays undefined (so `x < 1` fails, as in Artillery).
 *    A failed `strict: false` condition is reported but does not fail the run (Artillery exits 0).
 */

/** One check as the run will evaluate it. */
export interface EnsureCheck {
  /** As shown in the summary (Artillery's own wording for the legacy forms, e.g. `p99 < 200`). */
  readonly expression: string;
  /** What is evaluated (e.g. `http.response_time.p99 < 200`). */
  readonly evaluate: string;
  /** false: a breach is reported but does not fail the run (`strict: false`). */
  readonly strict: boolean;
  /** `flag`: `--ensure`, the rig's semantics; `script`: the script's ensure, Artillery's semantics. */
  readonly source: 'flag' | 'script';
}

const LEGACY_CONDITIONS = ['min', 'max', 'median', 'p95', 'p99'];

/**
 * Whether Artillery would evaluate the script's ensure checks: `artillery run` (2.0.34) loads the ensure
 * plugin only when `config.plugins.ensure` is present; `config.ensure` alone is read by nothing and the
 * run exits 0. `ARTILLERY_DISABLE_ENSURE` (any value) turns it off, as in Artillery.
 */
export function ensureEnabled(config: { ensure?: unknown; plugins?: Record<string, unknown> }, env: Readonly<Record<string, string | undefined>> = {}): boolean {
  return config.plugins?.ensure != null && env.ARTILLERY_DISABLE_ENSURE === undefined;
}

/** The line the run prints when a script has `config.ensure` that Artillery would not evaluate. */
export function ensureIgnoredNote(config: { ensure?: unknown; plugins?: Record<string, unknown> }, env: Readonly<Record<string, string | undefined>> = {}): string | undefined {
  if (!config.ensure || config.plugins?.ensure != null) return undefined;
  if (env.ARTILLERY_DISABLE_ENSURE !== undefined) return undefined;
  return 'note: config.ensure is not evaluated: as with plain `artillery run`, the checks run only when the ensure plugin is enabled; add `plugins: { ensure: {} }` to config to enforce them';
}

/** The script's ensure settings Artillery would evaluate: `config.ensure`, else `config.plugins.ensure` (one, never both). */
function ensureSettings(config: { ensure?: unknown; plugins?: Record<string, unknown> }, env: Readonly<Record<string, string | undefined>>): Record<string, unknown> | undefined {
  if (!ensureEnabled(config, env)) return undefined;
  const checks = config.ensure || config.plugins?.ensure;
  return checks && typeof checks === 'object' ? (checks as Record<string, unknown>) : undefined;
}

/**
 * The script's ensure checks in Artillery's order: thresholds, conditions, legacy keys, maxErrorRate;
 * none unless Artillery would evaluate them ({@link ensureEnabled}). As in Artillery, `config.ensure`
 * wins over `config.plugins.ensure` (one or the other, never both).
 */
export function scriptEnsureChecks(config: { ensure?: unknown; plugins?: Record<string, unknown> }, env: Readonly<Record<string, string | undefined>> = {}): EnsureCheck[] {
  const checks = ensureSettings(config, env);
  if (!checks) return [];
  const out: EnsureCheck[] = [];
  const add = (expression: string, evaluate: string, strict: boolean) => out.push({ expression, evaluate, strict, source: 'script' });
  if (Array.isArray(checks.thresholds)) {
    for (const o of checks.thresholds) {
      if (!o || typeof o !== 'object') continue;
      const metric = Object.keys(o)[0];
      if (metric === undefined) continue;
      const expr = `${metric} < ${(o as Record<string, unknown>)[metric]}`;
      add(expr, expr, true);
    }
  }
  if (Array.isArray(checks.conditions)) {
    for (const o of checks.conditions as Array<{ expression?: unknown; strict?: unknown }>) {
      if (!o || typeof o !== 'object') continue;
      const expression = String(o.expression);
      add(expression, expression, typeof o.strict === 'boolean' ? o.strict : true);
    }
  }
  for (const k of Object.keys(checks).filter((key) => LEGACY_CONDITIONS.includes(key))) {
    const max = parseInt(String(checks[k]), 10);
    add(`${k} < ${max}`, `http.response_time.${k} < ${max}`, true);
  }
  if (checks.maxErrorRate !== undefined) {
    const max = Number(checks.maxErrorRate);
    add(`maxErrorRate < ${max}`, `((vusers.created - vusers.completed)/vusers.created * 100) <= ${max}`, true);
  }
  return out;
}

/**
 * The script's own failed-vuser budget, `ensure.maxErrorRate` (percent), where Artillery would evaluate it; undefined
 * when there is none or it is not a number from 0 to 100.
 */
export function scriptMaxErrorRate(config: { ensure?: unknown; plugins?: Record<string, unknown> }, env: Readonly<Record<string, string | undefined>> = {}): number | undefined {
  const checks = ensureSettings(config, env);
  const max = checks?.maxErrorRate !== undefined ? Number(checks.maxErrorRate) : NaN;
  return Number.isFinite(max) && max >= 0 && max <= 100 ? max : undefined;
}

/** `--ensure` flags as checks (always strict). */
export function flagEnsureChecks(expressions: readonly string[]): EnsureCheck[] {
  return expressions.map((expression) => ({ expression, evaluate: expression, strict: true, source: 'flag' as const }));
}

/**
 * Parses every check before the run: a syntax error is bad input (exit 2, nothing started), not a
 * breach found after the whole load ran. Metric names are swapped for plain identifiers first, as at evaluation.
 */
export function assertEnsureParses(checks: readonly EnsureCheck[]): void {
  for (const c of checks) {
    const where = c.source === 'flag' ? `--ensure ${JSON.stringify(c.expression)}` : `config.ensure ${JSON.stringify(c.expression)}`;
    if (!c.evaluate.trim() || c.evaluate === 'undefined') throw new UsageError(`${where} has no expression; write e.g. "vusers.failed == 0"`);
    const plain = c.evaluate.replace(/[A-Za-z_$][\w$]*(?:\.[\w$/:-]+)+/g, 'x');
    try {
      compileExpression(plain);
    } catch (err) {
      const reason = (err as Error).message.split('\n').slice(-1)[0]?.trim() ?? '';
      throw new UsageError(`${where} is not a valid ensure expression (${reason}); use Artillery's syntax, e.g. "http.response_time.p99 < 300 and vusers.failed == 0"`);
    }
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Evaluates one script check exactly as artillery-plugin-ensure does. */
function evaluateLikeArtillery(check: EnsureCheck, aggregate: Pick<ArtilleryReportSection, 'counters' | 'rates' | 'summaries'>): ThresholdResult {
  const values = new Map<string, unknown>();
  for (const [k, v] of Object.entries(aggregate.counters)) values.set(k, v);
  for (const [k, v] of Object.entries(aggregate.rates)) values.set(k, v);
  for (const [name, s] of Object.entries(aggregate.summaries)) for (const [stat, v] of Object.entries(s)) values.set(`${name}.${stat}`, v);
  let hashed = check.evaluate;
  for (const name of values.keys()) {
    while (hashed.includes(name)) hashed = hashed.replace(name, `'${sha256(name)}'`);
  }
  const vars: Record<string, unknown> = {};
  for (const [name, v] of values) vars[sha256(name)] = v;
  const base = { expression: check.expression, ...(check.strict ? {} : { optional: true }) };
  try {
    const result = compileExpression(hashed)(vars);
    return { ...base, ok: result === 1 };
  } catch (err) {
    return { ...base, ok: false, error: `cannot evaluate: ${(err as Error).message.split('\n')[0]}` };
  }
}

/** Evaluates every check once, on the merged aggregate, each with its source's semantics. */
export function evaluateEnsure(checks: ReadonlyArray<EnsureCheck | string>, aggregate: Pick<ArtilleryReportSection, 'counters' | 'rates' | 'summaries'>): ThresholdResult[] {
  return checks.map((c) => {
    const check = typeof c === 'string' ? flagEnsureChecks([c])[0]! : c;
    if (check.source === 'script') return evaluateLikeArtillery(check, aggregate);
    const [r] = evaluateThresholds([check.evaluate], aggregate);
    return { ...r!, expression: check.expression, ...(check.strict ? {} : { optional: true }) };
  });
}
