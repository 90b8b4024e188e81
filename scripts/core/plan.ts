/**
 * The planner: splits a load profile across M generators with totals preserved
 * exactly, and picks M from per-generator capacity. Pure: no I/O, no clock, no env.
 *
 * The plan is the complete assignment: every generator's load processes with their phases
 * and payload rows, split once (./split.ts) so every level sums to the whole. Unlike
 * Artillery's own `dist.ts` (which gives a whole arrivalCount to one worker and pauses the
 * others), every field is shared out.
 */
import type { BindingLimit, GeneratorLimits, Phase } from './capacity';
import { PlanError, capacityPerGenerator, estimateArrivals, estimatePeakConcurrent, peakArrivalRate, validateLimits } from './capacity';
import { PayloadShare, generatorPhases, payloadShares, splitLoad } from './split';

export type { BindingLimit, GeneratorLimits, Phase } from './capacity';
export {
  PlanError,
  capacityPerGenerator,
  estimateArrivals,
  estimatePeakConcurrent,
  parseDuration,
  peakArrivalRate,
  profileSeconds,
  readDuration,
} from './capacity';
export { payloadShares, splitLoad, splitPhases } from './split';
export type { PayloadShare } from './split';

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
  /** What sets maxGenerators, for the refusal (e.g. "this machine's memory: …"). */
  maxGeneratorsWhy?: string;
  /**
   * How fast generators create vusers. A soft bound: the planner adds generators for it (never past
   * maxGenerators) and warns where the plan cannot keep up; concurrency stays the hard bound.
   * @default no arrival-rate bound
   */
  arrivalCapacity?: ArrivalCapacity;
}

/** One load process's share of the load (process k of its generator). */
export interface ProcessSlice {
  index: number;
  phases: Phase[];
  /** expected arrivals of this process */
  arrivals: number;
  /** its rows of every sequenced payload; undefined: none, or the whole payload when it is the only process */
  payload?: PayloadShare;
}

/** One generator's share of the load: the sum of its load processes' shares. */
export interface GeneratorSlice {
  index: number;
  phases: Phase[];
  /** one per load process (limits.processes), each with its exact share; a process with no arrivals is planned idle */
  processes: ProcessSlice[];
  /** expected arrivals (vusers created) on this generator: the sum of its processes' */
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

const LIMIT_WORDS: Record<BindingLimit, string> = {
  openFiles: 'open files bind',
  ephemeralPorts: 'ephemeral ports bind',
  memory: 'memory binds',
};

const fmt = (n: number): string => n.toLocaleString('en-US');

/** The generators' phases, each the sum of its load processes' phases. */
function generatorsOf(phases: Phase[], perProcess: Phase[][][]): Phase[][] {
  return perProcess.map((procs) => generatorPhases(phases, procs));
}

/** Peak of the busiest generator of an m-way split. */
function busiestPeak(phases: Phase[], m: number, processes: number, sessionSeconds: number): number {
  return Math.max(...generatorsOf(phases, splitLoad(phases, m, processes)).map((g) => estimatePeakConcurrent(g, sessionSeconds)));
}

function generatorsNeeded(phases: Phase[], peak: number, capacity: number, processes: number, sessionSeconds: number): number {
  let m = Math.max(1, Math.ceil(peak / capacity));
  // Rounding can leave a generator a vuser over: step up until it fits (rarely more than once).
  while (busiestPeak(phases, m, processes, sessionSeconds) > capacity) m++;
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
  // Made only for an error: the first toLocaleString loads ICU's number formats (~30 ms at every start).
  const limitText = () => `${LIMIT_WORDS[cap.binding]} at ${fmt(cap.vusers)} vusers per generator`;
  if (cap.vusers < 1 && peak > 0) {
    throw new PlanError('capacity', `a generator holds no vusers (${limitText()}); raise the limit`);
  }
  const needed = peak === 0 ? 1 : generatorsNeeded(req.phases, peak, cap.vusers, req.limits.processes, req.sessionSeconds);
  const rate = peakArrivalRate(req.phases);
  const arrivals = req.arrivalCapacity;
  if (arrivals !== undefined && !(Number.isFinite(arrivals.perSecond) && arrivals.perSecond > 0)) {
    throw new PlanError('invalid', `arrivalCapacity.perSecond must be a positive number (got ${String(arrivals.perSecond)})`);
  }
  // Generators for the arrival rate: a soft bound, never past maxGenerators (the warning below says so).
  const forRate = arrivals?.perGenerator ? Math.ceil(rate / arrivals.perSecond) : 1;
  const m = req.generators ?? Math.max(needed, Math.min(forRate, req.maxGenerators ?? forRate));
  if (req.maxGenerators !== undefined && m > req.maxGenerators) {
    const why = req.maxGeneratorsWhy ? `; ${req.maxGeneratorsWhy}` : '';
    throw new PlanError(
      'max-generators',
      req.generators !== undefined && needed <= req.maxGenerators
        ? `--generators ${fmt(m)} is more than the ${fmt(req.maxGenerators)} generators allowed here${why}; pass --generators ${fmt(req.maxGenerators)} or fewer`
        : `${fmt(peak)} peak concurrent vusers need ${fmt(needed)} generators but at most ${fmt(req.maxGenerators)} are allowed (${limitText()}${why}); lower the load, raise the generator limit or the per-generator limits`,
      needed,
    );
  }
  const perProcess = splitLoad(req.phases, m, req.limits.processes);
  const payload = payloadShares(perProcess);
  const generators: GeneratorSlice[] = generatorsOf(req.phases, perProcess).map((phases, index) => {
    const processes = (perProcess[index] ?? []).map((procPhases, k) => {
      const share = payload[index]?.[k];
      return { index: k, phases: procPhases, arrivals: estimateArrivals(procPhases), ...(share ? { payload: share } : {}) };
    });
    // What the processes really create (Artillery rounds each process's rates on its own).
    const arrivals = processes.reduce((a, p) => a + p.arrivals, 0);
    return { index, phases, processes, arrivals, peakConcurrent: estimatePeakConcurrent(phases, req.sessionSeconds) };
  });
  const busiest = Math.max(...generators.map((g) => g.peakConcurrent));
  if (busiest > cap.vusers) {
    throw new PlanError(
      'capacity',
      `${fmt(peak)} peak concurrent vusers need ${fmt(needed)} generators, ${fmt(m)} requested (${limitText()}); pass --generators ${needed} or raise the limit`,
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
