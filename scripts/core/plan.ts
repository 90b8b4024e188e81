/**
 * The planner: splits a load profile across M generators with totals preserved
 * exactly, and picks M from per-generator capacity. Pure: no I/O, no clock, no env.
 *
 * Unlike Artillery's own `dist.ts` (which gives a whole arrivalCount to one
 * worker and pauses the others), every field is shared out, and generators
 * with nothing to do in a phase pause for its duration so all stay time-aligned.
 */
import type { BindingLimit, GeneratorLimits, NormalizedPhase, Phase } from './capacity';
import {
  PlanError,
  capacityPerGenerator,
  estimateArrivals,
  estimatePeakConcurrent,
  normalizePhases,
  peakArrivalRate,
  validateLimits,
} from './capacity';

export type { BindingLimit, GeneratorLimits, Phase } from './capacity';
export {
  PlanError,
  capacityPerGenerator,
  estimateArrivals,
  estimatePeakConcurrent,
  parseDuration,
  peakArrivalRate,
} from './capacity';

/** How fast generators create vusers (the capacity model's arrival rate), for the planner. */
export interface ArrivalCapacity {
  /** Vusers per second: of one generator when `perGenerator`, else of all of them together. */
  readonly perSecond: number;
  /**
   * true: every generator adds `perSecond` (separate machines, AWS); false: all generators share one machine's
   * cores (local), so more of them add no arrival rate.
   */
  readonly perGenerator: boolean;
}

/** What to plan: the total load profile, the generator limits, and optional generator counts. */
export interface PlanRequest {
  phases: Phase[];
  /** user-forced generator count M */
  generators?: number;
  limits: GeneratorLimits;
  /** expected vuser session length in seconds, used to estimate peak concurrency */
  sessionSeconds: number;
  /** refuse plans needing more generators than this */
  maxGenerators?: number;
  /**
   * How fast generators create vusers. A soft bound: the planner adds generators for it (never past
   * maxGenerators) and warns where the plan cannot keep up; concurrency stays the hard bound.
   * @default no arrival-rate bound
   */
  arrivalCapacity?: ArrivalCapacity;
}

/** One generator's share of the load. */
export interface GeneratorSlice {
  index: number;
  phases: Phase[];
  /** expected arrivals (vusers created) on this generator */
  arrivals: number;
  /** expected peak concurrent vusers on this generator */
  peakConcurrent: number;
}

/** The plan: one slice per generator plus the numbers that justified M. */
export interface Plan {
  generators: GeneratorSlice[];
  /** sum of the slices' expected arrivals */
  totalArrivals: number;
  /** expected peak concurrency of the whole (unsplit) profile */
  peakConcurrent: number;
  capacityPerGenerator: number;
  bindingLimit: BindingLimit;
  /** smallest generator count whose every slice fits capacity */
  generatorsNeeded: number;
  /** highest arrival rate (vusers/s) of the profile */
  peakArrivalRate: number;
  /** what the plan cannot promise (arrivals faster than the generators create them), one line each */
  warnings: string[];
}

/** Integer shares of `total` over `n`: floor/ceil, the remainder to the lowest indices. */
function intShares(total: number, n: number): number[] {
  const base = Math.floor(total / n);
  const rem = total - base * n;
  return Array.from({ length: n }, (_, i) => base + (i < rem ? 1 : 0));
}

/** Integer shares when `total` is whole, else equal fractional shares. */
function shares(total: number, n: number): number[] {
  return Number.isInteger(total) ? intShares(total, n) : Array.from({ length: n }, () => total / n);
}

/** The `pause` stand-in for a generator with no share of a phase: same wall-clock length, same name/extras. */
function pauseFor(phase: Phase): Phase {
  const { arrivalRate: _a, rampTo: _r, arrivalCount: _c, maxVusers: _m, duration, ...rest } = phase;
  return { ...rest, pause: duration };
}

/** Arrival-field shares of one phase per generator (absent keys stay absent). */
function arrivalShares(phase: Phase, norm: NormalizedPhase, m: number): Array<Partial<Phase>> {
  if (norm.kind === 'count') return intShares(norm.arrivalCount ?? 0, m).map((arrivalCount) => ({ arrivalCount }));
  if (norm.kind === 'rate') return shares(norm.arrivalRate ?? 0, m).map((arrivalRate) => ({ arrivalRate }));
  // Ramp: round both ends the same way (or neither) so every generator's pair
  // keeps the original direction: a <= r implies a_g <= r_g.
  const a = phase.arrivalRate ?? 0;
  const r = norm.rampTo ?? 0;
  const bothInt = Number.isInteger(a) && Number.isInteger(r);
  const as = bothInt ? intShares(a, m) : Array.from({ length: m }, () => a / m);
  const rs = bothInt ? intShares(r, m) : Array.from({ length: m }, () => r / m);
  return rs.map((rampTo, g) => (phase.arrivalRate === undefined ? { rampTo } : { arrivalRate: as[g] ?? 0, rampTo }));
}

function isZeroShare(s: Partial<Phase>): boolean {
  return (s.arrivalCount ?? 0) === 0 && (s.arrivalRate ?? 0) === 0 && (s.rampTo ?? 0) === 0;
}

/**
 * Split phases over `m` generators, preserving every total exactly: per phase,
 * the generators' arrivalCount / arrivalRate / rampTo / maxVusers sum to the
 * original (integers as floor/ceil shares, remainder to the lowest indices;
 * non-integers as equal fractional shares). `duration` and `pause` are copied;
 * a generator whose arrival share is 0 gets `pause: <duration>` instead, and
 * maxVusers is shared over the generators that do get arrivals (as dist.ts
 * does). A phase that is idle as a whole (all rates 0) keeps its shape.
 *
 * @returns `m` phase lists, each as long as `phases`.
 * @throws PlanError('invalid') for bad phases or `m` not a positive integer.
 */
export function splitPhases(phases: Phase[], m: number): Phase[][] {
  if (!Number.isInteger(m) || m < 1) throw new PlanError('invalid', `generators must be a positive whole number (got ${String(m)})`);
  const norm = normalizePhases(phases);
  const out: Phase[][] = Array.from({ length: m }, () => []);
  phases.forEach((phase, i) => {
    const n = norm[i] as NormalizedPhase;
    if (n.kind === 'pause') {
      for (const list of out) list.push({ ...phase });
      return;
    }
    const arrivals = arrivalShares(phase, n, m);
    const active = arrivals.filter((s) => !isZeroShare(s)).length;
    const idlePhase = active === 0;
    // Active generators are always the lowest indices (remainders go there first).
    const mvOver = idlePhase ? m : active;
    const mv = n.maxVusers === undefined ? undefined : shares(n.maxVusers, mvOver);
    arrivals.forEach((share, g) => {
      const list = out[g] as Phase[];
      if (!idlePhase && isZeroShare(share)) {
        list.push(pauseFor(phase));
        return;
      }
      const slice: Phase = { ...phase, ...share };
      if (mv !== undefined) slice.maxVusers = mv[g] ?? 0;
      list.push(slice);
    });
  });
  return out;
}

const LIMIT_WORDS: Record<BindingLimit, string> = {
  openFiles: 'open files bind',
  ephemeralPorts: 'ephemeral ports bind',
  memory: 'memory binds',
};

const fmt = (n: number): string => n.toLocaleString('en-US');

/** Peak of generator 0's slice: it holds the largest share of every field, so it peaks highest. */
function firstSlicePeak(phases: Phase[], m: number, sessionSeconds: number): number {
  const first = splitPhases(phases, m)[0] as Phase[];
  return estimatePeakConcurrent(first, sessionSeconds);
}

function generatorsNeeded(phases: Phase[], peak: number, capacity: number, sessionSeconds: number): number {
  let m = Math.max(1, Math.ceil(peak / capacity));
  // Rounding can leave generator 0 a vuser over: step up until it fits (rarely more than once).
  while (firstSlicePeak(phases, m, sessionSeconds) > capacity) m++;
  return m;
}

function checkCount(value: number | undefined, name: string): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
    throw new PlanError('invalid', `${name} must be a whole number of at least 1 (got ${String(value)})`);
  }
}

/**
 * Plan a run: estimate peak concurrency, size M from per-generator capacity
 * (or check a forced M), and split the phases.
 *
 * @throws PlanError('invalid') for bad input; PlanError('capacity') when a
 * forced M cannot hold the load (message names the generators needed and the
 * binding limit); PlanError('max-generators') when M exceeds maxGenerators.
 */
export function planLoad(req: PlanRequest): Plan {
  checkCount(req.generators, 'generators');
  checkCount(req.maxGenerators, 'maxGenerators');
  validateLimits(req.limits);
  const peak = estimatePeakConcurrent(req.phases, req.sessionSeconds);
  const cap = capacityPerGenerator(req.limits);
  const limitText = `${LIMIT_WORDS[cap.binding]} at ${fmt(cap.vusers)} vusers per generator`;
  if (cap.vusers < 1 && peak > 0) {
    throw new PlanError('capacity', `a generator holds no vusers (${limitText}); raise the limit`);
  }
  const needed = peak === 0 ? 1 : generatorsNeeded(req.phases, peak, cap.vusers, req.sessionSeconds);
  const rate = peakArrivalRate(req.phases);
  const arrivals = req.arrivalCapacity;
  if (arrivals !== undefined && !(Number.isFinite(arrivals.perSecond) && arrivals.perSecond > 0)) {
    throw new PlanError('invalid', `arrivalCapacity.perSecond must be a positive number (got ${String(arrivals.perSecond)})`);
  }
  // Generators for the arrival rate: a soft bound, never past maxGenerators (the warning below says so).
  const forRate = arrivals?.perGenerator ? Math.ceil(rate / arrivals.perSecond) : 1;
  const m = req.generators ?? Math.max(needed, Math.min(forRate, req.maxGenerators ?? forRate));
  if (req.maxGenerators !== undefined && m > req.maxGenerators) {
    throw new PlanError(
      'max-generators',
      `${fmt(peak)} peak concurrent vusers need ${fmt(m)} generators but at most ${fmt(req.maxGenerators)} are allowed (${limitText}); lower the load, raise the generator limit or the per-generator limits`,
      needed,
    );
  }
  const generators = splitPhases(req.phases, m).map((phases, index) => ({
    index,
    phases,
    arrivals: estimateArrivals(phases),
    peakConcurrent: estimatePeakConcurrent(phases, req.sessionSeconds),
  }));
  const busiest = Math.max(...generators.map((g) => g.peakConcurrent));
  if (busiest > cap.vusers) {
    throw new PlanError(
      'capacity',
      `${fmt(peak)} peak concurrent vusers need ${fmt(needed)} generators, ${fmt(m)} requested (${limitText}); pass --generators ${needed} or raise the limit`,
      needed,
    );
  }
  return {
    generators,
    totalArrivals: generators.reduce((s, g) => s + g.arrivals, 0),
    peakConcurrent: peak,
    capacityPerGenerator: cap.vusers,
    bindingLimit: cap.binding,
    generatorsNeeded: needed,
    peakArrivalRate: rate,
    warnings: arrivals ? arrivalWarnings(rate, m, forRate, arrivals, req.maxGenerators) : [],
  };
}

/** The one-line warning when the plan's generators cannot create vusers as fast as the profile asks. */
function arrivalWarnings(rate: number, m: number, forRate: number, arrivals: ArrivalCapacity, maxGenerators: number | undefined): string[] {
  const lag = 'expect arrival lag and a rig-limited verdict';
  if (!arrivals.perGenerator) {
    if (rate <= arrivals.perSecond) return [];
    return [
      `peak arrival rate ${fmt(rate)}/s is above the ~${fmt(arrivals.perSecond)}/s this machine's cores sustain (the capacity model's rate, target on the same cores): ${lag}; spread the arrivals over a longer --ramp`,
    ];
  }
  if (rate <= m * arrivals.perSecond) return [];
  const fix = maxGenerators !== undefined && forRate > maxGenerators
    ? `raise the generator limit (${fmt(maxGenerators)}) or spread the arrivals over a longer --ramp`
    : `pass --generators ${forRate} or spread the arrivals over a longer --ramp`;
  return [`peak arrival rate ${fmt(rate)}/s is above what ${fmt(m)} generator(s) create (${fmt(arrivals.perSecond)}/s each, the capacity model's rate): ${lag}; ${fix}`];
}
