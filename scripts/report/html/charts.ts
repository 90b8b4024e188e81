/**
 * The report's timelines as data (pure): one {@link ChartSpec} per chart, all on one shared time axis
 * (epoch seconds, shown as T+m:ss from the run's start), built only from report.json so a test can
 * recompute every point.
 *
 * Alignment: a period's value (a count or a percentile of what happened during the period) is drawn
 * over its period — bars or a step from the period's start to its end; a level at an instant (active
 * vusers at the end of a period, a health or target sample) is drawn at that instant.
 */
import { RIG_INTERNAL_HISTOGRAMS } from '../distribution';
import { phaseBands, runStart } from '../findings';
import type { ReportJson } from '../types';

/** How a series is drawn. */
export type SeriesKind =
  /** a value over its period: a step from `x` to the next `x` (the last point closes the period) */
  | 'period'
  /** a per-period count drawn as a bar over its period (stacked bars carry `raw`) */
  | 'bars'
  /** a level sampled at an instant */
  | 'sample';

/** One line of a chart; `values` align with the chart's `x` (null = no sample at that time). */
export interface ChartSeries {
  readonly label: string;
  readonly values: ReadonlyArray<number | null>;
  readonly kind: SeriesKind;
  /** For stacked bars: the series' own values (the legend shows these; `values` are the stack tops). */
  readonly raw?: ReadonlyArray<number | null>;
  /**
   * Indexes of `x` where this series has no value of its own (a period without data): the line breaks
   * there. Every other null only aligns the series with the chart's other instants and is bridged.
   */
  readonly gaps?: readonly number[];
  /** Right-hand axis (a ratio next to counts, instances next to connections). */
  readonly scale?: 'y' | 'y2';
  /** A documented limit drawn as a dashed line, not data. */
  readonly threshold?: boolean;
  /** Drawn dashed in the colour of the series at this index (a baseline overlaid on the same figure of the run). */
  readonly pairedWith?: number;
}

/** One chart. */
export interface ChartSpec {
  readonly id: string;
  readonly group: 'load' | 'errors' | 'latency' | 'messages' | 'generators' | 'target' | 'cloudwatch';
  readonly title: string;
  readonly unit: string;
  readonly unit2?: string;
  /** Epoch seconds, ascending. */
  readonly x: readonly number[];
  readonly series: readonly ChartSeries[];
}

/** All charts plus what every chart marks. */
export interface ChartSet {
  readonly charts: readonly ChartSpec[];
  /** Shared x range (epoch seconds). */
  readonly range: readonly [number, number];
  /** The run's start (epoch seconds): the axis reads T+m:ss from here. */
  readonly start: number;
  /** Phases (ramp, plateau, hold…) shaded on every chart, epoch seconds. */
  readonly phases: ReadonlyArray<{ readonly name: string; readonly from: number; readonly to: number }>;
  /** Rig-limited periods, shaded on every chart: [from, to] epoch seconds. */
  readonly rigLimited: ReadonlyArray<readonly [number, number]>;
  /** Scale-out moments (instances went up), marked on every chart: epoch seconds. */
  readonly scaleOuts: readonly number[];
  /** Charts left out for lack of data, with why (shown as a note). */
  readonly absent: readonly string[];
}

type Points = ReadonlyArray<readonly [number, number | null]>;
interface Line {
  readonly label: string;
  readonly points: Points;
  readonly kind: SeriesKind;
  readonly raw?: Points;
  readonly scale?: 'y' | 'y2';
  readonly threshold?: boolean;
}

/** Joins series sampled at different instants onto one x array (union of instants). */
function joinSeries(id: string, group: ChartSpec['group'], title: string, unit: string, lines: readonly Line[], unit2?: string): ChartSpec {
  const xs = [...new Set(lines.flatMap((l) => l.points.map(([x]) => x)))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const place = (points: Points) => {
    const values: Array<number | null> = xs.map(() => null);
    for (const [x, y] of points) values[index.get(x) ?? 0] = y;
    return values;
  };
  const series = lines.map((l) => ({
    label: l.label,
    values: place(l.points),
    kind: l.kind,
    ...(l.kind === 'period' && l.points.some(([, y]) => y === null) ? { gaps: l.points.filter(([, y]) => y === null).map(([x]) => index.get(x) ?? 0) } : {}),
    ...(l.raw ? { raw: place(l.raw) } : {}),
    ...(l.scale ? { scale: l.scale } : {}),
    ...(l.threshold ? { threshold: true } : {}),
  }));
  return { id, group, title, unit, ...(unit2 ? { unit2 } : {}), x: xs, series };
}

/** A chart has something to show when one of its data series has a non-null, non-zero point. */
const hasData = (c: ChartSpec) => c.series.some((s) => !s.threshold && s.values.some((v) => v !== null && v !== 0));

const sec = (ms: number) => ms / 1000;
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

/** Builds every chart of the report. */
export function buildCharts(r: ReportJson): ChartSet {
  const periodMs = r.timeline.periodMs;
  const periodS = periodMs / 1000;
  const periods = [...r.intermediate].sort((a, b) => a.period - b.period);
  const startMs = runStart(r);
  // A period is keyed by its 10-s-aligned start, which may precede the run's: nothing happened before the start.
  const px = periods.map((p) => sec(Math.max(p.period, startMs)));
  const lastPeriod = periods[periods.length - 1];
  const lo = sec(startMs);
  const hi = Math.max(sec(r.endedAt), lastPeriod ? sec(lastPeriod.period) + periodS : lo);
  /** Samples (health, target, CloudWatch) from the run's window only: the sampler starts before the run. */
  const inRun = (x: number) => x >= lo && x <= hi + periodS;
  const charts: ChartSpec[] = [];
  const absent: string[] = [];
  type Period = (typeof periods)[number];
  /**
   * A value per period, drawn over the period: a point at its start held to the next point; a period
   * followed by one without a value (or the last period) is closed by repeating its value at its end.
   */
  const overPeriod = (f: (p: Period) => number | null): Points => {
    const values = periods.map(f);
    const pts: Array<readonly [number, number | null]> = periods.map((_, i) => {
      const own = values[i] ?? null;
      const before = i > 0 ? (values[i - 1] ?? null) : null;
      return [px[i] ?? 0, own ?? before];
    });
    if (lastPeriod) pts.push([sec(lastPeriod.period) + periodS, values[values.length - 1] ?? null]);
    return pts;
  };
  const atPeriodEnd = (f: (p: Period) => number | null): Points => periods.map((p) => [sec(p.period) + periodS, f(p)]);
  /** Stacked bars: each series' points are the running sum of the ones before it (and its own in `raw`). */
  const stacked = (names: readonly string[], label: (n: string) => string): Line[] => {
    const tops = periods.map(() => 0);
    return names.map((n) => {
      const raw: Points = periods.map((p, i) => [px[i] ?? 0, p.counters[n] ?? 0]);
      const points: Points = periods.map((p, i) => {
        tops[i] = (tops[i] ?? 0) + (p.counters[n] ?? 0);
        return [px[i] ?? 0, tops[i] ?? 0];
      });
      return { label: label(n), points, raw, kind: 'bars' as const };
    });
  };
  const target = r.timeline.target.filter((t) => inRun(sec(t.at)));
  const health = r.timeline.health.filter((h) => inRun(sec(h.at)));

  // Load: arrivals per period, active vusers at each period's end, the target's own connection count.
  let active = 0;
  const activePts = atPeriodEnd((p) => {
    active += (p.counters['vusers.created'] ?? 0) - (p.counters['vusers.completed'] ?? 0) - (p.counters['vusers.failed'] ?? 0);
    return active;
  });
  const conn = target.filter((t) => t.connections !== undefined).map((t) => [sec(t.at), t.connections ?? null] as const);
  charts.push(
    joinSeries('load', 'load', 'Arrivals per period, active vusers and target connections', 'vusers', [
      { label: `arrivals / ${periodS} s`, points: overPeriod((p) => p.counters['vusers.created'] ?? 0), kind: 'period' },
      { label: 'active vusers', points: activePts, kind: 'sample' },
      ...(conn.length ? [{ label: 'target connections', points: conn, kind: 'sample' as const }] : []),
    ]),
  );

  // Errors by type, stacked bars per period (the most frequent type at the bottom).
  const errorTotals = new Map<string, number>();
  for (const p of periods) for (const [k, v] of Object.entries(p.counters)) if (k.startsWith('errors.')) errorTotals.set(k, (errorTotals.get(k) ?? 0) + v);
  const errorNames = [...errorTotals.keys()].sort((a, b) => (errorTotals.get(b) ?? 0) - (errorTotals.get(a) ?? 0) || a.localeCompare(b));
  if (errorNames.length) {
    charts.push(joinSeries('errors', 'errors', 'Errors by type per period (stacked)', 'errors', stacked(errorNames, (n) => n.slice('errors.'.length))));
  } else absent.push('errors: the run had none');

  // Statuses over time: HTTP codes and what the retries were for.
  const statusNames = [...new Set(periods.flatMap((p) => Object.keys(p.counters)))].filter((k) => STATUS_PREFIXES.some(([pre]) => k.startsWith(pre))).sort();
  if (statusNames.length) {
    const label = (n: string) => {
      const [pre, text] = STATUS_PREFIXES.find(([p]) => n.startsWith(p)) ?? ['', ''];
      return `${text}${n.slice(pre.length).replace(/^http_/, 'HTTP ')}`;
    };
    charts.push(joinSeries('statuses', 'errors', 'Statuses per period (stacked): HTTP codes and the causes behind retries', 'responses', stacked(statusNames, label)));
  }

  // Latency percentiles, one chart per histogram (connect, delivery, broadcast, …), each over its period.
  const histNames = [...new Set(periods.flatMap((p) => Object.keys(p.summaries ?? {})))].filter((n) => !LATENCY_EXCLUDED.has(n)).sort();
  for (const name of histNames) {
    charts.push(
      joinSeries(`latency-${name}`, 'latency', `${name} percentiles per period`, 'ms', (['p50', 'p75', 'p90', 'p95', 'p99', 'max'] as const).map((stat) => ({
        label: stat,
        points: overPeriod((p) => p.summaries?.[name]?.[stat] ?? null),
        kind: 'period' as const,
      }))),
    );
  }
  if (!histNames.length) absent.push('latency: the run recorded no latency histogram');

  // Messages per second, booked in the period they arrived, with the receipt ratio of each period.
  const msgNames = MESSAGE_COUNTERS.filter(([n]) => periods.some((p) => (p.counters[n] ?? 0) > 0));
  if (msgNames.length) {
    const hasExpected = msgNames.some(([n]) => n === 'pubsub.messages_expected');
    charts.push(
      joinSeries(
        'messages',
        'messages',
        hasExpected ? 'Messages per second (as they arrive) and receipt per period' : 'Messages per second (as they arrive)',
        'msg/s',
        [
          ...msgNames.map(([n, label]) => ({ label, points: overPeriod((p) => round1((p.counters[n] ?? 0) / periodS)), kind: 'period' as const })),
          ...(hasExpected
            ? [{
                label: 'receipt % (received / expected)',
                scale: 'y2' as const,
                kind: 'period' as const,
                points: overPeriod((p) => {
                  const e = p.counters['pubsub.messages_expected'] ?? 0;
                  return e > 0 ? round1((100 * (p.counters['pubsub.messages_received'] ?? 0)) / e) : null;
                }),
              }]
            : []),
        ],
        hasExpected ? '%' : undefined,
      ),
    );
  } else absent.push('messages: this scenario sends no messages');
  if (periods.some((p) => (p.counters['pubsub.vusers_zero_messages'] ?? 0) > 0)) {
    charts.push(
      joinSeries('zero-messages', 'messages', 'Vusers that ended with zero messages, by the period they ended', 'vusers', [
        { label: 'zero-message vusers', points: periods.map((p, i) => [px[i] ?? 0, p.counters['pubsub.vusers_zero_messages'] ?? 0]), raw: periods.map((p, i) => [px[i] ?? 0, p.counters['pubsub.vusers_zero_messages'] ?? 0]), kind: 'bars' },
      ]),
    );
  }

  // Per-generator health, one line per load process; a chart with no sample at all is left out.
  const procs = [...new Set(health.map((h) => `${h.generator}/${h.process}`))].sort();
  const t = r.rig.verdictDetail.thresholds;
  const healthRange = health.length ? [sec(health[0]?.at ?? 0), sec(health[health.length - 1]?.at ?? 0)] : [];
  const thresholdLine = (label: string, v: number | undefined): Line[] =>
    v === undefined || !healthRange.length ? [] : [{ label, points: healthRange.map((x) => [x, v] as const), threshold: true, kind: 'sample' }];
  const healthChart = (id: string, title: string, unit: string, pick: (h: ReportJson['timeline']['health'][number]) => number | undefined, limit: Line[]) => {
    const chart = joinSeries(id, 'generators', title, unit, [
      ...procs.map((p) => ({
        label: p,
        points: health.filter((h) => `${h.generator}/${h.process}` === p).map((h) => [sec(h.at), pick(h) ?? null] as const),
        kind: 'sample' as const,
      })),
      ...limit,
    ]);
    if (hasData(chart)) charts.push(chart);
    else absent.push(`${title.toLowerCase()}: not measured on this platform`);
  };
  if (procs.length) {
    healthChart('gen-cpu', 'Generator CPU (% of one core)', '%', (h) => h.cpuPercent, thresholdLine(`saturated above ${t?.cpuPercent ?? 85}%`, t?.cpuPercent));
    healthChart('gen-lag', 'Generator event-loop lag (p99)', 'ms', (h) => h.eventLoopLagMs, thresholdLine(`saturated above ${t?.eventLoopLagMs ?? 100} ms`, t?.eventLoopLagMs));
    healthChart('gen-memory', 'Generator memory (RSS)', 'MiB', (h) => (h.rssBytes === undefined ? undefined : round1(h.rssBytes / MIB)), []);
    healthChart('gen-files', 'Generator open files', 'files', (h) => h.openFiles, []);
    healthChart('gen-ports', 'Generator ephemeral ports in use', 'ports', (h) => h.portsInUse, []);
  } else absent.push('generator health: no health samples were recorded');

  // Target side: CPU, connections (with active vusers), event-loop lag, memory, messages out.
  const scaleOuts: number[] = [];
  for (let i = 1; i < target.length; i++) {
    const prev = target[i - 1]?.instances;
    const cur = target[i]?.instances;
    if (prev !== undefined && cur !== undefined && cur > prev) scaleOuts.push(sec(target[i]?.at ?? 0));
  }
  if (target.length) {
    const tp = (f: (s: (typeof target)[number]) => number | undefined): Points => target.map((s) => [sec(s.at), f(s) ?? null]);
    const targetCharts = [
      joinSeries('target-cpu', 'target', 'Target CPU (% of one core, all instances)', '%', [{ label: 'target CPU', points: tp((s) => s.cpuPercent), kind: 'sample' }]),
      joinSeries(
        'target-instances',
        'target',
        'Target connections, active vusers and instance count',
        'connections',
        [
          { label: 'connections', points: tp((s) => s.connections), kind: 'sample' },
          { label: 'active vusers', points: activePts, kind: 'sample' },
          { label: 'instances', points: tp((s) => s.instances), scale: 'y2', kind: 'sample' },
        ],
        'instances',
      ),
      joinSeries('target-lag', 'target', 'Target event-loop lag', 'ms', [{ label: 'event-loop lag', points: tp((s) => s.eventLoopLagMs), kind: 'sample' }]),
      joinSeries('target-memory', 'target', 'Target memory (RSS, all instances)', 'MiB', [{ label: 'RSS', points: tp((s) => (s.rssBytes === undefined ? undefined : round1(s.rssBytes / MIB))), kind: 'sample' }]),
      joinSeries('target-messages', 'target', 'Target messages out per second', 'msg/s', [
        {
          label: 'messages out',
          kind: 'sample',
          points: target.slice(1).map((s, i) => {
            const prev = target[i];
            const dt = prev ? (s.at - prev.at) / 1000 : 0;
            return [sec(s.at), prev && s.messagesOut !== undefined && prev.messagesOut !== undefined && dt > 0 ? round1(Math.max(0, s.messagesOut - prev.messagesOut) / dt) : null] as const;
          }),
        },
      ]),
    ];
    for (const c of targetCharts) {
      if (hasData(c)) charts.push(c);
      else absent.push(`${c.title.toLowerCase()}: the target did not report it`);
    }
  } else absent.push('target: no target samples (the target has no /metrics, or this run did not sample it)');

  // CloudWatch (AWS runs), one chart per unit.
  const cw = r.cloudwatch?.series ?? [];
  const units = [...new Set(cw.map((s) => s.unit ?? ''))].sort();
  for (const [i, unit] of units.entries()) {
    charts.push(
      joinSeries(`cloudwatch-${i}`, 'cloudwatch', `CloudWatch${unit ? ` (${unit})` : ''}`, unit, cw.filter((s) => (s.unit ?? '') === unit).map((s) => ({
        label: s.label,
        points: s.timestamps.map((ts, k) => [sec(ts), s.values[k] ?? null] as const),
        kind: 'sample' as const,
      }))),
    );
  }

  // CloudWatch's minute datapoints may begin before the start (the minute it fell in): the range covers them.
  const allX = charts.flatMap((c) => c.x);
  const rangeLo = Math.min(lo, ...allX);
  const rangeHi = Math.max(hi, ...allX);
  const rigLimited = (r.rig.verdictDetail.periods ?? []).filter((p) => p.rigLimited).map((p) => [sec(p.period), sec(p.period + periodMs)] as const);
  const phases = phaseBands(r).map((b) => ({ name: b.name, from: sec(b.from), to: sec(b.to) }));
  return { charts, range: [rangeLo, rangeHi], start: lo, phases, rigLimited, scaleOuts, absent };
}
