/**
 * Exact merge of Artillery per-period metrics from many generators: counters
 * summed, DDSketch histograms merged (never averaged percentiles), rates summed
 * per period. Mirrors `SSMS.mergeBuckets` / `SSMS.pack` from artillery 2.0.34
 * minus their quirks (in-place input mutation, NaN rate keys, dropped late
 * batches). Pure: no I/O, inputs are never mutated.
 */
import type { DDSketch } from '@artilleryio/sketches-js';
import { isRecord } from './is-record';
import { cloneSketch, decodeSketch, encodeSketch, ssmsParse, ssmsStringify } from './ssms-codec';

/** One reporting period's metrics (10-s window keyed by `period`, epoch ms). */
export interface PeriodMetrics {
  period: number;
  counters: Record<string, number>;
  histograms: Record<string, DDSketch>;
  rates: Record<string, number>;
  firstMetricAt?: number;
  lastMetricAt?: number;
  firstCounterAt?: number;
  lastCounterAt?: number;
  firstHistogramAt?: number;
  lastHistogramAt?: number;
}

/** Artillery's histogram summary (`summarizeHistogram`): values rounded to 1 decimal. */
export interface HistogramSummary {
  min: number;
  max: number;
  count: number;
  mean: number;
  p50: number;
  median: number;
  p75: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
}

/** One `aggregate` / `intermediate[]` entry of `artillery run --output` JSON. */
export interface ArtilleryReportSection {
  counters: Record<string, number>;
  rates: Record<string, number>;
  /** Same object as `summaries`: `--output` replaces raw histograms with their summaries. */
  histograms: Record<string, HistogramSummary>;
  summaries: Record<string, HistogramSummary>;
  period: number;
  firstCounterAt?: number;
  firstHistogramAt?: number;
  lastCounterAt?: number;
  lastHistogramAt?: number;
  firstMetricAt?: number;
  lastMetricAt?: number;
}

/** Whole-run report: Artillery's `--output` shape plus per-generator totals. */
export interface ArtilleryReport {
  aggregate: ArtilleryReportSection;
  intermediate: ArtilleryReportSection[];
  byGenerator: Record<string, { counters: Record<string, number>; summaries: Record<string, HistogramSummary> }>;
}

const TIMESTAMP_KEYS = [
  'firstMetricAt',
  'lastMetricAt',
  'firstCounterAt',
  'lastCounterAt',
  'firstHistogramAt',
  'lastHistogramAt',
] as const;
type TimestampKey = (typeof TIMESTAMP_KEYS)[number];

function numberMap(v: unknown, field: string): Record<string, number> {
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) throw new Error(`serialized period: "${field}" must be an object`);
  const out: Record<string, number> = {};
  for (const [k, x] of Object.entries(v)) {
    // JSON turns NaN into null; treat it as absent rather than failing the whole run.
    if (x === null) continue;
    if (typeof x !== 'number') throw new Error(`serialized period: ${field}["${k}"] is not a number`);
    out[k] = x;
  }
  return out;
}

/**
 * Parse one period written by `SSMS.serializeMetrics` (or {@link serializePeriod}).
 * Accepts `period` as a number or numeric string (Artillery keys buckets by
 * string), histogram buffers as `base64:` strings, byte arrays or `""` (empty
 * sketch), and missing `counters`/`histograms`/`rates` (Artillery omits empty ones).
 *
 * @throws Error describing the malformed part.
 */
export function deserializePeriod(json: string): PeriodMetrics {
  if (json.trim() === '') throw new Error('serialized period is empty');
  const raw = ssmsParse(json);
  if (!isRecord(raw)) throw new Error('serialized period is not a JSON object');
  const period = Number(raw.period);
  if (raw.period === undefined || raw.period === null || !Number.isFinite(period)) {
    throw new Error(`serialized period has no numeric "period" (got ${JSON.stringify(raw.period)})`);
  }
  const histograms: Record<string, DDSketch> = {};
  if (raw.histograms !== undefined && raw.histograms !== null) {
    if (!isRecord(raw.histograms)) throw new Error('serialized period: "histograms" must be an object');
    for (const [name, buf] of Object.entries(raw.histograms)) {
      if (!(buf instanceof Uint8Array)) throw new Error(`serialized period: histogram "${name}" is not a Buffer`);
      histograms[name] = decodeSketch(buf, name);
    }
  }
  const out: PeriodMetrics = {
    period,
    counters: numberMap(raw.counters, 'counters'),
    histograms,
    rates: numberMap(raw.rates, 'rates'),
  };
  // Keep the writer's key order so a re-serialized period is byte-identical.
  for (const [k, v] of Object.entries(raw)) {
    if ((TIMESTAMP_KEYS as readonly string[]).includes(k) && typeof v === 'number' && Number.isFinite(v)) out[k as TimestampKey] = v;
  }
  return out;
}

/** Serialize a period exactly as `SSMS.serializeMetrics` does, so Artillery and {@link deserializePeriod} read it back. */
export function serializePeriod(p: PeriodMetrics): string {
  const histograms: Record<string, Buffer> = {};
  for (const [name, h] of Object.entries(p.histograms)) histograms[name] = encodeSketch(h);
  return ssmsStringify({ ...p, histograms });
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  // Artillery's min/max skip falsy values (0 means "no measurement" in SSMS.empty).
  if (!a) return b || undefined;
  if (!b) return a;
  return Math.min(a, b);
}

function maxDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (!a) return b || undefined;
  if (!b) return a;
  return Math.max(a, b);
}

function emptyPeriod(period: number): PeriodMetrics {
  return { period, counters: {}, histograms: {}, rates: {} };
}

/** Fold `src` into `acc` (which the caller owns): counters/rates summed, sketches merged from clones. */
function accumulate(acc: PeriodMetrics, src: PeriodMetrics): void {
  for (const [name, v] of Object.entries(src.counters)) acc.counters[name] = (acc.counters[name] ?? 0) + v;
  for (const [name, v] of Object.entries(src.rates)) acc.rates[name] = (acc.rates[name] ?? 0) + v;
  for (const [name, h] of Object.entries(src.histograms)) {
    const mine = acc.histograms[name];
    // Merging into a clone keeps every input sketch untouched (merge() mutates its receiver).
    if (mine === undefined) acc.histograms[name] = cloneSketch(h);
    else mine.merge(cloneSketch(h));
  }
  acc.firstCounterAt = minDefined(acc.firstCounterAt, src.firstCounterAt);
  acc.firstHistogramAt = minDefined(acc.firstHistogramAt, src.firstHistogramAt);
  acc.lastCounterAt = maxDefined(acc.lastCounterAt, src.lastCounterAt);
  acc.lastHistogramAt = maxDefined(acc.lastHistogramAt, src.lastHistogramAt);
  acc.firstMetricAt = minDefined(minDefined(acc.firstMetricAt, src.firstMetricAt), minDefined(acc.firstCounterAt, acc.firstHistogramAt));
  acc.lastMetricAt = maxDefined(maxDefined(acc.lastMetricAt, src.lastMetricAt), maxDefined(acc.lastCounterAt, acc.lastHistogramAt));
}

function dropUndefinedTimestamps(p: PeriodMetrics): PeriodMetrics {
  for (const k of TIMESTAMP_KEYS) if (p[k as TimestampKey] === undefined) delete p[k as TimestampKey];
  return p;
}

/**
 * Merge periods from any number of generators into one entry per period, sorted
 * ascending: counters summed, histograms merged, rates summed (each generator
 * reports its own rate). Several batches for the same period — including
 * duplicates or late batches from one generator — are all merged, never dropped.
 */
export function mergePeriods(periods: PeriodMetrics[]): PeriodMetrics[] {
  const byPeriod = new Map<number, PeriodMetrics>();
  for (const p of periods) {
    let acc = byPeriod.get(p.period);
    if (acc === undefined) {
      acc = emptyPeriod(p.period);
      byPeriod.set(p.period, acc);
    }
    accumulate(acc, p);
  }
  return [...byPeriod.values()].sort((a, b) => a.period - b.period).map(dropUndefinedTimestamps);
}

/**
 * Whole-run totals like Artillery's `SSMS.pack` over merged periods: counters
 * summed, histograms merged, each rate the mean over all periods of its
 * per-period (cross-generator) value, rounded to an integer; `period` is the
 * latest period. Raw per-generator periods may be passed: they are merged first.
 */
export function aggregate(periods: PeriodMetrics[]): PeriodMetrics {
  const merged = mergePeriods(periods);
  const last = merged[merged.length - 1];
  const acc = emptyPeriod(last === undefined ? 0 : last.period);
  for (const p of merged) accumulate(acc, p);
  for (const name of Object.keys(acc.rates)) {
    acc.rates[name] = Math.round((acc.rates[name] ?? 0) / merged.length);
  }
  return dropUndefinedTimestamps(acc);
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

/**
 * Summarize a sketch as Artillery's `summarizeHistogram` does (1-decimal rounding), except that every
 * percentile is clamped to the exact [min, max]: DDSketch answers within 1% of the true value, which can
 * fall outside the range actually seen (a p50 of 39,747.5 ms under a min of 40,003.7 ms). Clamping only
 * moves a value towards the truth, so it stays within the sketch's error of Artillery's own figure.
 */
export function summarize(h: DDSketch): HistogramSummary {
  const min = round1(h.min);
  const max = round1(h.max);
  const q = (quantile: number) => clampPercentile(round1(h.getValueAtQuantile(quantile)), min, max);
  const p50 = q(0.5);
  return {
    min,
    max,
    count: h.count,
    mean: clampPercentile(round1(h.sum / h.count), min, max),
    p50,
    median: p50,
    p75: q(0.75),
    p90: q(0.9),
    p95: q(0.95),
    p99: q(0.99),
    p999: q(0.999),
  };
}

/** A percentile (or mean) held inside the observed [min, max]; unchanged when min/max are not numbers. */
export function clampPercentile(value: number, min: number, max: number): number {
  if (!Number.isFinite(value) || !Number.isFinite(min) || !Number.isFinite(max) || min > max) return value;
  return Math.min(max, Math.max(min, value));
}

function summarizeAll(histograms: Record<string, DDSketch>): Record<string, HistogramSummary> {
  const out: Record<string, HistogramSummary> = {};
  for (const [name, h] of Object.entries(histograms)) out[name] = summarize(h);
  return out;
}

/**
 * One section of `artillery run --output` JSON: counters, rates, timestamps,
 * `period`, and `summaries` — with `histograms` holding the same summaries, as
 * Artillery's run command writes them (it replaces raw sketches before saving).
 */
export function toReportSection(p: PeriodMetrics): ArtilleryReportSection {
  const summaries = summarizeAll(p.histograms);
  const section: ArtilleryReportSection = {
    counters: { ...p.counters },
    rates: { ...p.rates },
    histograms: summaries,
    summaries,
    period: p.period,
  };
  for (const k of TIMESTAMP_KEYS) {
    const v = p[k];
    if (v !== undefined) section[k] = v;
  }
  return section;
}

/**
 * Build the run report from every generator's periods: `aggregate` and
 * `intermediate` (one section per period, sorted) in Artillery's `--output`
 * format over all generators, plus `byGenerator` totals for rig diagnostics.
 */
export function buildArtilleryReport(periodsByGenerator: Record<string, PeriodMetrics[]>): ArtilleryReport {
  const all = Object.values(periodsByGenerator).flat();
  const merged = mergePeriods(all);
  const byGenerator: ArtilleryReport['byGenerator'] = {};
  for (const [id, periods] of Object.entries(periodsByGenerator)) {
    const total = aggregate(periods);
    byGenerator[id] = { counters: total.counters, summaries: summarizeAll(total.histograms) };
  }
  return {
    aggregate: toReportSection(aggregate(merged)),
    intermediate: merged.map(toReportSection),
    byGenerator,
  };
}
