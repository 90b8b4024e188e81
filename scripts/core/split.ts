/**
 * The one exact split of a load profile over generators × load processes. Pure: no I/O.
 *
 * Modelled on k6's execution segments: the whole is cut once into N = M × P slots (one per load process),
 * and every level is a sum of slots, so every level sums to the whole by construction. A whole number T
 * gives each slot ⌊T/N⌋ and the remainder one each to the slots of lowest rank, where slot (g, k) — load
 * process k of generator g — has rank k·M + g: the remainder goes round the generators first (301 over 3
 * → 101/100/100), so no generator and no process holds more than one above another; the next phase's
 * remainder starts where this one's ended. Fractions split evenly. Both ends of a ramp use the same ranks, so every
 * process's ramp keeps the original direction. A slot with no share of a phase pauses for its duration,
 * so every process stays time-aligned; `maxVusers` is shared over the slots that run the phase (as
 * Artillery's own dist.ts shares it over the workers that do).
 */
import { estimateArrivals, normalizePhases, PlanError } from './capacity';
import type { NormalizedPhase, Phase } from './capacity';

/** A load process's part of a sequenced payload: arrivals `start` … `start + count - 1` of the whole. */
export interface PayloadShare {
  readonly start: number;
  readonly count: number;
}

const SHARED = ['arrivalCount', 'arrivalRate', 'rampTo', 'maxVusers'] as const;

/** Shares of `total` for slots of the given ranks (a permutation of 0 … n-1). */
function sharesByRank(total: number, ranks: readonly number[]): number[] {
  const n = ranks.length;
  if (!Number.isInteger(total)) return ranks.map(() => total / n);
  const base = Math.floor(total / n);
  const rem = total - base * n;
  return ranks.map((r) => base + (r < rem ? 1 : 0));
}

/** The `pause` stand-in for a slot with no share of a phase: same wall-clock length, same name/extras. */
function pauseFor(phase: Phase): Phase {
  const { arrivalRate: _a, rampTo: _r, arrivalCount: _c, maxVusers: _m, duration, ...rest } = phase;
  return { ...rest, pause: duration };
}

function isZeroShare(s: Partial<Phase>): boolean {
  return (s.arrivalCount ?? 0) === 0 && (s.arrivalRate ?? 0) === 0 && (s.rampTo ?? 0) === 0;
}

/**
 * One phase cut into parts from each part's arrival shares: a part with no share pauses for the phase (unless
 * the whole phase is idle), and `maxVusers` is shared over the parts that run it by `maxVusersOf(running)`
 * (their shares, in the order of `running`). Used by every level of the split and by the regional split.
 */
export function partsOfPhase(phase: Phase, arrivals: ReadonlyArray<Partial<Phase>>, maxVusersOf: (running: readonly number[]) => readonly number[] | undefined): Phase[] {
  const idle = arrivals.every(isZeroShare);
  const running = arrivals.map((_, s) => s).filter((s) => idle || !isZeroShare(arrivals[s] ?? {}));
  const mv = maxVusersOf(running);
  return arrivals.map((share, s) => {
    if (!idle && isZeroShare(share)) return pauseFor(phase);
    const part: Phase = { ...phase, ...share };
    if (mv !== undefined) {
      const cap = mv[running.indexOf(s)] ?? 0;
      // A phase no part creates vusers in is idle in every part: a part's cap of 0 is left out (normalizePhase refuses 0).
      if (cap > 0 || !idle) part.maxVusers = cap;
      else delete part.maxVusers;
    }
    return part;
  });
}

/** Arrival-field shares of one phase per slot (absent keys stay absent). */
function arrivalShares(phase: Phase, norm: NormalizedPhase, ranks: readonly number[]): Array<Partial<Phase>> {
  if (norm.kind === 'count') return sharesByRank(norm.arrivalCount ?? 0, ranks).map((arrivalCount) => ({ arrivalCount }));
  if (norm.kind === 'rate') return sharesByRank(norm.arrivalRate ?? 0, ranks).map((arrivalRate) => ({ arrivalRate }));
  // Ramp: even shares of both ends, and each slot's place among them (rigWorker of rigWorkers). Artillery turns
  // a ramp into whole arrivals per second (lib/core/phases.ts createRamp); rounded in every slot alone, a
  // fraction would be rounded up in each (2→4 over 3 s is 2+3+4 = 9; two lone 1→2 ramps make 1+2+2 each = 10).
  // With its place, each load process rounds as one of Artillery's own workers does (the rig plugin hands it
  // over as the phase's worker/totalWorkers): slot k takes the fraction's k-th whole arrival, and the slots
  // create, second by second, what one run of the whole ramp creates.
  const a = phase.arrivalRate ?? 0;
  const r = norm.rampTo ?? 0;
  const n = ranks.length;
  return ranks.map((rank) => {
    const place = n > 1 ? { rigWorker: rank + 1, rigWorkers: n } : {};
    return phase.arrivalRate === undefined ? { rampTo: r / n, ...place } : { arrivalRate: a / n, rampTo: r / n, ...place };
  });
}

/** A slot's share of a phase it does not run (a pause in its place: {@link partsOfPhase}). */
function noShare(phase: Phase, norm: NormalizedPhase): Partial<Phase> {
  if (norm.kind === 'count') return { arrivalCount: 0 };
  if (norm.kind === 'rate') return { arrivalRate: 0 };
  return phase.arrivalRate === undefined ? { rampTo: 0 } : { arrivalRate: 0, rampTo: 0 };
}

/** What is left over when a whole `total` is shared over `n` (0 for a fraction). */
const remainderOf = (total: number | undefined, n: number): number => (total !== undefined && Number.isInteger(total) ? total % n : 0);

/**
 * Splits the phases over slots of the given ranks; one phase list per slot, each as long as `phases`.
 * Each phase's remainder starts at the rank where the previous phase's ended (as k6's segments stripe
 * iterations), so no slot collects the remainder of every phase.
 */
function splitSlots(phases: Phase[], ranks: readonly number[]): Phase[][] {
  const norm = normalizePhases(phases);
  const out: Phase[][] = ranks.map(() => []);
  const slots = ranks.length;
  let offset = 0;
  phases.forEach((phase, i) => {
    const n = norm[i] as NormalizedPhase;
    if (n.kind === 'pause') {
      for (const list of out) list.push({ ...phase });
      return;
    }
    const phaseRanks = ranks.map((r) => (r - offset + slots) % slots);
    // Artillery reads a phase whose maxVusers is 0 as idle and drops a process whose phases are all idle (its
    // is-idle-phase.ts, dist.ts): that process ended before the start (a lost generator, exit 3). So every slot
    // that runs the phase needs a share of maxVusers of at least 1, and at most maxVusers slots run it (the rest pause).
    const active = n.maxVusers === undefined ? slots : Math.min(slots, n.maxVusers);
    offset = (offset + remainderOf(n.arrivalCount ?? n.rampTo ?? n.arrivalRate, active)) % slots;
    const activeShares = arrivalShares(phase, n, phaseRanks.filter((r) => r < active));
    let next = 0;
    const shares = phaseRanks.map((r) => (r < active ? (activeShares[next++] as Partial<Phase>) : noShare(phase, n)));
    // maxVusers over the slots that run the phase, ranked among themselves.
    const parts = partsOfPhase(phase, shares, (running) => {
      if (n.maxVusers === undefined) return undefined;
      const order = [...running].sort((x, y) => (phaseRanks[x] ?? 0) - (phaseRanks[y] ?? 0));
      return sharesByRank(n.maxVusers, running.map((s) => order.indexOf(s)));
    });
    parts.forEach((part, s) => (out[s] as Phase[]).push(part));
  });
  return out;
}

function checkCount(value: number, name: string): void {
  if (!Number.isInteger(value) || value < 1) throw new PlanError('invalid', `${name} must be a positive whole number (got ${String(value)})`);
}

/**
 * Splits phases over `m` generators (one load process each), every total kept exactly: per phase, the
 * generators' arrivalCount / arrivalRate / rampTo / maxVusers sum to the original.
 *
 * @returns `m` phase lists, each as long as `phases`.
 * @throws PlanError('invalid') for bad phases or `m` not a positive integer.
 */
export function splitPhases(phases: Phase[], m: number): Phase[][] {
  checkCount(m, 'generators');
  return splitSlots(phases, Array.from({ length: m }, (_, g) => g));
}

/**
 * Splits phases over `m` generators × `p` load processes each: `[g][k]` is load process k of generator g.
 * Every process's fields sum to its generator's (see {@link generatorPhases}), and those to the whole.
 */
export function splitLoad(phases: Phase[], m: number, p: number): Phase[][][] {
  checkCount(m, 'generators');
  checkCount(p, 'processes');
  const slots = splitSlots(phases, Array.from({ length: m * p }, (_, s) => (s % p) * m + Math.floor(s / p)));
  return Array.from({ length: m }, (_, g) => slots.slice(g * p, (g + 1) * p));
}

/** A sum that drops the floating-point noise of adding equal fractions (0.1 + 0.2). */
const tidy = (x: number): number => Number(x.toPrecision(12));

/**
 * One generator's phases: the sum of its load processes' phases (a phase all of them pause for is a pause).
 * @param phases the whole profile; @param processes the generator's processes' phase lists.
 */
export function generatorPhases(phases: readonly Phase[], processes: readonly Phase[][]): Phase[] {
  return phases.map((orig, i) => {
    const parts = processes.map((list) => list[i] as Phase);
    if (orig.pause !== undefined) return { ...orig };
    const running = parts.filter((part) => part.pause === undefined);
    if (running.length === 0) return pauseFor(orig);
    const sum: Phase = { ...orig };
    for (const field of SHARED) {
      if (orig[field] !== undefined) sum[field] = tidy(running.reduce((a, part) => a + (part[field] ?? 0), 0));
    }
    // An idle phase's parts may carry no cap (partsOfPhase): no cap of 0 either.
    if (sum.maxVusers === 0) delete sum.maxVusers;
    return sum;
  });
}

/**
 * Each load process's rows of every sequenced payload, `perProcess[generator][process]` = its phases, in
 * plan order: each as many rows as the vusers it is planned to create, so together they read exactly the
 * rows one plain run reads. Processes with no arrivals get none; when a single process creates vusers,
 * none does (it reads the payload whole, exactly as a plain run).
 */
export function payloadShares(perProcess: ReadonlyArray<ReadonlyArray<Phase[]>>): Array<Array<PayloadShare | undefined>> {
  if (perProcess.flat().filter((phases) => estimateArrivals(phases) > 0).length <= 1) return perProcess.map((procs) => procs.map(() => undefined));
  let next = 0;
  return perProcess.map((procs) =>
    procs.map((phases) => {
      const count = Math.round(estimateArrivals(phases));
      if (count <= 0) return undefined;
      const share = { start: next, count };
      next += count;
      return share;
    }),
  );
}
