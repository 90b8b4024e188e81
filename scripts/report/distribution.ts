/**
 * Latency distributions from the merged DDSketch of a histogram (pure): a histogram over log-spaced
 * buckets for the chart, and Gatling-style ranges ("t < 100 ms", "100 ms ≤ t < 500 ms", …) for the
 * table. Counts come from the sketch's own bins, so every sample is counted once; a bin's value is
 * within the sketch's 1% of the samples in it, and is clamped to the exact [min, max].
 */
import type { DDSketch } from '@artilleryio/sketches-js';
import { clampPercentile } from '../core/merge';
import { histogramUnit } from './units';

/** One histogram bucket: samples with `from ≤ value < to` (ms). */
export interface DistributionBucket {
  readonly from: number;
  readonly to: number;
  readonly count: number;
}

/** One metric's distribution in report.json. */
export interface Distribution {
  readonly count: number;
  readonly buckets: readonly DistributionBucket[];
  readonly ranges: ReadonlyArray<{ readonly label: string; readonly count: number; readonly percent: number }>;
}

/** Range edges (ms) a user reads latency by; only the edges inside the data are used. */
const RANGE_EDGES = [10, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000];
/** Histogram buckets per factor of 10. */
const PER_DECADE = 5;

/** Every (value, count) the sketch holds, zeros included. */
function binsOf(h: DDSketch): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (h.zeroCount > 0) out.push([0, h.zeroCount]);
  const store = h.store;
  for (let i = 0; i < store.bins.length; i++) {
    const c = store.bins[i] ?? 0;
    if (c > 0) out.push([clampPercentile(h.mapping.value(i + store.offset), h.min, h.max), c]);
  }
  return out;
}

const fmtMs = (v: number) => (v >= 1000 ? `${Number((v / 1000).toFixed(1))} s` : `${v} ms`);

/**
 * The distribution of one sketch; undefined for an empty one. `unit`: `ms` for a time (ranges read `t < 10 ms`), else
 * the value as recorded (`v < 10`: a script's own histogram, whose unit the report does not know; units.ts).
 */
export function distributionOf(h: DDSketch, unit: 'ms' | 'as recorded' = 'ms'): Distribution | undefined {
  const fmt = unit === 'ms' ? fmtMs : (v: number) => String(v);
  const x = unit === 'ms' ? 't' : 'v';
  // A sketch whose range is not a finite number has no distribution: Artillery records NaN for `http.tls` on a
  // plain-HTTP connection (extendedMetrics), and its summary shows min/max null; the edges below would never end.
  if (!Number.isFinite(h.min) || !Number.isFinite(h.max)) return undefined;
  const bins = binsOf(h);
  const count = bins.reduce((a, [, c]) => a + c, 0);
  if (!count) return undefined;
  const lo = Math.max(0.1, h.min);
  const hi = Math.max(lo, h.max);
  // Log-spaced edges on round numbers (1, 1.6, 2.5, 4, 6.3 × 10^k), from below min to above max.
  const edges: number[] = [];
  for (let k = Math.floor(Math.log10(lo) * PER_DECADE); ; k++) {
    const edge = Number(Math.pow(10, k / PER_DECADE).toPrecision(2));
    edges.push(edge);
    if (edge > hi) break;
  }
  const buckets = edges.slice(0, -1).map((from, i) => ({ from, to: edges[i + 1] as number, count: 0 }));
  const first = { from: 0, to: edges[0] as number, count: 0 };
  for (const [v, c] of bins) {
    const b = v < first.to ? first : buckets.find((x) => v >= x.from && v < x.to) ?? buckets[buckets.length - 1];
    if (b) b.count += c;
  }
  const allBuckets = (first.count ? [first, ...buckets] : buckets).filter((b, i, a) => b.count > 0 || (i > 0 && i < a.length - 1));
  const inside = RANGE_EDGES.filter((e) => e > h.min && e <= h.max);
  const rangeEdges = [0, ...inside, Infinity];
  const ranges = rangeEdges.slice(0, -1).map((from, i) => {
    const to = rangeEdges[i + 1] as number;
    const n = bins.filter(([v]) => v >= from && v < to).reduce((a, [, c]) => a + c, 0);
    const label = from === 0 ? `${x} < ${fmt(to)}` : to === Infinity ? `${x} ≥ ${fmt(from)}` : `${fmt(from)} ≤ ${x} < ${fmt(to)}`;
    return { label: to === Infinity && from === 0 ? 'all' : label, count: n, percent: Number(((100 * n) / count).toFixed(2)) };
  });
  return { count, buckets: allBuckets, ranges };
}

/** Histograms that are not latencies of the target (rig bookkeeping) get no distribution. */
export const RIG_INTERNAL_HISTOGRAMS = new Set(['clock.offset_ms', 'clock.rtt_ms', 'target.peak_send_rate_per_sec']);

/** Distributions of every latency histogram of the merged aggregate. */
export function distributionsOf(histograms: Record<string, DDSketch>): Record<string, Distribution> {
  const out: Record<string, Distribution> = {};
  for (const name of Object.keys(histograms).sort()) {
    if (RIG_INTERNAL_HISTOGRAMS.has(name)) continue;
    const h = histograms[name];
    const d = h ? distributionOf(h, histogramUnit(name) ?? 'as recorded') : undefined;
    if (d) out[name] = d;
  }
  return out;
}
