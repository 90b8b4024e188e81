/**
 * The regional split: a load profile shared across generator regions by weight, before the planner shares each
 * region's part across that region's generators. Pure: no I/O, no clock, no env.
 *
 * Every field of every phase is apportioned by the largest-remainder (Hamilton) method, so each level sums to the
 * whole exactly: the regions' arrivalCount / arrivalRate / rampTo / maxVusers add up to the profile's, and the
 * planner's split of each region (scripts/core/plan.ts splitPhases) adds up to the region's. A region with no share
 * of a phase pauses for its duration, so every region stays time-aligned with the shared start instant.
 */
import { NormalizedPhase, Phase, PlanError, normalizePhases } from './capacity';
import type { ArrivalCapacity, GeneratorLimits, GeneratorSlice, Plan } from './plan';
import { estimatePeakConcurrent, peakArrivalRate, planLoad } from './plan';
import { partsOfPhase } from './split';

/** The id of generator `index` of a plan (as scripts/run.ts generatorSpecs names it): g01, g02, … */
export const generatorId = (index: number): string => `g${String(index + 1).padStart(2, '0')}`;

/** One generator region and its share. */
export interface RegionWeight {
  readonly region: string;
  /** Relative share: a positive number. */
  readonly weight: number;
}

/**
 * Whole-number shares of `total` in proportion to `weights` (largest remainder: floors first, then one more to the
 * largest fractional parts, ties to the lowest index). Sums to `total` exactly.
 */
export function largestRemainder(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, w) => a + w, 0);
  const quotas = weights.map((w) => (total * w) / sum);
  const out = quotas.map((q) => Math.floor(q));
  let left = total - out.reduce((a, n) => a + n, 0);
  const order = quotas.map((q, i) => ({ i, frac: q - Math.floor(q) })).sort((a, b) => b.frac - a.frac || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    out[i] = (out[i] ?? 0) + 1;
    left--;
  }
  return out;
}

/** Shares of `total`: whole numbers by largest remainder when `total` is whole, else proportional, the last taking the rest. */
function weightedShares(total: number, weights: readonly number[]): number[] {
  if (Number.isInteger(total)) return largestRemainder(total, weights);
  const sum = weights.reduce((a, w) => a + w, 0);
  const out = weights.map((w) => (total * w) / sum);
  out[out.length - 1] = total - out.slice(0, -1).reduce((a, n) => a + n, 0);
  return out;
}

/**
 * A phase's maxVusers over the regions that run it: at least 1 each, the rest by weight. Artillery reads a part whose
 * maxVusers is 0 as idle (is-idle-phase.ts), so a region given none would create nothing; a maxVusers smaller than
 * the regions that run the phase is refused. `total` is whole (normalizePhase refuses a fraction).
 */
function regionMaxVusers(total: number, weights: readonly number[], index: number): number[] {
  if (total < weights.length) {
    throw new PlanError('invalid', `config.phases[${index}].maxVusers ${total} is fewer than the ${weights.length} generator regions that run the phase, and a region's part needs at least 1 (Artillery creates no vuser in a phase whose maxVusers is 0); raise it to at least ${weights.length}, or run in fewer regions`);
  }
  return largestRemainder(total - weights.length, weights).map((n) => n + 1);
}

/**
 * A ramp's two ends shared so that every region keeps the ramp's direction. Whole ends: the larger end is
 * apportioned, then the (non-negative) difference, and the smaller end is their difference per region. A
 * fractional end: both ends proportionally (as the planner does per generator).
 */
function rampShares(from: number, to: number, weights: readonly number[]): Array<{ from: number; to: number }> {
  if (!(Number.isInteger(from) && Number.isInteger(to))) {
    const sum = weights.reduce((a, w) => a + w, 0);
    return weights.map((w) => ({ from: (from * w) / sum, to: (to * w) / sum }));
  }
  const high = Math.max(from, to);
  const highs = weightedShares(high, weights);
  const diffs = weightedShares(high - Math.min(from, to), weights);
  return highs.map((h, g) => {
    const low = Math.max(0, h - (diffs[g] ?? 0));
    return from <= to ? { from: low, to: h } : { from: h, to: low };
  });
}


/**
 * Splits a profile across regions by weight. Returns one phase list per region, each as long as `phases`.
 * @throws PlanError('invalid') for bad phases, no regions, or a weight that is not a positive number.
 */
export function splitByRegion(phases: Phase[], regions: readonly RegionWeight[]): Phase[][] {
  if (regions.length === 0) throw new PlanError('invalid', 'at least one generator region is needed');
  for (const r of regions) {
    if (!(Number.isFinite(r.weight) && r.weight > 0)) throw new PlanError('invalid', `region ${r.region}: weight must be a positive number (got ${String(r.weight)})`);
  }
  const weights = regions.map((r) => r.weight);
  const norm = normalizePhases(phases);
  const out: Phase[][] = regions.map(() => []);
  phases.forEach((phase, i) => {
    const n = norm[i] as NormalizedPhase;
    if (n.kind === 'pause') {
      for (const list of out) list.push({ ...phase });
      return;
    }
    let arrivals: Array<Partial<Phase>>;
    if (n.kind === 'count') arrivals = weightedShares(n.arrivalCount ?? 0, weights).map((arrivalCount) => ({ arrivalCount }));
    else if (n.kind === 'rate') arrivals = weightedShares(n.arrivalRate ?? 0, weights).map((arrivalRate) => ({ arrivalRate }));
    else if (phase.arrivalRate === undefined) arrivals = weightedShares(n.rampTo ?? 0, weights).map((rampTo) => ({ rampTo }));
    else arrivals = rampShares(phase.arrivalRate, n.rampTo ?? 0, weights).map((s) => ({ arrivalRate: s.from, rampTo: s.to }));
    // maxVusers goes to the regions that create vusers in the phase, by their weights (all regions when none does).
    // A phase no region creates vusers in is idle everywhere: its cap goes by weight (a share of 0 is left out: partsOfPhase).
    const idle = arrivals.every((a) => !a.arrivalCount && !a.arrivalRate && !a.rampTo);
    const parts = partsOfPhase(phase, arrivals, (active) => {
      if (n.maxVusers === undefined) return undefined;
      const activeWeights = active.map((g) => weights[g] ?? 0);
      return idle ? weightedShares(n.maxVusers, activeWeights) : regionMaxVusers(n.maxVusers, activeWeights, i);
    });
    parts.forEach((part, g) => (out[g] as Phase[]).push(part));
  });
  return out;
}

/** What the planner needs for one region: its weight, and its generators' limits (from that region's stack). */
export interface RegionPlanInput extends RegionWeight {
  readonly limits: GeneratorLimits;
  readonly maxGenerators?: number;
  readonly arrivalCapacity?: ArrivalCapacity;
}

/** One region's part of a run: its profile, its plan, and the indices of its generators in the combined plan. */
export interface RegionPlan {
  readonly region: string;
  readonly weight: number;
  readonly phases: Phase[];
  readonly plan: Plan;
  /** Indices (GeneratorSlice.index) of the combined plan that run in this region. */
  readonly generatorIndices: number[];
}

/** The combined plan (generators of every region, numbered in region order) and each region's part. */
export interface RegionalPlan {
  readonly plan: Plan;
  readonly regions: RegionPlan[];
}

/**
 * Plans a run over several regions: the profile split by weight (splitByRegion), each region planned by the
 * planner with its own limits (planLoad), the generators numbered across regions. `generators` (--generators)
 * is split by weight too, at least one per region.
 * @throws PlanError as planLoad does, naming the region.
 */
export function planRegions(req: { phases: Phase[]; sessionSeconds: number; generators?: number; regions: readonly RegionPlanInput[] }): RegionalPlan {
  const parts = splitByRegion(req.phases, req.regions);
  let forced: number[] | undefined;
  if (req.generators !== undefined) {
    if (!Number.isInteger(req.generators) || req.generators < req.regions.length) {
      throw new PlanError('invalid', `--generators ${String(req.generators)} cannot cover ${req.regions.length} regions: pass at least one generator per region (${req.regions.length})`);
    }
    // One per region first, the rest by weight.
    forced = largestRemainder(req.generators - req.regions.length, req.regions.map((r) => r.weight)).map((n) => n + 1);
  }
  const regions: RegionPlan[] = [];
  const generators: GeneratorSlice[] = [];
  const warnings: string[] = [];
  req.regions.forEach((r, k) => {
    const phases = parts[k] as Phase[];
    let plan: Plan;
    try {
      plan = planLoad({
        phases,
        limits: r.limits,
        sessionSeconds: req.sessionSeconds,
        ...(forced ? { generators: forced[k] } : {}),
        ...(r.maxGenerators !== undefined ? { maxGenerators: r.maxGenerators } : {}),
        ...(r.arrivalCapacity ? { arrivalCapacity: r.arrivalCapacity } : {}),
      });
    } catch (err) {
      if (err instanceof PlanError) throw new PlanError(err.kind, `region ${r.region}: ${err.message}`, err.generatorsNeeded);
      throw err;
    }
    const first = generators.length;
    for (const g of plan.generators) generators.push({ ...g, index: generators.length });
    warnings.push(...plan.warnings.map((w) => `region ${r.region}: ${w}`));
    regions.push({ region: r.region, weight: r.weight, phases, plan, generatorIndices: plan.generators.map((_, i) => first + i) });
  });
  const home = regions[0]?.plan as Plan;
  return {
    regions,
    plan: {
      generators,
      totalArrivals: generators.reduce((s, g) => s + g.arrivals, 0),
      peakConcurrent: estimatePeakConcurrent(req.phases, req.sessionSeconds),
      capacityPerGenerator: home.capacityPerGenerator,
      bindingLimit: home.bindingLimit,
      generatorsNeeded: regions.reduce((s, r) => s + r.plan.generatorsNeeded, 0),
      peakArrivalRate: peakArrivalRate(req.phases),
      warnings,
    },
  };
}
