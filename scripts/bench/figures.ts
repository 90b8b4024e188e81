/**
 * Pure figures of the benchmark and of any run: memory per held vuser (generator and target side),
 * CPU per 1,000 vusers, whether a trial sustained its arrival rate. No I/O.
 */

/** A health sample as report.json's timeline.health holds it (subset). */
export interface RssSample {
  readonly at: number;
  readonly generator: string;
  readonly process: string;
  readonly rssBytes?: number;
}

/** A target sample as report.json's timeline.target holds it (subset). */
export interface TargetRssSample {
  readonly at: number;
  readonly connections?: number;
  readonly rssBytes?: number;
}

/**
 * Generator memory per held vuser from a run's health samples: per generator, the load processes' RSS
 * summed per sampling tick; (Σ peak tick − Σ first tick) / peak concurrent. The agent takes its first
 * sample at the start instant, before vusers exist, so the first tick is the RSS before load.
 * Undefined without samples or concurrency.
 */
export function generatorBytesPerVuser(samples: readonly RssSample[], peakConcurrent: number): number | undefined {
  if (!(peakConcurrent > 0)) return undefined;
  const ticks = new Map<string, Map<number, number>>();
  for (const s of samples) {
    if (s.rssBytes === undefined) continue;
    const g = ticks.get(s.generator) ?? new Map<number, number>();
    g.set(s.at, (g.get(s.at) ?? 0) + s.rssBytes);
    ticks.set(s.generator, g);
  }
  if (ticks.size === 0) return undefined;
  let growth = 0;
  for (const g of ticks.values()) {
    const ordered = [...g.entries()].sort((a, b) => a[0] - b[0]);
    const first = ordered[0]?.[1] ?? 0;
    growth += Math.max(0, Math.max(...ordered.map(([, v]) => v)) - first);
  }
  return growth / peakConcurrent;
}

/** Target memory per held vuser: (peak RSS − first RSS) / peak connections, from the target's /metrics samples. */
export function targetBytesPerVuser(samples: readonly TargetRssSample[]): number | undefined {
  const withRss = samples.filter((s) => s.rssBytes !== undefined).sort((a, b) => a.at - b.at);
  const peakConnections = Math.max(0, ...samples.map((s) => s.connections ?? 0));
  if (withRss.length === 0 || peakConnections === 0) return undefined;
  const first = withRss[0]?.rssBytes ?? 0;
  const peak = Math.max(...withRss.map((s) => s.rssBytes ?? 0));
  return Math.max(0, peak - first) / peakConnections;
}

/** What one trial (one arrival rate, one system) produced. */
export interface TrialCounts {
  readonly planned: number;
  readonly created: number;
  readonly failed: number;
}

/** Largest share of failed vusers a sustained rate allows. */
export const MAX_FAILED_SHARE = 0.01;
/** Shortfall of created vs planned vusers that counts as arrival lag (Artillery's timers fell behind). */
export const MAX_ARRIVAL_SHORTFALL = 0.01;

/** Why a trial did not sustain its rate (empty: it did). */
export function trialProblems(t: TrialCounts): string[] {
  const out: string[] = [];
  if (t.created < t.planned * (1 - MAX_ARRIVAL_SHORTFALL)) out.push(`arrival lag: ${t.created} of ${t.planned} vusers created`);
  if (t.created > 0 && t.failed / t.created >= MAX_FAILED_SHARE) out.push(`${((100 * t.failed) / t.created).toFixed(1)}% failed`);
  if (t.created === 0) out.push('no vusers created');
  return out;
}

/**
 * The order to try a ladder of rates: from `startIndex` upwards while they pass; when the first one
 * fails, downwards instead. `passes(i)` runs a trial. Resolves with the highest passing rate index
 * (or -1) and stops at the first failure past a pass, or when `budgetLeft()` says no.
 */
export async function searchLadder(
  count: number,
  startIndex: number,
  passes: (i: number) => Promise<boolean>,
  budgetLeft: () => boolean,
): Promise<number> {
  let i = Math.min(Math.max(0, startIndex), count - 1);
  if (await passes(i)) {
    let best = i;
    for (i = i + 1; i < count && budgetLeft(); i++) {
      if (!(await passes(i))) break;
      best = i;
    }
    return best;
  }
  for (i = i - 1; i >= 0 && budgetLeft(); i--) if (await passes(i)) return i;
  return -1;
}

/** One reporting period's creations (Artillery's `intermediate` entries: period start, epoch ms). */
export interface PeriodCreated {
  readonly period: number;
  readonly created: number;
}

/** Shortfall within one full period that counts as arrival lag. */
export const MAX_PERIOD_SHORTFALL = 0.05;

/**
 * Arrival lag seen per period: a lagging event loop creates vusers late, and Artillery catches up in a
 * later period, so a total can look whole while the arrivals bunched. Every period that lies entirely
 * inside the arrival window [start, end] must hold ≥ 95% of rate × its length; no vuser may be created
 * in a period that starts after the window (plus `slackMs` for the start's detection).
 */
export function periodLagProblems(periods: readonly PeriodCreated[], rate: number, start: number, end: number, periodMs = 10_000, slackMs = 1000): string[] {
  const out: string[] = [];
  for (const p of periods) {
    const full = p.period >= start - slackMs && p.period + periodMs <= end + slackMs;
    // Detection slack can make a full period look 1 s short: judge it on the part inside the window.
    const inside = Math.min(p.period + periodMs, end) - Math.max(p.period, start);
    if (full && p.created < rate * (inside / 1000) * (1 - MAX_PERIOD_SHORTFALL)) {
      out.push(`arrival lag: ${p.created} created in the period at ${new Date(p.period).toISOString().slice(11, 19)}, ${Math.round((rate * inside) / 1000)} planned`);
    }
    if (p.period > end + slackMs && p.created > 0) out.push(`arrival lag: ${p.created} created after the arrival window`);
  }
  return out;
}

/** CPU-seconds per 1,000 vusers created. */
export function cpuSecondsPerThousand(cpuSeconds: number, created: number): number | undefined {
  return created > 0 ? (cpuSeconds * 1000) / created : undefined;
}
