/**
 * The per-region breakdown of a run whose generators ran in several regions: the figures Relaybox tabulated per
 * region (vusers created / completed / failed, session length, messages sent, delivery time min / mean / p95 / p99
 * / max), one column per region, and each region's timeline. Pure: built from the generators' own periods, merged
 * exactly per region (the same merge as the whole run), so the regions' counters add up to the run's.
 */
import { aggregate, mergePeriods, summarize } from '../core/merge';
import { RegionalPlan, generatorId } from '../core/regions';
import type { GeneratorData } from './collect';

/** Which generators ran in a region: kept in outcome.json so `npm run report` rebuilds the section exactly. */
export interface RegionRecord {
  readonly region: string;
  readonly weight: number;
  readonly generatorIds: readonly string[];
  /** Vusers the regional split gave the region. */
  readonly plannedVusers: number;
}

/** Latency figures of one region (ms); null when the region recorded none. */
export interface RegionLatency {
  readonly min: number;
  readonly mean: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly count: number;
}

/** One region's column of the summary JSON (`regions`). */
export interface RegionColumn extends RegionRecord {
  readonly vusersCreated: number;
  readonly vusersCompleted: number;
  readonly vusersFailed: number;
  readonly sessionLength: RegionLatency | null;
  /** Messages the region's vusers sent (pubsub.messages_sent, else broadcast.messages_sent); null when none. */
  readonly messagesSent: number | null;
  /** Delivery time of the messages the region's vusers received (pubsub.delivery_latency). */
  readonly deliveryTime: RegionLatency | null;
}

/** One region's column and its timeline (report.json `regions`). */
export interface RegionSummary extends RegionColumn {
  /** Per period (epoch ms of the period's start): vusers created and failed, and the delivery time p95. */
  readonly timeline: ReadonlyArray<{ readonly period: number; readonly created: number; readonly failed: number; readonly deliveryP95: number | null }>;
}


/** The record of each region of a regional plan (generator ids as scripts/run.ts names them). */
export function regionsOf(regional: RegionalPlan): RegionRecord[] {
  return regional.regions.map((r) => ({
    region: r.region,
    weight: r.weight,
    generatorIds: r.generatorIndices.map(generatorId),
    plannedVusers: r.plan.totalArrivals,
  }));
}

function latency(sketch: Parameters<typeof summarize>[0] | undefined): RegionLatency | null {
  if (!sketch || sketch.count === 0) return null;
  const s = summarize(sketch);
  return { min: s.min, mean: s.mean, p50: s.p50, p95: s.p95, p99: s.p99, max: s.max, count: s.count };
}

/** Each region's figures and timeline from the generators' data. */
export function regionalBreakdown(records: readonly RegionRecord[], data: readonly GeneratorData[]): RegionSummary[] {
  return records.map((r) => {
    const periods = data.filter((g) => r.generatorIds.includes(g.id)).flatMap((g) => g.periods);
    const total = aggregate(periods);
    const c = total.counters;
    const sent = c['pubsub.messages_sent'] ?? c['broadcast.messages_sent'];
    return {
      ...r,
      vusersCreated: c['vusers.created'] ?? 0,
      vusersCompleted: c['vusers.completed'] ?? 0,
      vusersFailed: c['vusers.failed'] ?? 0,
      sessionLength: latency(total.histograms['vusers.session_length']),
      messagesSent: sent ?? null,
      deliveryTime: latency(total.histograms['pubsub.delivery_latency']),
      timeline: mergePeriods(periods).map((p) => ({
        period: p.period,
        created: p.counters['vusers.created'] ?? 0,
        failed: p.counters['vusers.failed'] ?? 0,
        deliveryP95: latency(p.histograms['pubsub.delivery_latency'])?.p95 ?? null,
      })),
    };
  });
}

/** The section's rows: label, then one cell per region (the terminal table and report.html share them). */
export function regionRows(regions: readonly RegionColumn[]): Array<[string, ...string[]]> {
  const n = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toLocaleString('en-US'));
  const ms = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${v.toLocaleString('en-US')} ms`);
  const row = (label: string, f: (r: RegionColumn) => string): [string, ...string[]] => [label, ...regions.map(f)];
  return [
    row('weight (planned vusers)', (r) => `${r.weight} (${n(r.plannedVusers)})`),
    row('generators', (r) => r.generatorIds.join(' ')),
    row('virtual users created', (r) => n(r.vusersCreated)),
    row('virtual users completed', (r) => n(r.vusersCompleted)),
    row('virtual users failed', (r) => n(r.vusersFailed)),
    row('session length min', (r) => ms(r.sessionLength?.min)),
    row('session length mean', (r) => ms(r.sessionLength?.mean)),
    row('session length max', (r) => ms(r.sessionLength?.max)),
    row('messages sent', (r) => n(r.messagesSent)),
    row('delivery time min', (r) => ms(r.deliveryTime?.min)),
    row('delivery time mean', (r) => ms(r.deliveryTime?.mean)),
    row('delivery time p95', (r) => ms(r.deliveryTime?.p95)),
    row('delivery time p99', (r) => ms(r.deliveryTime?.p99)),
    row('delivery time max', (r) => ms(r.deliveryTime?.max)),
  ];
}

/** The column without its timeline (the summary JSON's per-region block). */
export function regionColumn(r: RegionSummary): RegionColumn {
  const { timeline: _timeline, ...column } = r;
  return column;
}

/** The per-region table for the terminal: one column per region. */
export function formatRegionTable(regions: readonly RegionColumn[]): string {
  const rows: string[][] = [['by region', ...regions.map((r) => r.region)], ...regionRows(regions)];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  return rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ')).join('\n');
}
