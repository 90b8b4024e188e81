/**
 * The report's chart sections (pure), one function per group: each reads the run's period axis and adds its
 * charts — or a note saying why a chart is absent — to the set {@link buildCharts} returns.
 */
import { RIG_INTERNAL_HISTOGRAMS } from '../distribution';
import { histogramUnit } from '../units';
import { runStart } from '../findings';
import type { ReportJson } from '../types';
import { hasData, joinSeries, type ChartSpec, type Line, type Points } from './chart-series';

/** Epoch milliseconds to the charts' epoch seconds. */
export const sec = (ms: number) => ms / 1000;
const MIB = 1024 * 1024;
const round1 = (v: number) => Math.round(v * 10) / 10;
/** Histograms that are not per-period latencies of the target. */
const LATENCY_EXCLUDED = new Set(['vusers.session_length', ...RIG_INTERNAL_HISTOGRAMS]);
const MESSAGE_COUNTERS: ReadonlyArray<[string, string]> = [
  ['pubsub.messages_sent', 'published'],
  ['pubsub.messages_expected', 'expected'],
  ['pubsub.messages_received', 'received'],
  ['broadcast.messages_received', 'broadcast received'],
  ['presence.announcements_received', 'presence received'],
  ['recovery.messages_recovered', 'recovered'],
];
/** Counters drawn as "statuses over time": the engine's HTTP codes and the causes behind retries. */
const STATUS_PREFIXES: ReadonlyArray<[string, string]> = [
  ['http.codes.', 'HTTP '],
  ['cookie.retry_reason.', 'retried: '],
];

type Period = ReportJson['intermediate'][number];
type TargetSample = ReportJson['timeline']['target'][number];
type HealthSample = ReportJson['timeline']['health'][number];

/** The run's period axis and samples, shared by every section; sections add to `charts` and `absent`. */
export interface ChartAxis {
  readonly r: ReportJson;
  readonly periodS: number;
  readonly periods: readonly Period[];
  /** Each period's x (epoch seconds), clamped to the run's start. */
  readonly px: readonly number[];
  /** The run's window (epoch seconds). */
  readonly lo: number;
  readonly hi: number;
  readonly target: readonly TargetSample[];
  readonly health: readonly HealthSample[];
  /** Active vusers at each period's end (drawn on the load and the target charts). */
  readonly activePts: Points;
  readonly charts: ChartSpec[];
  readonly absent: string[];
}

/** Builds the period axis of a run: periods in order, the run's window and the samples inside it. */
export function chartAxis(r: ReportJson): ChartAxis {
  const periodS = r.timeline.periodMs / 1000;
  const periods = [...r.intermediate].sort((a, b) => a.period - b.period);
  const startMs = runStart(r);
  // A period is keyed by its 10-s-aligned start, which may precede the run's: nothing happened before the start.
  const px = periods.map((p) => sec(Math.max(p.period, startMs)));
  const lastPeriod = periods[periods.length - 1];
  const lo = sec(startMs);
  const hi = Math.max(sec(r.endedAt), lastPeriod ? sec(lastPeriod.period) + periodS : lo);
  /** Samples (health, target, CloudWatch) from the run's window only: the sampler starts before the run. */
  const inRun = (x: number) => x >= lo && x <= hi + periodS;
  let active = 0;
  const activePts: Points = periods.map((p) => {
    active += (p.counters['vusers.created'] ?? 0) - (p.counters['vusers.completed'] ?? 0) - (p.counters['vusers.failed'] ?? 0);
    return [sec(p.period) + periodS, active];
  });
  return {
    r,
    periodS,
    periods,
    px,
    lo,
    hi,
    target: r.timeline.target.filter((t) => inRun(sec(t.at))),
    health: r.timeline.health.filter((h) => inRun(sec(h.at))),
    activePts,
    charts: [],
    absent: [],
  };
}

/**
 * A value per period, drawn over the period: a point at its start held to the next point; a period
 * followed by one without a value (or the last period) is closed by repeating its value at its end.
 */
function overPeriod(a: ChartAxis, f: (p: Period) => number | null): Points {
  const values = a.periods.map(f);
  const pts: Array<readonly [number, number | null]> = a.periods.map((_, i) => {
    const own = values[i] ?? null;
    const before = i > 0 ? (values[i - 1] ?? null) : null;
    return [a.px[i] ?? 0, own ?? before];
  });
  const lastPeriod = a.periods[a.periods.length - 1];
  if (lastPeriod) pts.push([sec(lastPeriod.period) + a.periodS, values[values.length - 1] ?? null]);
  return pts;
}

/** Stacked bars: each series' points are the running sum of the ones before it (and its own in `raw`). */
function stacked(a: ChartAxis, names: readonly string[], label: (n: string) => string): Line[] {
  const tops = a.periods.map(() => 0);
  return names.map((n) => {
    const raw: Points = a.periods.map((p, i) => [a.px[i] ?? 0, p.counters[n] ?? 0]);
    const points: Points = a.periods.map((p, i) => {
      tops[i] = (tops[i] ?? 0) + (p.counters[n] ?? 0);
      return [a.px[i] ?? 0, tops[i] ?? 0];
    });
    return { label: label(n), points, raw, kind: 'bars' as const };
  });
}

/** Load: arrivals per period, active vusers at each period's end, the target's own connection count. */
export function loadCharts(a: ChartAxis): void {
  const conn = a.target.filter((t) => t.connections !== undefined).map((t) => [sec(t.at), t.connections ?? null] as const);
  a.charts.push(
    joinSeries('load', 'load', 'Arrivals per period, active vusers and target connections', 'vusers', [
      { label: `arrivals / ${a.periodS} s`, points: overPeriod(a, (p) => p.counters['vusers.created'] ?? 0), kind: 'period' },
      { label: 'active vusers', points: a.activePts, kind: 'sample' },
      ...(conn.length ? [{ label: 'target connections', points: conn, kind: 'sample' as const }] : []),
    ]),
  );
}

/** Errors by type, stacked bars per period (the most frequent type at the bottom); then statuses over time. */
export function errorCharts(a: ChartAxis): void {
  const errorTotals = new Map<string, number>();
  for (const p of a.periods) for (const [k, v] of Object.entries(p.counters)) if (k.startsWith('errors.')) errorTotals.set(k, (errorTotals.get(k) ?? 0) + v);
  const errorNames = [...errorTotals.keys()].sort((x, y) => (errorTotals.get(y) ?? 0) - (errorTotals.get(x) ?? 0) || x.localeCompare(y));
  if (errorNames.length) {
    a.charts.push(joinSeries('errors', 'errors', 'Errors by type per period (stacked)', 'errors', stacked(a, errorNames, (n) => n.slice('errors.'.length))));
  } else a.absent.push('errors: the run had none');

  // Statuses over time: HTTP codes and what the retries were for.
  const statusNames = [...new Set(a.periods.flatMap((p) => Object.keys(p.counters)))].filter((k) => STATUS_PREFIXES.some(([pre]) => k.startsWith(pre))).sort();
  if (statusNames.length) {
    const label = (n: string) => {
      const [pre, text] = STATUS_PREFIXES.find(([p]) => n.startsWith(p)) ?? ['', ''];
      return `${text}${n.slice(pre.length).replace(/^http_/, 'HTTP ')}`;
    };
    a.charts.push(joinSeries('statuses', 'errors', 'Statuses per period (stacked): HTTP codes and the causes behind retries', 'responses', stacked(a, statusNames, label)));
  }
}

/** Latency percentiles, one chart per histogram (connect, delivery, broadcast, …), each over its period. */
export function latencyCharts(a: ChartAxis): void {
  const histNames = [...new Set(a.periods.flatMap((p) => Object.keys(p.summaries ?? {})))].filter((n) => !LATENCY_EXCLUDED.has(n)).sort();
  for (const name of histNames) {
    a.charts.push(
      joinSeries(`latency-${name}`, 'latency', `${name} percentiles per period`, histogramUnit(name) ?? 'as recorded', (['p50', 'p75', 'p90', 'p95', 'p99', 'max'] as const).map((stat) => ({
        label: stat,
        points: overPeriod(a, (p) => p.summaries?.[name]?.[stat] ?? null),
        kind: 'period' as const,
      }))),
    );
  }
  if (!histNames.length) a.absent.push('latency: the run recorded no latency histogram');
}

/** Messages per second, booked in the period they arrived, with the receipt ratio of each period. */
export function messageCharts(a: ChartAxis): void {
  const { periods, periodS } = a;
  const msgNames = MESSAGE_COUNTERS.filter(([n]) => periods.some((p) => (p.counters[n] ?? 0) > 0));
  if (msgNames.length) {
    const hasExpected = msgNames.some(([n]) => n === 'pubsub.messages_expected');
    a.charts.push(
      joinSeries(
        'messages',
        'messages',
        hasExpected ? 'Messages per second (as they arrive) and receipt per period' : 'Messages per second (as they arrive)',
        'msg/s',
        [
          ...msgNames.map(([n, label]) => ({ label, points: overPeriod(a, (p) => round1((p.counters[n] ?? 0) / periodS)), kind: 'period' as const })),
          ...(hasExpected
            ? [{
                label: 'receipt % (received / expected)',
                scale: 'y2' as const,
                kind: 'period' as const,
                points: overPeriod(a, (p) => {
                  const e = p.counters['pubsub.messages_expected'] ?? 0;
                  return e > 0 ? round1((100 * (p.counters['pubsub.messages_received'] ?? 0)) / e) : null;
                }),
              }]
            : []),
        ],
        hasExpected ? '%' : undefined,
      ),
    );
  } else a.absent.push('messages: this scenario sends no messages');
  if (periods.some((p) => (p.counters['pubsub.vusers_zero_messages'] ?? 0) > 0)) {
    a.charts.push(
      joinSeries('zero-messages', 'messages', 'Vusers that ended with zero messages, by the period they ended', 'vusers', [
        { label: 'zero-message vusers', points: periods.map((p, i) => [a.px[i] ?? 0, p.counters['pubsub.vusers_zero_messages'] ?? 0]), raw: periods.map((p, i) => [a.px[i] ?? 0, p.counters['pubsub.vusers_zero_messages'] ?? 0]), kind: 'bars' },
      ]),
    );
  }
}

/** Per-generator health, one line per load process; a chart with no sample at all is left out. */
export function generatorCharts(a: ChartAxis): void {
  const { health } = a;
  const procs = [...new Set(health.map((h) => `${h.generator}/${h.process}`))].sort();
  const t = a.r.rig.verdictDetail.thresholds;
  const healthRange = health.length ? [sec(health[0]?.at ?? 0), sec(health[health.length - 1]?.at ?? 0)] : [];
  const thresholdLine = (label: string, v: number | undefined): Line[] =>
    v === undefined || !healthRange.length ? [] : [{ label, points: healthRange.map((x) => [x, v] as const), threshold: true, kind: 'sample' }];
  const healthChart = (id: string, title: string, unit: string, pick: (h: HealthSample) => number | undefined, limit: Line[]) => {
    const chart = joinSeries(id, 'generators', title, unit, [
      ...procs.map((p) => ({
        label: p,
        points: health.filter((h) => `${h.generator}/${h.process}` === p).map((h) => [sec(h.at), pick(h) ?? null] as const),
        kind: 'sample' as const,
      })),
      ...limit,
    ]);
    if (hasData(chart)) a.charts.push(chart);
    else a.absent.push(`${title.toLowerCase()}: not measured on this platform`);
  };
  if (procs.length) {
    healthChart('gen-cpu', 'Generator CPU (% of one core)', '%', (h) => h.cpuPercent, thresholdLine(`saturated above ${t?.cpuPercent ?? 85}%`, t?.cpuPercent));
    healthChart('gen-lag', 'Generator event-loop lag (p99)', 'ms', (h) => h.eventLoopLagMs, thresholdLine(`saturated above ${t?.eventLoopLagMs ?? 100} ms`, t?.eventLoopLagMs));
    healthChart('gen-memory', 'Generator memory (RSS)', 'MiB', (h) => (h.rssBytes === undefined ? undefined : round1(h.rssBytes / MIB)), []);
    healthChart('gen-files', 'Generator open files', 'files', (h) => h.openFiles, []);
    healthChart('gen-ports', 'Generator ephemeral ports in use', 'ports', (h) => h.portsInUse, []);
  } else a.absent.push('generator health: no health samples were recorded');
}

/** Scale-out moments: the target samples where the instance count went up (epoch seconds). */
export function scaleOutMoments(target: readonly TargetSample[]): number[] {
  const scaleOuts: number[] = [];
  for (let i = 1; i < target.length; i++) {
    const prev = target[i - 1]?.instances;
    const cur = target[i]?.instances;
    if (prev !== undefined && cur !== undefined && cur > prev) scaleOuts.push(sec(target[i]?.at ?? 0));
  }
  return scaleOuts;
}

/** Target side: CPU, connections (with active vusers), event-loop lag, memory, messages out. */
export function targetCharts(a: ChartAxis): void {
  const { target } = a;
  if (!target.length) {
    a.absent.push('target: no target samples (the target has no /metrics, or this run did not sample it)');
    return;
  }
  const tp = (f: (s: TargetSample) => number | undefined): Points => target.map((s) => [sec(s.at), f(s) ?? null]);
  const charts = [
    joinSeries('target-cpu', 'target', 'Target CPU (% of one core, all instances)', '%', [{ label: 'target CPU', points: tp((s) => s.cpuPercent), kind: 'sample' }]),
    joinSeries(
      'target-instances',
      'target',
      'Target connections, active vusers and instance count',
      'connections',
      [
        { label: 'connections', points: tp((s) => s.connections), kind: 'sample' },
        { label: 'active vusers', points: a.activePts, kind: 'sample' },
        { label: 'instances', points: tp((s) => s.instances), scale: 'y2', kind: 'sample' },
      ],
      'instances',
    ),
    joinSeries('target-lag', 'target', 'Target event-loop lag', 'ms', [{ label: 'event-loop lag', points: tp((s) => s.eventLoopLagMs), kind: 'sample' }]),
    joinSeries('target-memory', 'target', 'Target memory (RSS, all instances)', 'MiB', [{ label: 'RSS', points: tp((s) => (s.rssBytes === undefined ? undefined : round1(s.rssBytes / MIB))), kind: 'sample' }]),
    joinSeries('target-messages', 'target', 'Target messages out per second', 'msg/s', [{ label: 'messages out', kind: 'sample', points: messagesOutRate(target) }]),
  ];
  for (const c of charts) {
    if (hasData(c)) a.charts.push(c);
    else a.absent.push(`${c.title.toLowerCase()}: the target did not report it`);
  }
}

/** The target's messages out per second between consecutive samples (null where a sample lacks the count). */
function messagesOutRate(target: readonly TargetSample[]): Points {
  return target.slice(1).map((s, i) => {
    const prev = target[i];
    const dt = prev ? (s.at - prev.at) / 1000 : 0;
    return [sec(s.at), prev && s.messagesOut !== undefined && prev.messagesOut !== undefined && dt > 0 ? round1(Math.max(0, s.messagesOut - prev.messagesOut) / dt) : null] as const;
  });
}

/** CloudWatch (AWS runs), one chart per unit. */
export function cloudwatchCharts(a: ChartAxis): void {
  const cw = a.r.cloudwatch?.series ?? [];
  const units = [...new Set(cw.map((s) => s.unit ?? ''))].sort();
  for (const [i, unit] of units.entries()) {
    a.charts.push(
      joinSeries(`cloudwatch-${i}`, 'cloudwatch', `CloudWatch${unit ? ` (${unit})` : ''}`, unit, cw.filter((s) => (s.unit ?? '') === unit).map((s) => ({
        label: s.label,
        points: s.timestamps.map((ts, k) => [sec(ts), s.values[k] ?? null] as const),
        kind: 'sample' as const,
      }))),
    );
  }
}
