/**
 * Scenario-specific rows for the terminal summary and the report (README.md explains them).
 * Pure: built from the merged aggregate and intermediate periods only.
 */

type Summary = Partial<Record<'min' | 'max' | 'mean' | 'p50' | 'median' | 'p95' | 'p99' | 'count', number>>;

export interface FiguresSection {
  readonly counters: Record<string, number>;
  readonly rates?: Record<string, number>;
  readonly summaries: Record<string, Summary>;
}
export interface FiguresPeriod extends FiguresSection {
  readonly period: number | string;
}
/** One figure: a number for machines (`value`, in `unit`) and its text for people. */
export interface FigureRow {
  readonly label: string;
  /** The figure as a number (null when the run has no data for it). */
  readonly value: number | null;
  /** What `value` counts: 'ms', '%', '/s', 'count'. */
  readonly unit: 'ms' | '%' | '/s' | 'count';
  /** The figure as shown in the terminal and the report. */
  readonly text: string;
}

/** Per-second counter families (`<prefix><epoch second>`), summed over generators by the exact merge. */
export function perSecondSeries(counters: Record<string, number>, prefix: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const [k, v] of Object.entries(counters)) {
    if (!k.startsWith(prefix)) continue;
    const s = Number(k.slice(prefix.length));
    if (Number.isInteger(s)) out.set(s, (out.get(s) ?? 0) + v);
  }
  return out;
}

/** Highest per-second value of a `<prefix><epoch s>` counter family; undefined when there is none. */
export function peakPerSecond(counters: Record<string, number>, prefix: string): number | undefined {
  const series = perSecondSeries(counters, prefix);
  return series.size ? Math.max(...series.values()) : undefined;
}

/** Mean per-second rate over the seconds from the family's first to its last non-zero second. */
export function averagePerSecond(counters: Record<string, number>, prefix: string): number | undefined {
  const series = perSecondSeries(counters, prefix);
  if (!series.size) return undefined;
  const secs = [...series.keys()];
  const span = Math.max(...secs) - Math.min(...secs) + 1;
  return [...series.values()].reduce((a, b) => a + b, 0) / span;
}

/** Peak of concurrent connections from per-second opened/closed counter families. */
export function peakConcurrent(counters: Record<string, number>, openPrefix: string, closePrefix: string): number | undefined {
  const opened = perSecondSeries(counters, openPrefix);
  const closed = perSecondSeries(counters, closePrefix);
  if (!opened.size) return undefined;
  const secs = [...new Set([...opened.keys(), ...closed.keys()])].sort((a, b) => a - b);
  let cur = 0;
  let peak = 0;
  for (const s of secs) {
    // closes of a second are applied after its opens: an upper bound within one second
    cur += opened.get(s) ?? 0;
    peak = Math.max(peak, cur);
    cur -= closed.get(s) ?? 0;
  }
  return peak;
}

/** Peak per-second rate of a counter from intermediate periods (period length from their spacing, default 10 s). */
export function peakRateFromPeriods(intermediate: readonly FiguresPeriod[], counter: string): number | undefined {
  const ps = intermediate.filter((p) => typeof p.counters[counter] === 'number');
  if (!ps.length) return undefined;
  const times = intermediate.map((p) => Number(p.period)).filter(Number.isFinite).sort((a, b) => a - b);
  let periodMs = 10_000;
  for (let i = 1; i < times.length; i++) periodMs = Math.min(periodMs, (times[i] as number) - (times[i - 1] as number) || periodMs);
  return Math.max(...ps.map((p) => (p.counters[counter] as number) / (periodMs / 1000)));
}

const num = (v: number | undefined, digits = 0): string =>
  v === undefined || !Number.isFinite(v) ? '–' : v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
const ms = (v: number | undefined): string => (v === undefined ? '–' : `${num(v, 1)} ms`);
const ratio = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined || !b ? undefined : (100 * a) / b);
const pct = (a: number | undefined, b: number | undefined): string => {
  const r = ratio(a, b);
  return r === undefined ? '–' : `${num(r, 2)} %`;
};
const value = (v: number | undefined): number | null => (v === undefined || !Number.isFinite(v) ? null : v);

/** Row constructors: the number and its text from one value. */
const count = (label: string, v: number | undefined, text = num(v)): FigureRow => ({ label, value: value(v), unit: 'count', text });
const msRow = (label: string, v: number | undefined): FigureRow => ({ label, value: value(v), unit: 'ms', text: ms(v) });
const pctRow = (label: string, a: number | undefined, b: number | undefined): FigureRow => ({ label, value: value(ratio(a, b)), unit: '%', text: pct(a, b) });
const rateRow = (label: string, v: number | undefined, suffix: string): FigureRow => ({ label, value: value(v), unit: '/s', text: v === undefined ? '–' : `${num(v)}${suffix}` });

function latencyRows(label: string, s: Summary | undefined, withMinMax: boolean): FigureRow[] {
  if (!s) return [{ label: `${label}`, value: null, unit: 'ms', text: 'no samples' }];
  const rows: FigureRow[] = [];
  if (withMinMax) rows.push(msRow(`${label} min`, s.min), msRow(`${label} max`, s.max), msRow(`${label} mean`, s.mean));
  rows.push(msRow(`${label} p50`, s.p50 ?? s.median), msRow(`${label} p95`, s.p95), msRow(`${label} p99`, s.p99));
  return rows;
}

/** Clock offsets of the load processes: rig-internal, shown with the plan (not among the scenario's figures). */
export function clockRows(agg: FiguresSection): FigureRow[] {
  const o = agg.summaries['clock.offset_ms'];
  if (!o) return agg.counters['clock.unavailable'] ? [{ label: 'clock offsets', value: null, unit: 'ms', text: 'unavailable (target has no GET /time): latencies uncorrected' }] : [];
  const spread = o.min !== undefined && o.max !== undefined ? o.max - o.min : undefined;
  return [{ label: 'clock offset vs target (per process)', value: value(spread), unit: 'ms', text: `${ms(o.min)} … ${ms(o.max)} over ${num(o.count)} process(es)` }];
}

/** The publisher's publishes the target refused (`publish.failed`), when there were any. */
function publishFailedRows(c: Record<string, number>): FigureRow[] {
  return c['publish.failed'] ? [count('publishes refused by the target', c['publish.failed'])] : [];
}

/** The recovery scenario's rows. */
function recoveryRows(c: Record<string, number>, s: FiguresSection['summaries']): FigureRow[] {
  const rec = c['recovery.messages_recovered'] ?? 0;
  const lost = c['recovery.messages_lost'] ?? 0;
  return [
    count('sessions recovered', c['recovery.sessions_recovered'] ?? 0),
    count('sessions not recovered', c['recovery.sessions_not_recovered'] ?? 0),
    count('reconnects failed', c['recovery.reconnect_failed'] ?? 0),
    count('messages recovered', rec),
    count('messages lost', lost),
    ...publishFailedRows(c),
    pctRow('recovered / (recovered + lost)', rec, rec + lost),
    ...latencyRows('delivery latency', s['recovery.delivery_latency'], false),
  ];
}

/**
 * The rows of the built-in scenario whose measurements the run made (RunSummary.rigScenario: a built-in, or a user's
 * copy running its processor and flow) for the summary and the report; [] for scenarios without any and for a
 * script of the user's own.
 */
export function scenarioFigures(scenario: string | undefined, aggregate: FiguresSection, intermediate: readonly FiguresPeriod[]): FigureRow[] {
  const c = aggregate.counters;
  const s = aggregate.summaries;
  switch (scenario) {
    case 'pubsub': {
      const connected = c['ws.connected'];
      const zero = c['pubsub.vusers_zero_messages'] ?? 0;
      return [
        count('messages published', c['pubsub.messages_sent']),
        ...publishFailedRows(c),
        count('messages received', c['pubsub.messages_received']),
        count('messages expected', c['pubsub.messages_expected']),
        pctRow('receipt ratio', c['pubsub.messages_received'], c['pubsub.messages_expected']),
        count('gaps', c['pubsub.gaps'] ?? 0),
        count('duplicates', c['pubsub.duplicates'] ?? 0),
        count('vusers with zero messages', zero, `${num(zero)} of ${num(connected)} connected (${pct(zero, connected)})`),
        ...latencyRows('delivery latency', s['pubsub.delivery_latency'], false),
      ];
    }
    case 'presence': {
      const sent = c['presence.target_announcements_sent'];
      const peak = s['target.peak_send_rate_per_sec'];
      return [
        count('announcements received', c['presence.announcements_received'] ?? 0),
        count('announcements sent by the target', sent, sent === undefined ? 'unknown (target has no /metrics)' : num(sent)),
        pctRow('received / sent', c['presence.announcements_received'] ?? 0, sent),
        peak ? rateRow('target peak send rate', peak.max, '/s') : { label: 'target peak send rate', value: null, unit: '/s', text: 'unknown' },
      ];
    }
    case 'broadcast':
      return [
        // 0, not "–": the publisher ran (its refused publishes are the row below, and a result reason).
        count('broadcasts published', c['broadcast.messages_sent'] ?? 0),
        ...publishFailedRows(c),
        count('messages received', c['broadcast.messages_received'] ?? 0),
        ...latencyRows('one-way latency (serverAt)', s['broadcast.latency'], true),
        ...latencyRows('echo round trip / 2', s['broadcast.echo_half_rtt'], false),
      ];
    case 'rooms': {
      const sl = s['vusers.session_length'];
      const d = s['pubsub.delivery_latency'];
      const avg = averagePerSecond(c, 'rooms.sent_per_s.');
      const peak = peakPerSecond(c, 'rooms.sent_per_s.') ?? peakRateFromPeriods(intermediate, 'pubsub.messages_sent');
      return [
        count('virtual users created', c['vusers.created'] ?? 0),
        count('virtual users completed', c['vusers.completed'] ?? 0),
        count('virtual users failed', c['vusers.failed'] ?? 0),
        msRow('session length min', sl?.min),
        msRow('session length max', sl?.max),
        msRow('session length mean', sl?.mean),
        msRow('session length median', sl?.median ?? sl?.p50),
        msRow('session length p95', sl?.p95),
        msRow('session length p99', sl?.p99),
        count('messages sent', c['pubsub.messages_sent'] ?? 0),
        count('messages received', c['pubsub.messages_received'] ?? 0),
        rateRow('average send rate', avg, '/sec'),
        rateRow('peak send rate', peak, '/sec'),
        msRow('delivery time min', d?.min),
        msRow('delivery time max', d?.max),
        msRow('delivery time mean', d?.mean),
        msRow('delivery time p95', d?.p95),
        msRow('delivery time p99', d?.p99),
        count('peak concurrent connections', peakConcurrent(c, 'rooms.conn_open.', 'rooms.conn_close.')),
        count('total sessions', c['ws.connected'] ?? 0),
      ];
    }
    case 'recovery':
      return recoveryRows(c, s);
    default:
      return [];
  }
}
