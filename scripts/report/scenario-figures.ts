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
export interface FigureRow {
  readonly label: string;
  readonly value: string;
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
const pct = (a: number | undefined, b: number | undefined): string => (a === undefined || !b ? '–' : `${num((100 * a) / b, 2)} %`);

function latencyRows(label: string, s: Summary | undefined, withMinMax: boolean): FigureRow[] {
  if (!s) return [{ label: `${label}`, value: 'no samples' }];
  const rows: FigureRow[] = [];
  if (withMinMax) rows.push({ label: `${label} min`, value: ms(s.min) }, { label: `${label} max`, value: ms(s.max) }, { label: `${label} mean`, value: ms(s.mean) });
  rows.push({ label: `${label} p50`, value: ms(s.p50 ?? s.median) }, { label: `${label} p95`, value: ms(s.p95) }, { label: `${label} p99`, value: ms(s.p99) });
  return rows;
}

function clockRows(agg: FiguresSection): FigureRow[] {
  const o = agg.summaries['clock.offset_ms'];
  if (!o) return agg.counters['clock.unavailable'] ? [{ label: 'clock offsets', value: 'unavailable (target has no GET /time): latencies uncorrected' }] : [];
  return [{ label: 'clock offset vs target (per process)', value: `${ms(o.min)} … ${ms(o.max)} over ${num(o.count)} process(es)` }];
}

/** The scenario-specific rows for the summary and the report; [] for scenarios without any. */
export function scenarioFigures(scenario: string, aggregate: FiguresSection, intermediate: readonly FiguresPeriod[]): FigureRow[] {
  const c = aggregate.counters;
  const s = aggregate.summaries;
  switch (scenario) {
    case 'pubsub': {
      const connected = c['ws.connected'];
      return [
        { label: 'messages published', value: num(c['pubsub.messages_sent']) },
        { label: 'messages received', value: num(c['pubsub.messages_received']) },
        { label: 'messages expected', value: num(c['pubsub.messages_expected']) },
        { label: 'receipt ratio', value: pct(c['pubsub.messages_received'], c['pubsub.messages_expected']) },
        { label: 'gaps / duplicates', value: `${num(c['pubsub.gaps'] ?? 0)} / ${num(c['pubsub.duplicates'] ?? 0)}` },
        { label: 'vusers with zero messages', value: `${num(c['pubsub.vusers_zero_messages'] ?? 0)} of ${num(connected)} connected (${pct(c['pubsub.vusers_zero_messages'] ?? 0, connected)})` },
        ...latencyRows('delivery latency', s['pubsub.delivery_latency'], false),
        ...clockRows(aggregate),
      ];
    }
    case 'presence': {
      const sent = c['presence.target_announcements_sent'];
      const peak = s['target.peak_send_rate_per_sec'];
      return [
        { label: 'announcements received', value: num(c['presence.announcements_received'] ?? 0) },
        { label: 'announcements sent by the target', value: sent === undefined ? 'unknown (target has no /metrics)' : num(sent) },
        { label: 'received / sent', value: pct(c['presence.announcements_received'] ?? 0, sent) },
        { label: 'target peak send rate', value: peak ? `${num(peak.max)}/s` : 'unknown' },
      ];
    }
    case 'broadcast':
      return [
        { label: 'broadcasts published', value: num(c['broadcast.messages_sent']) },
        { label: 'messages received', value: num(c['broadcast.messages_received']) },
        ...latencyRows('one-way latency (serverAt)', s['broadcast.latency'], true),
        ...latencyRows('echo round trip / 2', s['broadcast.echo_half_rtt'], false),
        ...clockRows(aggregate),
      ];
    case 'rooms': {
      const sl = s['vusers.session_length'];
      const d = s['pubsub.delivery_latency'];
      const avg = averagePerSecond(c, 'rooms.sent_per_s.');
      const peak = peakPerSecond(c, 'rooms.sent_per_s.') ?? peakRateFromPeriods(intermediate, 'pubsub.messages_sent');
      return [
        { label: 'virtual users created', value: num(c['vusers.created'] ?? 0) },
        { label: 'virtual users completed', value: num(c['vusers.completed'] ?? 0) },
        { label: 'virtual users failed', value: num(c['vusers.failed'] ?? 0) },
        { label: 'session length min', value: ms(sl?.min) },
        { label: 'session length max', value: ms(sl?.max) },
        { label: 'session length mean', value: ms(sl?.mean) },
        { label: 'session length median', value: ms(sl?.median ?? sl?.p50) },
        { label: 'session length p95', value: ms(sl?.p95) },
        { label: 'session length p99', value: ms(sl?.p99) },
        { label: 'messages sent', value: num(c['pubsub.messages_sent'] ?? 0) },
        { label: 'messages received', value: num(c['pubsub.messages_received'] ?? 0) },
        { label: 'average send rate', value: avg === undefined ? '–' : `${num(avg)}/sec` },
        { label: 'peak send rate', value: peak === undefined ? '–' : `${num(peak)}/sec` },
        { label: 'delivery time min', value: ms(d?.min) },
        { label: 'delivery time max', value: ms(d?.max) },
        { label: 'delivery time mean', value: ms(d?.mean) },
        { label: 'delivery time p95', value: ms(d?.p95) },
        { label: 'delivery time p99', value: ms(d?.p99) },
        { label: 'peak concurrent connections', value: num(peakConcurrent(c, 'rooms.conn_open.', 'rooms.conn_close.')) },
        { label: 'total sessions', value: num(c['ws.connected'] ?? 0) },
      ];
    }
    case 'recovery': {
      const rec = c['recovery.messages_recovered'] ?? 0;
      const lost = c['recovery.messages_lost'] ?? 0;
      return [
        { label: 'sessions recovered', value: `${num(c['recovery.sessions_recovered'] ?? 0)} (not recovered ${num(c['recovery.sessions_not_recovered'] ?? 0)}, reconnect failed ${num(c['recovery.reconnect_failed'] ?? 0)})` },
        { label: 'messages recovered', value: num(rec) },
        { label: 'messages lost', value: num(lost) },
        { label: 'recovered / (recovered + lost)', value: pct(rec, rec + lost) },
        ...latencyRows('delivery latency', s['recovery.delivery_latency'], false),
      ];
    }
    default:
      return [];
  }
}
