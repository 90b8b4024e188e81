/**
 * Rig-health verdict (pure): was any generator saturated while it ran, in which periods, and did the
 * errors come while it was? Decides whether a run's numbers describe the target or the rig.
 *
 * Rules (documented in README.md):
 * - A health sample is saturated when any resource passes its threshold ({@link DEFAULT_THRESHOLDS}).
 * - A sample describes the interval since the previous sample of the same load process (CPU is a
 *   delta over it), so it marks every reporting period that interval overlaps. The first sample of a
 *   process covers `sampleIntervalMs` before it.
 * - A period is rig-limited when any generator was saturated in it, or recorded errors that only its own
 *   machine raises ({@link GENERATOR_ERROR_CODES}: its sockets, ports, open files, memory; never the
 *   target's answer); errors in that period coincide with it. The run is `rig-limited` when any period
 *   is, else `partial` when a generator was lost, else `trustworthy`.
 * The output is deterministic: periods, generators and reasons are sorted.
 */

import { scriptFailureLine } from './error-origins';
import type { ErrorOrigins } from './error-origins';

// Where they were first defined, so their importers keep one place to import from.
export { scriptErrors } from './error-origins';
export type { ErrorOrigins } from './error-origins';

/** One resource sample of one load process. */
export interface HealthSample {
  readonly at: number;
  readonly generator: string;
  readonly process: string;
  readonly cpuPercent?: number;
  readonly rssBytes?: number;
  readonly openFiles?: number;
  readonly openFilesLimit?: number;
  readonly portsInUse?: number;
  /** Established TCP connections of this process (all its source addresses). */
  readonly socketsEstablished?: number;
  readonly eventLoopLagMs?: number;
  /**
   * Packets the generator's EC2 instance queued or dropped since its previous sample because it exceeded a network
   * allowance of its size, by allowance (`bw_in`, `bw_out`, `pps`, `conntrack`, `linklocal`; ENA's
   * `*_allowance_exceeded` counters). On one process's sample per tick: the instance's, not the process's.
   */
  readonly nicAllowanceExceeded?: Readonly<Record<string, number>>;
}

/** How the verdict names each network allowance of {@link HealthSample.nicAllowanceExceeded}. */
const NIC_ALLOWANCE_LABELS: Readonly<Record<string, string>> = {
  bw_in: 'inbound-bandwidth',
  bw_out: 'outbound-bandwidth',
  pps: 'packets-per-second',
  conntrack: 'connection-tracking',
  linklocal: 'link-local',
};

/** Saturation thresholds (documented in README.md). */
export interface SaturationThresholds {
  /** CPU of one load process, % of one core (its load thread is single-threaded). */
  readonly cpuPercent: number;
  /** p99 event-loop delay of a load thread over the last window, ms. */
  readonly eventLoopLagMs: number;
  /** Share of the open-file limit. */
  readonly openFilesShare: number;
  /** Share of the ephemeral port range for one source address. */
  readonly portsShare: number;
  /** Packets an EC2 network allowance of the generator queued or dropped in one sample interval. */
  readonly nicAllowancePackets: number;
}

/** The documented defaults. */
export const DEFAULT_THRESHOLDS: SaturationThresholds = { cpuPercent: 85, eventLoopLagMs: 100, openFilesShare: 0.9, portsShare: 0.9, nicAllowancePackets: 0 };

/** How often agents sample, when a process has no earlier sample to measure from. */
export const DEFAULT_SAMPLE_INTERVAL_MS = 5000;

/** A load process that was saturated at one sample, and why. */
export interface SaturationFinding {
  readonly generator: string;
  readonly process: string;
  readonly at: number;
  readonly reasons: readonly string[];
}

/** One reporting period as the verdict sees it. */
export interface PeriodVerdict {
  /** Period start, epoch ms (the key Artillery uses). */
  readonly period: number;
  /** Generators saturated in this period, each with its reasons (sorted, deduplicated). */
  readonly saturated: ReadonlyArray<{ readonly generator: string; readonly reasons: readonly string[] }>;
  /** Errors (`errors.*` counters) in this period across all generators. */
  readonly errors: number;
  /** True when any generator was saturated in this period. */
  readonly rigLimited: boolean;
  /** True when this period had errors while a generator was saturated. */
  readonly errorsCoincide: boolean;
}

/**
 * Error codes only the generator's own machine raises: a local address or port that cannot be bound or is used
 * up (EADDRINUSE, EADDRNOTAVAIL, EAFNOSUPPORT, EINVAL from bind/connect), no file descriptors left (EMFILE,
 * ENFILE), no kernel buffers or memory (ENOBUFS, ENOMEM). A target can refuse, reset or time out a connection,
 * never cause these.
 */
export const GENERATOR_ERROR_CODES: readonly string[] = ['EADDRINUSE', 'EADDRNOTAVAIL', 'EAFNOSUPPORT', 'EINVAL', 'EMFILE', 'ENFILE', 'ENOBUFS', 'ENOMEM'];

/**
 * The generator-side code a counter records, if any: Artillery's `errors.EMFILE`, or a cause the built-in
 * scenarios count (`cookie.retry_reason.EADDRNOTAVAIL`, `ws.connect_failed_reason.EMFILE`).
 */
export function generatorErrorCode(counter: string): string | undefined {
  const m = /^(?:errors|[\w.]*_reason)\.([A-Z]+)$/.exec(counter);
  return m && GENERATOR_ERROR_CODES.includes(m[1]!) ? m[1] : undefined;
}

/** Generator-side error codes one generator recorded in one period, with their counts. */
export interface GeneratorErrors {
  readonly generator: string;
  /** Period start, epoch ms. */
  readonly period: number;
  readonly codes: Readonly<Record<string, number>>;
}

/** The reason kind a period's generator gets for errors of its own. */
const OWN_ERRORS = 'errors of its own';

/** The verdict for the whole run. */
export interface Verdict {
  readonly verdict: 'trustworthy' | 'rig-limited' | 'partial';
  /** One line for the terminal and the report. */
  readonly summary: string;
  readonly thresholds: SaturationThresholds;
  /** Every period with samples or errors, sorted by time. */
  readonly periods: readonly PeriodVerdict[];
  /** Generators saturated at any time, sorted. */
  readonly saturatedGenerators: readonly string[];
  /** Every saturated sample, sorted by time, generator, process. */
  readonly saturated: readonly SaturationFinding[];
  /** Periods (epoch ms) that had errors while a generator was saturated. */
  readonly errorPeriodsWhileSaturated: readonly number[];
  /** Errors in the run and how many fell in rig-limited periods. */
  readonly errors: { readonly total: number; readonly whileSaturated: number };
  /** Generator-side error codes over the run ({@link GENERATOR_ERROR_CODES}), with their counts; empty when none. */
  readonly generatorErrors: Readonly<Record<string, number>>;
}

/** What the verdict is decided from. */
export interface VerdictInput {
  readonly samples: readonly HealthSample[];
  /** Size of the ephemeral port range of one source address. */
  readonly portRange: number;
  readonly periodMs: number;
  /** Errors per period start (epoch ms). */
  readonly errorsByPeriod: ReadonlyMap<number, number>;
  readonly lostGenerators: readonly string[];
  /** Generator-side errors per generator and period (from each generator's own counters). */
  readonly generatorErrors?: readonly GeneratorErrors[];
  readonly thresholds?: SaturationThresholds;
  readonly sampleIntervalMs?: number;
  /** The run's merged counters: failed vusers and `errors.*`, to tell errors the script raised from the target's. */
  readonly counters?: Readonly<Record<string, number>>;
  /** What else but the script can have raised them (absent: everything the rig knows of). */
  readonly errorOrigins?: ErrorOrigins;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** Why one sample counts as saturated (empty when it does not). */
export function saturationReasons(s: HealthSample, portRange: number, t: SaturationThresholds = DEFAULT_THRESHOLDS): string[] {
  const reasons: string[] = [];
  if (s.cpuPercent !== undefined && s.cpuPercent > t.cpuPercent) reasons.push(`CPU ${round1(s.cpuPercent)}% > ${t.cpuPercent}%`);
  if (s.eventLoopLagMs !== undefined && s.eventLoopLagMs > t.eventLoopLagMs) reasons.push(`event-loop lag ${round1(s.eventLoopLagMs)} ms > ${t.eventLoopLagMs} ms`);
  if (s.openFiles !== undefined && s.openFilesLimit && s.openFiles > t.openFilesShare * s.openFilesLimit) {
    reasons.push(`open files ${s.openFiles} > ${Math.round(t.openFilesShare * 100)}% of ${s.openFilesLimit}`);
  }
  if (s.portsInUse !== undefined && portRange > 0 && s.portsInUse > t.portsShare * portRange) {
    reasons.push(`ports ${s.portsInUse} > ${Math.round(t.portsShare * 100)}% of ${portRange}`);
  }
  for (const [allowance, packets] of Object.entries(s.nicAllowanceExceeded ?? {})) {
    if (packets > t.nicAllowancePackets) reasons.push(`${NIC_ALLOWANCE_LABELS[allowance] ?? allowance} allowance exceeded ${packets} packets`);
  }
  return reasons;
}

/** Reason kind without the figure ("CPU", "event-loop lag", …), to group reasons per period. */
const reasonKind = (r: string) => (r.startsWith(OWN_ERRORS) ? OWN_ERRORS : r.replace(/\s[\d.]+.*$/, ''));

/** "EINVAL 30, EMFILE 2": codes by count, then name. */
const codeList = (codes: Readonly<Record<string, number>>) =>
  Object.entries(codes)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');

const byTime = (a: HealthSample, b: HealthSample) =>
  a.at - b.at || a.generator.localeCompare(b.generator) || a.process.localeCompare(b.process);

/** HH:MM:SS (UTC) of an epoch ms, for the one-line summary. */
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/** Periods a sample's interval [from, at] overlaps. */
function periodsCovered(from: number, at: number, periodMs: number): number[] {
  const out: number[] = [];
  for (let p = from - (((from % periodMs) + periodMs) % periodMs); p <= at; p += periodMs) out.push(p);
  return out;
}

/**
 * Adds each generator's errors of its own to its period's reasons (summed per generator and period), and returns
 * every code's count over the run.
 */
function addOwnErrors(errors: readonly GeneratorErrors[], perPeriod: Map<number, Map<string, Map<string, string>>>): Record<string, number> {
  const own = new Map<string, { generator: string; period: number; codes: Record<string, number> }>();
  const total: Record<string, number> = {};
  for (const e of errors) {
    for (const [code, n] of Object.entries(e.codes)) {
      if (!(n > 0)) continue;
      const key = `${e.period}\u0000${e.generator}`;
      const entry = own.get(key) ?? { generator: e.generator, period: e.period, codes: {} };
      own.set(key, entry);
      entry.codes[code] = (entry.codes[code] ?? 0) + n;
      total[code] = (total[code] ?? 0) + n;
    }
  }
  for (const { generator, period, codes } of own.values()) {
    const gens = perPeriod.get(period) ?? new Map<string, Map<string, string>>();
    perPeriod.set(period, gens);
    const kinds = gens.get(generator) ?? new Map<string, string>();
    gens.set(generator, kinds);
    kinds.set(OWN_ERRORS, `${OWN_ERRORS}: ${codeList(codes)}`);
  }
  return total;
}

/** "generator g02 saturated (CPU) in period …; generator g01 raised errors no target causes (…) in …". */
function limitedSummary(limited: readonly PeriodVerdict[], generatorErrors: Readonly<Record<string, number>>): string {
  const span = (ps: readonly PeriodVerdict[]) => {
    const first = ps[0];
    const last = ps[ps.length - 1];
    return first && last ? (first === last ? `period ${clock(first.period)}` : `${ps.length} periods ${clock(first.period)}–${clock(last.period)}`) : '';
  };
  const isOwn = (r: string) => reasonKind(r) === OWN_ERRORS;
  const periodsWith = (own: boolean) => limited.filter((p) => p.saturated.some((g) => g.reasons.some((r) => isOwn(r) === own)));
  const named = (ps: readonly PeriodVerdict[], own: boolean) => {
    const gens = [...new Set(ps.flatMap((p) => p.saturated.filter((g) => g.reasons.some((r) => isOwn(r) === own)).map((g) => g.generator)))].sort();
    return `generator${gens.length > 1 ? 's' : ''} ${gens.join(', ')}`;
  };
  const parts: string[] = [];
  const saturated = periodsWith(false);
  if (saturated.length) {
    const why = [...new Set(saturated.flatMap((p) => p.saturated.flatMap((g) => g.reasons.filter((r) => !isOwn(r)).map(reasonKind))))].sort().join(', ');
    parts.push(`${named(saturated, false)} saturated (${why}) in ${span(saturated)}`);
  }
  const own = periodsWith(true);
  if (own.length) {
    parts.push(`${named(own, true)} raised errors no target causes (${codeList(generatorErrors)}: the generator's own ports, addresses, open files or memory) in ${span(own)}`);
  }
  return parts.join('; ');
}

/** Decides the per-period and whole-run verdict from every health sample and every period's errors. */
export function decideVerdict(input: VerdictInput): Verdict {
  const thresholds = input.thresholds ?? DEFAULT_THRESHOLDS;
  const interval = input.sampleIntervalMs ?? DEFAULT_SAMPLE_INTERVAL_MS;
  const samples = [...input.samples].sort(byTime);
  const lastAt = new Map<string, number>();
  const saturated: SaturationFinding[] = [];
  /** period → generator → reason kind → worst reason text (first seen). */
  const perPeriod = new Map<number, Map<string, Map<string, string>>>();
  const seenPeriods = new Set<number>();
  for (const s of samples) {
    const key = `${s.generator}\u0000${s.process}`;
    const from = Math.min(s.at, lastAt.get(key) ?? s.at - interval);
    lastAt.set(key, s.at);
    // The sample's own period always counts; earlier ones only for the part of the interval inside them.
    const covered = periodsCovered(from + 1, s.at, input.periodMs);
    seenPeriods.add(s.at - (s.at % input.periodMs));
    const reasons = saturationReasons(s, input.portRange, thresholds);
    if (!reasons.length) continue;
    saturated.push({ generator: s.generator, process: s.process, at: s.at, reasons });
    for (const p of covered) {
      const gens = perPeriod.get(p) ?? new Map<string, Map<string, string>>();
      perPeriod.set(p, gens);
      const kinds = gens.get(s.generator) ?? new Map<string, string>();
      gens.set(s.generator, kinds);
      for (const r of reasons) if (!kinds.has(reasonKind(r))) kinds.set(reasonKind(r), r);
    }
  }
  // Errors only a generator's own machine raises make their period rig-limited, as saturation does.
  const generatorErrors = addOwnErrors(input.generatorErrors ?? [], perPeriod);
  for (const p of input.errorsByPeriod.keys()) seenPeriods.add(p);
  for (const p of perPeriod.keys()) seenPeriods.add(p);

  const periods: PeriodVerdict[] = [...seenPeriods]
    .sort((a, b) => a - b)
    .map((period) => {
      const gens = perPeriod.get(period);
      const sat = gens
        ? [...gens.entries()]
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([generator, kinds]) => ({ generator, reasons: [...kinds.values()].sort() }))
        : [];
      const errors = input.errorsByPeriod.get(period) ?? 0;
      return { period, saturated: sat, errors, rigLimited: sat.length > 0, errorsCoincide: sat.length > 0 && errors > 0 };
    });

  const errorPeriodsWhileSaturated = periods.filter((p) => p.errorsCoincide).map((p) => p.period);
  const total = [...input.errorsByPeriod.values()].reduce((a, b) => a + b, 0);
  const whileSaturated = periods.filter((p) => p.errorsCoincide).reduce((a, p) => a + p.errors, 0);
  const saturatedGenerators = [...new Set(saturated.map((f) => f.generator))].sort();
  const base = { thresholds, periods, saturatedGenerators, saturated, errorPeriodsWhileSaturated, errors: { total, whileSaturated }, generatorErrors };

  const limited = periods.filter((p) => p.rigLimited);
  if (limited.length) {
    const errorsPart =
      total === 0
        ? 'no errors'
        : whileSaturated === 0
          ? `none of the ${total} errors coincide: they come from the target`
          : `${whileSaturated} of ${total} errors coincide with it: they may come from the rig`;
    return { ...base, verdict: 'rig-limited', summary: `${limitedSummary(limited, generatorErrors)}; ${errorsPart}` };
  }
  if (input.lostGenerators.length) {
    return { ...base, verdict: 'partial', summary: `generator(s) ${[...input.lostGenerators].sort().join(', ')} lost: data is partial` };
  }
  const own = scriptFailureLine(input.counters ?? {}, input.errorOrigins);
  // The figures describe the target only as far as the failures are the target's.
  if (own) return { ...base, verdict: 'trustworthy', summary: `no generator was saturated, but ${own}` };
  return { ...base, verdict: 'trustworthy', summary: 'no generator was saturated: the figures describe the target' };
}
