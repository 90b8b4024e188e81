/**
 * The report's timelines as data (pure): one {@link ChartSpec} per chart, all on one shared time axis
 * (epoch seconds), built only from report.json so a test can recompute every point.
 */
import type { ReportJson } from '../write';

/** One line of a chart; `values` align with the chart's `x` (null = no sample at that time). */
export interface ChartSeries {
  readonly label: string;
  readonly values: ReadonlyArray<number | null>;
  /** Right-hand axis (counts next to percentages, instances next to connections). */
  readonly scale?: 'y' | 'y2';
  /** A documented limit drawn as a dashed line, not data. */
  readonly threshold?: boolean;
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
  /** Rig-limited periods, shaded on every chart: [from, to] epoch seconds. */
  readonly rigLimited: ReadonlyArray<readonly [number, number]>;
  /** Scale-out moments (instances went up), marked on every chart: epoch seconds. */
  readonly scaleOuts: readonly number[];
  /** Charts left out for lack of data, with why (shown as a note). */
  readonly absent: readonly string[];
}

type Points = ReadonlyArray<readonly [number, number | null]>;

/** Joins series sampled at different instants onto one x array (union of instants). */
function joinSeries(
  id: string,
  group: ChartSpec['group'],
  title: string,
  unit: string,
  lines: ReadonlyArray<{ label: string; points: Points; scale?: 'y' | 'y2'; threshold?: boolean }>,
  unit2?: string,
): ChartSpec {
  const xs = [...new Set(lines.flatMap((l) => l.points.map(([x]) => x)))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const series = lines.map((l) => {
    const values: Array<number | null> = xs.map(() => null);
    for (const [x, y] of l.points) values[index.get(x) ?? 0] = y;
    return { label: l.label, values, ...(l.scale ? { scale: l.scale } : {}), ...(l.threshold ? { threshold: true } : {}) };
  });
  return { id, group, title, unit, ...(unit2 ? { unit2 } : {}), x: xs, series };
}

const sec = (ms: number) => ms / 1000;
const MIB = 1024 * 1024;
const LATENCY_EXCLUDED = new Set(['vusers.session_length']);
const MESSAGE_COUNTERS = ['pubsub.messages_sent', 'pubsub.messages_received', 'presence.announcements_received', 'recovery.messages_recovered'];

/** Builds every chart of the report. */
export function buildCharts(r: ReportJson): ChartSet {
  const periodMs = r.timeline.periodMs;
  const periods = [...r.intermediate].sort((a, b) => a.period - b.period);
  const px = periods.map((p) => sec(p.period));
  const charts: ChartSpec[] = [];
  const absent: string[] = [];
  const perPeriod = (f: (p: (typeof periods)[number]) => number | null): Points => periods.map((p, i) => [px[i] ?? 0, f(p)]);

  // Load: arrivals per period, active vusers at the end of each period, target connections.
  let active = 0;
  const activePts = perPeriod((p) => {
    active += (p.counters['vusers.created'] ?? 0) - (p.counters['vusers.completed'] ?? 0) - (p.counters['vusers.failed'] ?? 0);
    return active;
  });
  const target = r.timeline.target;
  const conn = target.filter((t) => t.connections !== undefined).map((t) => [sec(t.at), t.connections ?? null] as const);
  charts.push(
    joinSeries('load', 'load', 'Arrivals per period, active vusers and target connections', 'vusers', [
      { label: `arrivals / ${periodMs / 1000} s`, points: perPeriod((p) => p.counters['vusers.created'] ?? 0) },
      { label: 'active vusers', points: activePts },
      ...(conn.length ? [{ label: 'target connections', points: conn }] : []),
    ]),
  );

  // Errors by type (the total is always drawn, zero when the run had none).
  const errorNames = [...new Set(periods.flatMap((p) => Object.keys(p.counters).filter((k) => k.startsWith('errors.'))))].sort();
  charts.push(
    joinSeries('errors', 'errors', 'Errors by type per period', 'errors', [
      { label: 'all errors', points: perPeriod((p) => errorNames.reduce((a, n) => a + (p.counters[n] ?? 0), 0)) },
      ...errorNames.map((n) => ({ label: n.slice('errors.'.length), points: perPeriod((p) => p.counters[n] ?? 0) })),
    ]),
  );

  // Latency percentiles, one chart per histogram (connect, delivery, broadcast, …).
  const histNames = [...new Set(periods.flatMap((p) => Object.keys(p.summaries ?? {})))].filter((n) => !LATENCY_EXCLUDED.has(n)).sort();
  for (const name of histNames) {
    charts.push(
      joinSeries(`latency-${name}`, 'latency', `${name} percentiles per period`, 'ms', (['p50', 'p95', 'p99'] as const).map((stat) => ({
        label: stat,
        points: perPeriod((p) => p.summaries?.[name]?.[stat] ?? null),
      }))),
    );
  }
  if (!histNames.length) absent.push('latency: the run recorded no latency histogram');

  // Messages per second.
  const msgNames = MESSAGE_COUNTERS.filter((n) => periods.some((p) => (p.counters[n] ?? 0) > 0));
  if (msgNames.length) {
    charts.push(
      joinSeries('messages', 'messages', 'Messages per second', 'msg/s', msgNames.map((n) => ({
        label: n,
        points: perPeriod((p) => Math.round(((p.counters[n] ?? 0) / (periodMs / 1000)) * 10) / 10),
      }))),
    );
  } else absent.push('messages per second: this scenario sends no messages');

  // Per-generator health, one line per load process.
  const procs = [...new Set(r.timeline.health.map((h) => `${h.generator}/${h.process}`))].sort();
  const t = r.rig.verdictDetail.thresholds;
  const healthRange = r.timeline.health.length
    ? [sec(r.timeline.health[0]?.at ?? 0), sec(r.timeline.health[r.timeline.health.length - 1]?.at ?? 0)]
    : [];
  const thresholdLine = (label: string, v: number | undefined) =>
    v === undefined || !healthRange.length ? [] : [{ label, points: healthRange.map((x) => [x, v] as const), threshold: true }];
  const healthChart = (id: string, title: string, unit: string, pick: (h: ReportJson['timeline']['health'][number]) => number | undefined, limit: ReturnType<typeof thresholdLine>) => {
    charts.push(
      joinSeries(id, 'generators', title, unit, [
        ...procs.map((p) => ({
          label: p,
          points: r.timeline.health.filter((h) => `${h.generator}/${h.process}` === p).map((h) => [sec(h.at), pick(h) ?? null] as const),
        })),
        ...limit,
      ]),
    );
  };
  if (procs.length) {
    healthChart('gen-cpu', 'Generator CPU (% of one core)', '%', (h) => h.cpuPercent, thresholdLine(`saturated above ${t?.cpuPercent ?? 85}%`, t?.cpuPercent));
    healthChart('gen-lag', 'Generator event-loop lag (p99)', 'ms', (h) => h.eventLoopLagMs, thresholdLine(`saturated above ${t?.eventLoopLagMs ?? 100} ms`, t?.eventLoopLagMs));
    healthChart('gen-memory', 'Generator memory (RSS)', 'MiB', (h) => (h.rssBytes === undefined ? undefined : Math.round((h.rssBytes / MIB) * 10) / 10), []);
    healthChart('gen-files', 'Generator open files', 'files', (h) => h.openFiles, []);
    healthChart('gen-ports', 'Generator ephemeral ports in use', 'ports', (h) => h.portsInUse, []);
  } else absent.push('generator health: no health samples were recorded');

  // Target side.
  const scaleOuts: number[] = [];
  for (let i = 1; i < target.length; i++) {
    const prev = target[i - 1]?.instances;
    const cur = target[i]?.instances;
    if (prev !== undefined && cur !== undefined && cur > prev) scaleOuts.push(sec(target[i]?.at ?? 0));
  }
  if (target.length) {
    const tp = (f: (s: (typeof target)[number]) => number | undefined): Points => target.map((s) => [sec(s.at), f(s) ?? null]);
    charts.push(joinSeries('target-cpu', 'target', 'Target CPU (% of one core, all instances)', '%', [{ label: 'target CPU', points: tp((s) => s.cpuPercent) }]));
    charts.push(
      joinSeries(
        'target-instances',
        'target',
        'Target connections and instance count',
        'connections',
        [
          { label: 'connections', points: tp((s) => s.connections) },
          { label: 'instances', points: tp((s) => s.instances), scale: 'y2' },
        ],
        'instances',
      ),
    );
  } else absent.push('target: no target samples (the target has no /metrics, or this run did not sample it)');

  // CloudWatch (AWS runs), one chart per unit.
  const cw = r.cloudwatch?.series ?? [];
  const units = [...new Set(cw.map((s) => s.unit ?? ''))].sort();
  for (const [i, unit] of units.entries()) {
    charts.push(
      joinSeries(`cloudwatch-${i}`, 'cloudwatch', `CloudWatch${unit ? ` (${unit})` : ''}`, unit, cw.filter((s) => (s.unit ?? '') === unit).map((s) => ({
        label: s.label,
        points: s.timestamps.map((ts, k) => [sec(ts), s.values[k] ?? null] as const),
      }))),
    );
  }

  const allX = charts.flatMap((c) => c.x);
  const lo = allX.length ? Math.min(...allX) : sec(r.endedAt);
  const hi = Math.max(allX.length ? Math.max(...allX) : lo, px.length ? (px[px.length - 1] ?? lo) + periodMs / 1000 : lo);
  const rigLimited = (r.rig.verdictDetail.periods ?? []).filter((p) => p.rigLimited).map((p) => [sec(p.period), sec(p.period + periodMs)] as const);
  return { charts, range: [lo, hi], rigLimited, scaleOuts, absent };
}
