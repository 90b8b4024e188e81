import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { DDSketch } from '@artilleryio/sketches-js';
import {
  PeriodMetrics,
  aggregate,
  buildArtilleryReport,
  deserializePeriod,
  mergePeriods,
  serializePeriod,
  summarize,
  clampPercentile,
  toReportSection,
} from '../../scripts/core/merge';

const ROOT = path.resolve(__dirname, '../..');
const P1 = 1700000000000;
const P2 = 1700000010000;

function sketch(values: number[]): DDSketch {
  const h = new DDSketch({ relativeAccuracy: 0.01 });
  for (const v of values) h.accept(v);
  return h;
}

const range = (n: number, f: (i: number) => number): number[] => Array.from({ length: n }, (_, i) => f(i));

/** Exact quantile of raw samples, same rank convention as DDSketch (rank = q × (n - 1)). */
function exactQuantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(q * (sorted.length - 1))] as number;
}

function period(p: number, counters: Record<string, number>, samples: Record<string, number[]> = {}, rates: Record<string, number> = {}): PeriodMetrics {
  const histograms: Record<string, DDSketch> = {};
  for (const [n, v] of Object.entries(samples)) histograms[n] = sketch(v);
  return { period: p, counters, histograms, rates };
}

describe('codec', () => {
  test('serializePeriod round-trips counters, rates, timestamps and sketches', () => {
    const p: PeriodMetrics = {
      ...period(P1, { 'vusers.created': 7 }, { 'http.response_time': [1, 2, 3, 400] }, { 'http.request_rate': 3 }),
      firstCounterAt: P1 + 1,
      lastCounterAt: P1 + 9,
      firstMetricAt: P1 + 1,
      lastMetricAt: P1 + 9,
    };
    const json = serializePeriod(p);
    expect(json).toMatch(/"type":"Buffer","data":"base64:/);
    const back = deserializePeriod(json);
    expect(back.counters).toEqual(p.counters);
    expect(back.rates).toEqual(p.rates);
    expect(back.lastMetricAt).toBe(P1 + 9);
    expect(summarize(back.histograms['http.response_time'] as DDSketch)).toEqual(summarize(p.histograms['http.response_time'] as DDSketch));
    expect(serializePeriod(back)).toBe(json);
  });

  test('reads the byte-array Buffer form, empty-buffer strings, string periods and missing containers', () => {
    const bytes = Array.from(sketch([5, 6, 7]).toProto());
    const p = deserializePeriod(JSON.stringify({ period: String(P2), histograms: { a: { type: 'Buffer', data: bytes }, b: { type: 'Buffer', data: '' } } }));
    expect(p.period).toBe(P2);
    expect(p.counters).toEqual({});
    expect(p.rates).toEqual({});
    expect(p.histograms.a?.count).toBe(3);
    expect(p.histograms.b?.count).toBe(0);
  });

  test('rejects malformed input with a clear message', () => {
    expect(() => deserializePeriod('')).toThrow(/empty/);
    expect(() => deserializePeriod('[]')).toThrow(/not a JSON object/);
    expect(() => deserializePeriod('{"counters":{}}')).toThrow(/no numeric "period"/);
    expect(() => deserializePeriod(`{"period":${P1},"histograms":{"x":{"type":"Buffer","data":"base64:AAAA"}}}`)).toThrow(/histogram "x"/);
    expect(() => deserializePeriod(`{"period":${P1},"counters":{"x":"3"}}`)).toThrow(/counters\["x"\]/);
  });
});

interface Fixture {
  serialized: string[];
  counters: Array<Record<string, number>>;
  summaries: Array<Record<string, ReturnType<typeof summarize>>>;
  merged: Array<{ period: number; counters: Record<string, number>; summaries: Record<string, ReturnType<typeof summarize>> }>;
  packed: { counters: Record<string, number>; rates: Record<string, number>; summaries: Record<string, ReturnType<typeof summarize>> };
}

type Summary = ReturnType<typeof summarize>;
/** Artillery's summary with the rig's one difference: percentiles (and mean) clamped to [min, max]. */
function clamped(s: Summary): Summary {
  const c = (v: number) => Math.min(s.max, Math.max(s.min, v));
  return { ...s, mean: c(s.mean), p50: c(s.p50), median: c(s.median), p75: c(s.p75), p90: c(s.p90), p95: c(s.p95), p99: c(s.p99), p999: c(s.p999) };
}
const clampAll = (m: Record<string, Summary>) => Object.fromEntries(Object.entries(m).map(([n, s]) => [n, clamped(s)]));

describe("Artillery's real serializer", () => {
  // Node 22 from node_modules/.bin runs Artillery's ESM build; the test itself may run on any Node.
  const env = { ...process.env, PATH: `${path.join(ROOT, 'node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}` };
  const fixture = JSON.parse(
    execFileSync('node', [path.join(__dirname, 'fixtures/make-ssms-fixture.mjs')], { cwd: ROOT, env, encoding: 'utf8' }),
  ) as Fixture;

  test('deserializePeriod reads exactly the counters and quantiles Artillery wrote (clamped to [min, max])', () => {
    fixture.serialized.forEach((json, i) => {
      const p = deserializePeriod(json);
      expect(p.counters).toEqual(fixture.counters[i]);
      const ours = Object.fromEntries(Object.entries(p.histograms).map(([n, h]) => [n, summarize(h)]));
      expect(ours).toEqual(clampAll(fixture.summaries[i] ?? {}));
    });
  });

  test("merge and aggregate agree with Artillery's mergeBuckets and pack", () => {
    const periods = fixture.serialized.map(deserializePeriod);
    const merged = mergePeriods(periods);
    expect(merged.map((m) => ({ period: m.period, counters: m.counters, summaries: toReportSection(m).summaries }))).toEqual(
      fixture.merged.map((m) => ({ ...m, summaries: clampAll(m.summaries) })),
    );
    const total = toReportSection(aggregate(periods));
    expect(total.counters).toEqual(fixture.packed.counters);
    expect(total.rates).toEqual(fixture.packed.rates);
    expect(total.summaries).toEqual(clampAll(fixture.packed.summaries));
  });
});

describe('mergePeriods', () => {
  const fast = range(90, (i) => 10 + (i % 10));
  const slow = range(10, (i) => 1000 + 100 * i);

  test('merged percentiles match the pooled samples, where averaging per-generator percentiles is badly wrong', () => {
    const [m] = mergePeriods([period(P1, {}, { rt: fast }), period(P1, {}, { rt: slow })]);
    const merged = m?.histograms.rt as DDSketch;
    const pooled = [...fast, ...slow];
    for (const q of [0.5, 0.75, 0.9, 0.95, 0.99]) {
      const exact = exactQuantile(pooled, q);
      expect(Math.abs(merged.getValueAtQuantile(q) - exact)).toBeLessThanOrEqual(0.01 * exact + 1e-9);
    }
    expect(merged.count).toBe(100);
    const meanOfP95s = (sketch(fast).getValueAtQuantile(0.95) + sketch(slow).getValueAtQuantile(0.95)) / 2;
    const pooledP95 = exactQuantile(pooled, 0.95);
    expect(pooledP95).toBe(1400);
    // Averaging percentiles says ~960 ms; the true p95 is 1400 ms.
    expect(Math.abs(meanOfP95s - pooledP95) / pooledP95).toBeGreaterThan(0.25);
  });

  test('counters and rates are summed, periods sorted, timestamps widened', () => {
    const a = { ...period(P2, { c: 1 }, {}, { r: 3 }), firstCounterAt: P2 + 5, lastCounterAt: P2 + 6 };
    const b = { ...period(P1, { c: 2, d: 1 }), firstCounterAt: P1 + 1, lastCounterAt: P1 + 2 };
    const c = { ...period(P2, { c: 4 }, {}, { r: 2 }), firstCounterAt: P2 + 1, lastCounterAt: P2 + 9 };
    const merged = mergePeriods([a, b, c]);
    expect(merged.map((m) => m.period)).toEqual([P1, P2]);
    expect(merged[1]?.counters).toEqual({ c: 5 });
    expect(merged[1]?.rates).toEqual({ r: 5 });
    expect(merged[1]?.firstCounterAt).toBe(P2 + 1);
    expect(merged[1]?.lastCounterAt).toBe(P2 + 9);
    expect(merged[1]?.firstMetricAt).toBe(P2 + 1);
  });

  test('duplicate batches for one period from one generator are merged, not dropped', () => {
    const first = period(P1, { 'vusers.created': 3 }, { rt: [1, 2, 3] });
    const late = period(P1, { 'vusers.created': 2 }, { rt: [100, 200] });
    const report = buildArtilleryReport({ g1: [first, late] });
    expect(report.intermediate).toHaveLength(1);
    expect(report.aggregate.counters['vusers.created']).toBe(5);
    expect(report.aggregate.summaries.rt?.count).toBe(5);
    expect(report.byGenerator.g1?.counters['vusers.created']).toBe(5);
  });

  test('inputs are never mutated', () => {
    const a = period(P1, { c: 1 }, { rt: fast }, { r: 1 });
    const b = period(P1, { c: 2 }, { rt: slow });
    const before = [serializePeriod(a), serializePeriod(b)];
    mergePeriods([a, b]);
    aggregate([a, b]);
    buildArtilleryReport({ x: [a], y: [b] });
    expect([serializePeriod(a), serializePeriod(b)]).toEqual(before);
    expect(a.histograms.rt?.count).toBe(90);
  });
});

describe('report', () => {
  test("aggregate rates are the mean of per-period cross-generator rates, rounded like Artillery's pack", () => {
    const total = aggregate([period(P1, {}, {}, { r: 10 }), period(P1, {}, {}, { r: 5 }), period(P2, {}, {}, { r: 4 })]);
    expect(total.rates.r).toBe(10); // (15 + 4) / 2 = 9.5 → 10
    expect(total.period).toBe(P2);
  });

  test('buildArtilleryReport has the --output shape plus per-generator totals', () => {
    const report = buildArtilleryReport({
      g1: [period(P1, { 'vusers.created': 90 }, { rt: range(90, () => 10) }), period(P2, { 'vusers.created': 1 })],
      g2: [period(P1, { 'vusers.created': 10 }, { rt: range(10, () => 1000) })],
    });
    expect(report.intermediate.map((s) => s.period)).toEqual([P1, P2]);
    expect(report.aggregate.counters).toEqual({ 'vusers.created': 101 });
    expect(report.aggregate.histograms).toEqual(report.aggregate.summaries);
    expect(Object.keys(report.aggregate.summaries.rt ?? {})).toEqual(['min', 'max', 'count', 'mean', 'p50', 'median', 'p75', 'p90', 'p95', 'p99', 'p999']);
    expect(report.aggregate.summaries.rt?.count).toBe(100);
    expect(report.aggregate.summaries.rt?.mean).toBe(109);
    expect(report.byGenerator.g2?.summaries.rt?.max).toBe(1000);
    expect(report.byGenerator.g1?.counters['vusers.created']).toBe(91);
  });
});

describe('summarize: percentiles inside [min, max]', () => {
  test("DDSketch's 1% error never puts a percentile below the min or above the max", () => {
    // One sample: the sketch's bucket value for 40,003.7 is ~39,747 — below the only value seen.
    const one = sketch([40_003.7]);
    expect(one.getValueAtQuantile(0.5)).toBeLessThan(40_003.7);
    const s = summarize(one);
    for (const v of [s.p50, s.median, s.p75, s.p90, s.p95, s.p99, s.p999, s.mean]) expect(v).toBe(40_003.7);
    // Many samples near one value: every percentile within [min, max], ordered.
    const many = summarize(sketch(range(500, (i) => 250.5 + (i % 3) * 0.1)));
    const order = [many.min, many.p50, many.p75, many.p90, many.p95, many.p99, many.p999, many.max];
    for (const v of order) expect(v >= many.min && v <= many.max).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  test('clampPercentile leaves values inside the range and non-numbers alone', () => {
    expect(clampPercentile(5, 1, 9)).toBe(5);
    expect(clampPercentile(0.5, 1, 9)).toBe(1);
    expect(clampPercentile(10, 1, 9)).toBe(9);
    expect(clampPercentile(Number.NaN, 1, 9)).toBeNaN();
  });
});
