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

/**
 * Whether a system sustains one rate of the ladder: up to `repeat` trials there, stopping at the first that
 * does not. A rate counts as sustained only when every trial was (one trial per rate moves a system's ceiling
 * by a ladder step between runs on the same machine: docs/performance.md).
 */
export async function sustainsRate(repeat: number, trialPasses: () => Promise<boolean>): Promise<boolean> {
  for (let k = 0; k < repeat; k++) if (!(await trialPasses())) return false;
  return true;
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
 * later period, so a total can look whole while the arrivals bunched. Judged from the creations alone
 * (no clock of the caller's): every period strictly between the first and the last with creations is a
 * full period of the arrival window and must hold ≥ 95% of rate × period; and creations may span at
 * most ceil(seconds / period) + 1 periods (more means they spilled past the window).
 */
export function periodLagProblems(periods: readonly PeriodCreated[], rate: number, seconds: number, periodMs = 10_000): string[] {
  const active = periods.filter((p) => p.created > 0).sort((a, b) => a.period - b.period);
  if (active.length === 0) return [];
  const first = active[0]!.period;
  const last = active[active.length - 1]!.period;
  const out: string[] = [];
  for (const p of active) {
    if (p.period > first && p.period < last && p.created < rate * (periodMs / 1000) * (1 - MAX_PERIOD_SHORTFALL)) {
      out.push(`arrival lag: ${p.created} created in the period at ${new Date(p.period).toISOString().slice(11, 19)}, ${Math.round((rate * periodMs) / 1000)} planned`);
    }
  }
  const span = Math.round((last - first) / periodMs) + 1;
  const allowed = Math.ceil((seconds * 1000) / periodMs) + 1;
  if (span > allowed) out.push(`arrival lag: creations spread over ${span} periods, the arrival window fits ${allowed}`);
  return out;
}

/** CPU-seconds per 1,000 vusers created. */
export function cpuSecondsPerThousand(cpuSeconds: number, created: number): number | undefined {
  return created > 0 ? (cpuSeconds * 1000) / created : undefined;
}

/** The machine's CPU time so far, in clock ticks (/proc/stat): busy and idle. */
export interface CpuTimes {
  readonly busy: number;
  readonly idle: number;
}

/** Where the CPU went during a trial's arrival window. */
export interface CpuSplit {
  /** Share of the machine's CPU time that was busy, 0–1. */
  readonly machineBusy: number;
  /** Cores' worth of CPU the load processes used. */
  readonly loadCores: number;
  /** Cores' worth of CPU the target used; undefined when the bench did not start it. */
  readonly targetCores?: number;
}

/**
 * CPU split of a window from two machine readings and the load processes' (and target's) CPU ticks in it.
 * Undefined for an empty window.
 */
export function cpuSplit(m0: CpuTimes, m1: CpuTimes, loadTicks: number, targetTicks: number | undefined, seconds: number, clkTck = 100): CpuSplit | undefined {
  const total = m1.busy - m0.busy + (m1.idle - m0.idle);
  if (!(seconds > 0) || !(total > 0)) return undefined;
  return {
    machineBusy: (m1.busy - m0.busy) / total,
    loadCores: loadTicks / clkTck / seconds,
    ...(targetTicks !== undefined ? { targetCores: targetTicks / clkTck / seconds } : {}),
  };
}

/** Busy share of the machine's CPU from which a ceiling is the machine's, not the generator's own. */
export const MACHINE_BOUND_SHARE = 0.9;

/** Whether the machine's CPU, rather than the generator, bound a trial. */
export function machineBound(split: CpuSplit | undefined): boolean {
  return split !== undefined && split.machineBusy >= MACHINE_BOUND_SHARE;
}

/** One line on what bound a system at its ceiling (the first rate it did not sustain). */
export function ceilingLine(system: string, rate: number, split: CpuSplit | undefined): string {
  if (!split) return `${system} at ${rate}/s: no CPU reading`;
  const target = split.targetCores !== undefined ? `, target ${split.targetCores.toFixed(2)} cores` : '';
  const what = machineBound(split)
    ? "the machine's CPU bound it, not the generator"
    : 'CPU was left idle: the generator itself (its load threads) bound it';
  return `${system} at ${rate}/s: machine CPU ${(100 * split.machineBusy).toFixed(0)}% busy (load processes ${split.loadCores.toFixed(2)} cores${target}): ${what}`;
}

/** CPU milliseconds per vuser created: the load processes' CPU over the arrival window / vusers created in it. */
export function cpuMsPerVuser(windowCpuSeconds: number | undefined, created: number): number | undefined {
  return windowCpuSeconds !== undefined && created > 0 ? (windowCpuSeconds * 1000) / created : undefined;
}

/** What the comparison figures need of one trial. */
export interface TrialFigures {
  readonly system: 'plain' | 'rig';
  readonly rate: number;
  /** Sustained: no problems. */
  readonly sustained: boolean;
  readonly created: number;
  /** Load processes' CPU-seconds over the arrival window (start-up excluded). */
  readonly windowCpuSeconds?: number;
  /** Seconds from the command to its first vuser (the idle warm-up phase excluded). */
  readonly startupSeconds?: number;
  /** Plain run with its arrival timer's spin removed: only for CPU per vuser, never a ladder or start-up figure. */
  readonly withoutSpin?: boolean;
}

/**
 * The rate at which CPU per vuser is compared: the highest rate both systems sustained in some trial, so
 * the figure is the marginal cost of a vuser where neither is overloaded. Undefined when there is none.
 */
export function comparisonRate(all: readonly TrialFigures[]): number | undefined {
  const trials = all.filter((t) => !t.withoutSpin);
  // A rate with several trials (--repeat) is the system's only when every one of them sustained it.
  const missed = (s: 'plain' | 'rig') => new Set(trials.filter((t) => t.system === s && !t.sustained).map((t) => t.rate));
  const sustained = (s: 'plain' | 'rig') =>
    new Set(trials.filter((t) => t.system === s && t.sustained && t.windowCpuSeconds !== undefined && !missed(s).has(t.rate)).map((t) => t.rate));
  const rig = sustained('rig');
  const both = [...sustained('plain')].filter((r) => rig.has(r));
  return both.length ? Math.max(...both) : undefined;
}

/**
 * CPU ms per vuser of one system at a rate: the mean over its sustained trials there, either as the system ran or
 * (`withoutSpin`, plain only) with its arrival timer's spin removed.
 */
export function cpuMsPerVuserAt(trials: readonly TrialFigures[], system: 'plain' | 'rig', rate: number | undefined, withoutSpin = false): number | undefined {
  const at = trials.filter((t) => t.system === system && t.rate === rate && t.sustained && Boolean(t.withoutSpin) === withoutSpin);
  const cpu = at.reduce((a, t) => a + (t.windowCpuSeconds ?? 0), 0);
  return cpuMsPerVuser(at.length ? cpu : undefined, at.reduce((a, t) => a + t.created, 0));
}

/** The median of some numbers (undefined for none). */
export function median(xs: ReadonlyArray<number | undefined>): number | undefined {
  const v = xs.filter((x): x is number => x !== undefined && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1]! + v[mid]!) / 2;
}

/** rig / plain, undefined when either is missing or plain is 0. */
export function ratioOf(rig: number | undefined, plain: number | undefined): number | undefined {
  return rig === undefined || plain === undefined || plain === 0 ? undefined : rig / plain;
}

/** The bench's comparison, as `--json` writes it under `ratios` (each rig / plain). */
export interface BenchRatios {
  /** Highest sustained arrival rate per generator core. */
  readonly perCoreArrivalRate?: number;
  /**
   * CPU ms per vuser over the arrival window at the comparison rate, against plain with its arrival timer's spin
   * removed: the marginal cost of a vuser on both sides.
   */
  readonly cpuMsPerVuser?: number;
  /** The same against plain as it runs (its spin fills whatever CPU the vusers leave: a core divided by the rate). */
  readonly cpuMsPerVuserAsRun?: number;
  /** Generator RSS per held vuser. */
  readonly memoryPerHeldVuser?: number;
  /** Command → first vuser (median over every trial). */
  readonly startupSeconds?: number;
}

/** Goals the bench prints next to the ratios (issue 17); never asserted. */
export const GOALS = {
  perCoreArrivalRate: { atLeast: 1.2 },
  cpuMsPerVuser: { atMost: 0.8 },
  memoryPerHeldVuser: { atMost: 0.9 },
  /** rig − plain, seconds. */
  startupExtraSeconds: { atMost: 1 },
} as const;
