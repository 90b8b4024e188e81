/**
 * Rig-health verdict (pure): was any generator saturated while it ran, and did the errors come
 * while it was? Decides whether a run's numbers describe the target or the rig.
 */

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
  readonly eventLoopLagMs?: number;
}

/** Saturation thresholds (documented in the README). */
export interface SaturationThresholds {
  /** CPU of one load process, % of one core (its load thread is single-threaded). */
  readonly cpuPercent: number;
  readonly eventLoopLagMs: number;
  /** Share of the open-file limit. */
  readonly openFilesShare: number;
  /** Share of the ephemeral port range for one source address. */
  readonly portsShare: number;
}

/** The documented defaults. */
export const DEFAULT_THRESHOLDS: SaturationThresholds = { cpuPercent: 85, eventLoopLagMs: 100, openFilesShare: 0.9, portsShare: 0.9 };

/** A generator that was saturated at some time, and why. */
export interface SaturationFinding {
  readonly generator: string;
  readonly process: string;
  readonly at: number;
  readonly reasons: readonly string[];
}

/** The verdict for the whole run. */
export interface Verdict {
  readonly verdict: 'trustworthy' | 'rig-limited' | 'partial';
  readonly summary: string;
  readonly saturated: readonly SaturationFinding[];
  /** Periods (epoch ms) that had errors while a generator was saturated. */
  readonly errorPeriodsWhileSaturated: readonly number[];
}

/** Why one sample counts as saturated (empty when it does not). */
export function saturationReasons(s: HealthSample, portRange: number, t: SaturationThresholds = DEFAULT_THRESHOLDS): string[] {
  const reasons: string[] = [];
  if (s.cpuPercent !== undefined && s.cpuPercent > t.cpuPercent) reasons.push(`CPU ${s.cpuPercent}% > ${t.cpuPercent}%`);
  if (s.eventLoopLagMs !== undefined && s.eventLoopLagMs > t.eventLoopLagMs) reasons.push(`event-loop lag ${s.eventLoopLagMs} ms > ${t.eventLoopLagMs} ms`);
  if (s.openFiles !== undefined && s.openFilesLimit && s.openFiles > t.openFilesShare * s.openFilesLimit) {
    reasons.push(`open files ${s.openFiles} > ${Math.round(t.openFilesShare * 100)}% of ${s.openFilesLimit}`);
  }
  if (s.portsInUse !== undefined && portRange > 0 && s.portsInUse > t.portsShare * portRange) {
    reasons.push(`ports ${s.portsInUse} > ${Math.round(t.portsShare * 100)}% of ${portRange}`);
  }
  return reasons;
}

/**
 * Decides the verdict from every health sample and the error count of every period.
 * `rig-limited` when any generator was saturated; the error periods that coincide are named.
 */
export function decideVerdict(input: {
  readonly samples: readonly HealthSample[];
  readonly portRange: number;
  readonly periodMs: number;
  readonly errorsByPeriod: ReadonlyMap<number, number>;
  readonly lostGenerators: readonly string[];
  readonly thresholds?: SaturationThresholds;
}): Verdict {
  const saturated: SaturationFinding[] = [];
  for (const s of input.samples) {
    const reasons = saturationReasons(s, input.portRange, input.thresholds);
    if (reasons.length) saturated.push({ generator: s.generator, process: s.process, at: s.at, reasons });
  }
  const saturatedPeriods = new Set(saturated.map((f) => f.at - (f.at % input.periodMs)));
  const errorPeriodsWhileSaturated = [...input.errorsByPeriod]
    .filter(([period, errors]) => errors > 0 && saturatedPeriods.has(period))
    .map(([period]) => period)
    .sort((a, b) => a - b);
  if (saturated.length) {
    const gens = [...new Set(saturated.map((f) => f.generator))].sort();
    const first = saturated[0];
    return {
      verdict: 'rig-limited',
      summary:
        `generator${gens.length > 1 ? 's' : ''} ${gens.join(', ')} saturated (${first?.reasons.join(', ')})` +
        (errorPeriodsWhileSaturated.length ? `; ${errorPeriodsWhileSaturated.length} period(s) with errors coincide` : '; no errors coincide'),
      saturated,
      errorPeriodsWhileSaturated,
    };
  }
  if (input.lostGenerators.length) {
    return { verdict: 'partial', summary: `generator(s) ${input.lostGenerators.join(', ')} lost: data is partial`, saturated, errorPeriodsWhileSaturated };
  }
  return { verdict: 'trustworthy', summary: 'no generator was saturated: the figures describe the target', saturated, errorPeriodsWhileSaturated };
}
