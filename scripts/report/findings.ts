import { secondsOfPhase, type Phase } from '../core/phases';
import type { ReportJson } from './types';
/**
 * What a reader looks for first, computed from report.json (pure): the key findings with their severity
 * (loss is red, so a run where a fifth of the vusers heard nothing cannot look green), the table of
 * error types with when they first and last appeared, and the phases on the elapsed-time axis.
 */

/** How a finding reads: fine, worth a look, or loss/failure. */
export type Severity = 'ok' | 'warn' | 'bad';

/** One key figure of the first screen. */
export interface Finding {
  readonly id: string;
  readonly label: string;
  readonly text: string;
  readonly severity: Severity;
  readonly value: number | null;
}

/** A phase on the time axis (epoch ms). */
export interface PhaseBand {
  readonly name: string;
  readonly from: number;
  readonly to: number;
}

/** One error type over the run. */
export interface ErrorRow {
  /** The counter without its `errors.` prefix. */
  readonly name: string;
  readonly count: number;
  /** Share of created vusers (an error ends a vuser, so this is the share it failed). */
  readonly percentOfVusers: number;
  /** Period starts (epoch ms) of the first and last period it was counted in. */
  readonly firstPeriod: number;
  readonly lastPeriod: number;
  /** The phase the first one fell in. */
  readonly phase: string;
}

/** Where the run's clock starts: the shared start, else the first period. */
export function runStart(r: Pick<ReportJson, 'startedAt' | 'intermediate' | 'endedAt'>): number {
  if (r.startedAt !== undefined) return r.startedAt;
  const first = r.intermediate.map((p) => p.period).sort((a, b) => a - b)[0];
  return first ?? r.endedAt;
}

/** `T+m:ss` of an instant (never negative: a period that began before the start reads T+0:00). */
export function elapsed(at: number, start: number): string {
  const s = Math.max(0, Math.round((at - start) / 1000));
  return `T+${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** The band after the last phase: no arrivals, the vusers created still running (it was called "hold", a word scripts do not have). */
export const AFTER_ARRIVALS = 'after arrivals';

/**
 * The planned phases of the first generator laid on the clock, plus "after arrivals" from the last arrival to the
 * end of the run (vusers still running: a built-in scenario's hold, a script's last sessions). Every generator runs
 * the same phases, scaled.
 */
export function phaseBands(r: Pick<ReportJson, 'phases' | 'startedAt' | 'intermediate' | 'endedAt'>): PhaseBand[] {
  const start = runStart(r);
  const phases = (r.phases[0]?.phases ?? []) as Array<Record<string, unknown>>;
  const bands: PhaseBand[] = [];
  let t = start;
  for (const [i, p] of phases.entries()) {
    // Phases as the load processes got them: whole seconds, or "<n>ms" for a fraction (one duration rule).
    const seconds = secondsOfPhase(p as Pick<Phase, 'duration' | 'pause'>);
    if (!Number.isFinite(seconds) || seconds <= 0) continue;
    const name = typeof p.name === 'string' && p.name ? p.name : p.pause !== undefined ? 'pause' : phases.length === 1 ? 'arrivals' : `phase ${i + 1}`;
    bands.push({ name, from: t, to: t + seconds * 1000 });
    t += seconds * 1000;
  }
  if (bands.length && r.endedAt > t) bands.push({ name: AFTER_ARRIVALS, from: t, to: r.endedAt });
  return bands;
}

const phaseAt = (bands: readonly PhaseBand[], at: number): string => bands.find((b) => at >= b.from && at < b.to)?.name ?? (bands.length && at < (bands[0]?.from ?? 0) ? (bands[0]?.name ?? '–') : '–');

/** Every error type, most frequent first. */
export function errorRows(r: Pick<ReportJson, 'aggregate' | 'intermediate' | 'phases' | 'startedAt' | 'endedAt'>): ErrorRow[] {
  const created = r.aggregate.counters['vusers.created'] ?? 0;
  const bands = phaseBands(r);
  const periods = [...r.intermediate].sort((a, b) => a.period - b.period);
  const rows: ErrorRow[] = [];
  for (const [key, count] of Object.entries(r.aggregate.counters)) {
    if (!key.startsWith('errors.') || !count) continue;
    const seen = periods.filter((p) => (p.counters[key] ?? 0) > 0).map((p) => p.period);
    const firstPeriod = seen[0] ?? r.endedAt;
    rows.push({
      name: key.slice('errors.'.length),
      count,
      percentOfVusers: created ? (100 * count) / created : 0,
      firstPeriod,
      lastPeriod: seen[seen.length - 1] ?? firstPeriod,
      phase: phaseAt(bands, Math.max(firstPeriod, runStart(r))),
    });
  }
  return rows.sort((a, b) => b.count - a.count || a.firstPeriod - b.firstPeriod || a.name.localeCompare(b.name));
}

const n = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: 1 });
const pct = (v: number) => `${Number(v.toFixed(2))}%`;

/** Counters whose name says a retry, by cause (`cookie.retry_reason.http_503` → "http_503"). */
function retryCauses(c: Record<string, number>): string {
  const causes = Object.entries(c)
    .filter(([k, v]) => k.startsWith('cookie.retry_reason.') && v > 0)
    .sort(([, a], [, b]) => b - a)
    .map(([k, v]) => `${k.slice('cookie.retry_reason.'.length).replace(/^http_/, 'HTTP ')} × ${n(v)}`);
  return causes.length ? ` (${causes.join(', ')})` : '';
}

/** The first screen's findings: the scenario's key figures with their severity. */
export function findingsOf(r: ReportJson): Finding[] {
  const c = r.aggregate.counters;
  const out: Finding[] = [];
  const start = runStart(r);
  const created = c['vusers.created'] ?? 0;
  const failed = c['vusers.failed'] ?? 0;
  out.push({ id: 'vusers-failed', label: 'vusers failed', value: failed, severity: failed > 0 ? 'bad' : 'ok', text: `${n(failed)} of ${n(created)} (${pct(created ? (100 * failed) / created : 0)})` });

  const expected = c['pubsub.messages_expected'];
  const received = c['pubsub.messages_received'] ?? 0;
  if (expected !== undefined && expected > 0) {
    const ratio = (100 * received) / expected;
    out.push({ id: 'receipt', label: 'receipt ratio (received / expected)', value: ratio, severity: ratio < 99 ? 'bad' : ratio < 100 ? 'warn' : 'ok', text: `${pct(ratio)} (${n(received)} of ${n(expected)})` });
    const missing = Math.max(0, expected - received);
    out.push({ id: 'missing', label: 'messages missing', value: missing, severity: missing > 0.01 * expected ? 'bad' : missing > 0 ? 'warn' : 'ok', text: n(missing) });
  }
  if (c['pubsub.vusers_zero_messages'] !== undefined || (expected ?? 0) > 0) {
    const zero = c['pubsub.vusers_zero_messages'] ?? 0;
    const connected = c['ws.connected'] ?? 0;
    out.push({ id: 'zero-messages', label: 'vusers that received no message', value: zero, severity: zero > 0 ? 'bad' : 'ok', text: `${n(zero)} of ${n(connected)} connected (${pct(connected ? (100 * zero) / connected : 0)})` });
  }
  const lost = c['recovery.messages_lost'];
  if (lost !== undefined) out.push({ id: 'recovery-lost', label: 'messages lost across reconnects', value: lost, severity: lost > 0 ? 'bad' : 'ok', text: n(lost) });
  const sent = c['presence.target_announcements_sent'];
  if (sent !== undefined && sent > 0) {
    const got = c['presence.announcements_received'] ?? 0;
    const ratio = (100 * got) / sent;
    out.push({ id: 'presence', label: 'announcements received / sent', value: ratio, severity: ratio < 99 ? 'bad' : ratio < 100 ? 'warn' : 'ok', text: `${pct(ratio)} (${n(got)} of ${n(sent)})` });
  }
  const delivery = r.aggregate.summaries['pubsub.delivery_latency'] ?? r.aggregate.summaries['broadcast.latency'] ?? r.aggregate.summaries['recovery.delivery_latency'];
  if (delivery) out.push({ id: 'delivery', label: 'delivery latency p50 / p95 / p99', value: delivery.p95, severity: 'ok', text: `${n(delivery.p50)} / ${n(delivery.p95)} / ${n(delivery.p99)} ms` });
  const connect = r.aggregate.summaries['ws.connect_time'];
  if (connect) out.push({ id: 'connect', label: 'connect time p50 / p95 / p99', value: connect.p95, severity: 'ok', text: `${n(connect.p50)} / ${n(connect.p95)} / ${n(connect.p99)} ms` });
  const dropped = (c['ws.dropped'] ?? 0) + (c['ws.connect_failed'] ?? 0);
  if (dropped > 0) out.push({ id: 'dropped', label: 'connections failed or dropped', value: dropped, severity: 'bad', text: `${n(c['ws.connect_failed'] ?? 0)} failed to connect, ${n(c['ws.dropped'] ?? 0)} dropped` });

  const errors = errorRows(r);
  const first = [...errors].sort((a, b) => a.firstPeriod - b.firstPeriod)[0];
  const totalErrors = errors.reduce((a, e) => a + e.count, 0);
  out.push(
    first
      ? { id: 'first-error', label: 'first error', value: totalErrors, severity: 'bad', text: `${first.name} in the period ending ${elapsed(first.firstPeriod + r.timeline.periodMs, start)} (${n(totalErrors)} error${totalErrors === 1 ? '' : 's'} of ${errors.length} type${errors.length === 1 ? '' : 's'})` }
      : { id: 'first-error', label: 'errors', value: 0, severity: 'ok', text: 'none' },
  );
  const retries = c['cookie.retry'] ?? 0;
  if (retries > 0 || c['cookie.failed']) {
    out.push({ id: 'retries', label: 'cookie retries', value: retries, severity: c['cookie.failed'] ? 'bad' : retries > 0 ? 'warn' : 'ok', text: `${n(retries)}${retryCauses(c)}${c['cookie.failed'] ? `; ${n(c['cookie.failed'])} gave up` : ''}` });
  }
  const held = heldText(r.rig, r.rigScenario);
  if (held) out.push({ id: 'peak-held', label: 'peak held at once', value: held.value, severity: held.short ? 'warn' : 'ok', text: held.text });
  return out;
}

/** The built-in scenarios whose load processes hold a publisher's HTTP connections besides the vusers' sockets (a copy's too: RunSummary.rigScenario). */
const PUBLISHING = new Set(['pubsub', 'broadcast', 'recovery']);

/**
 * The most vusers held at once, next to what was asked: the target's own connection count and the generators'
 * established sockets (`rig.held`, measured only: `memoryPerVuser.peakHeld` falls back to the plan, so it is not
 * used here); `short` when the target held fewer than 95% of `--vusers N` (N held at once is what `--vusers`
 * without `--hold` means). The generators' figure counts every TCP connection of the load processes: with a
 * publisher (`pubsub`, `broadcast`, `recovery`), its keep-alive HTTP connections too (one per room it posts to at
 * once), so it is labelled connections, not sockets of vusers (13 "of --vusers 10" on pubsub with 3 rooms).
 * Sessions shorter than the 5-s sampling: "not sampled", not a number caught by chance.
 */
export function heldText(rig: Pick<ReportJson['rig'], 'held' | 'plan'>, rigScenario?: string): { value: number | null; text: string; short: boolean } | undefined {
  const notSampled = rig.held?.notSampled;
  // Nothing asked to be held (a script of short HTTP requests): no row, as for "0 held" below.
  if (notSampled && rig.held?.requested === undefined) return undefined;
  if (notSampled) return { value: null, text: `not sampled (${notSampled})${rig.held?.requested !== undefined ? ` (of --vusers ${n(rig.held.requested)})` : ''}`, short: false };
  const target = rig.held?.targetConnections;
  const sockets = rig.held?.generatorSockets;
  const value = target ?? sockets;
  if (value === undefined) return undefined;
  const requested = rig.held?.requested;
  // Nothing held and nothing asked to be held (a script of HTTP requests): "0 generator sockets (plan: 6 at once)" read as a shortfall.
  if (value === 0 && requested === undefined) return undefined;
  const generators = rigScenario !== undefined && PUBLISHING.has(rigScenario) ? "generator connections (the vusers' and the publisher's)" : 'generator sockets';
  const parts = [
    target !== undefined ? `${n(target)} target connections` : undefined,
    sockets !== undefined ? `${n(sockets)} ${generators}` : undefined,
  ].filter(Boolean);
  const of = requested !== undefined ? `of --vusers ${n(requested)}` : `plan: ${n(rig.plan.peakConcurrent)} at once`;
  return { value, text: `${parts.join(', ')} (${of})`, short: requested !== undefined && target !== undefined && target < 0.95 * requested };
}
