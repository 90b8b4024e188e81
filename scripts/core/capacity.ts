/**
 * How much load a phase list produces (arrivals, peak concurrency) and how much
 * one generator can hold. Arrival counts follow artillery 2.0.34's own arithmetic
 * (`lib/core/phases.ts`, the `arrivals` package, `lib/dist.ts`). Pure: no I/O.
 */
import { PlanError, normalizePhases } from './phases';
import type { NormalizedPhase, Phase } from './phases';

// Phases, their durations and PlanError, importable from here as before.
export * from './phases';

/** What one load generator can hold. */
export interface GeneratorLimits {
  /** usable concurrent sockets per load process: open-file limit minus a reserve */
  openFiles: number;
  /** ephemeral ports per (source address, destination address:port) pair */
  ephemeralPorts: number;
  /** source addresses (e.g. loopback 127.0.0.x aliases or secondary IPs) one generator spreads connections over */
  sourceAddresses: number;
  /** load processes per generator (one per core), each with its own openFiles limit */
  processes: number;
  /** memory available to one generator for vusers, bytes */
  memoryBytes: number;
  /** measured memory per held vuser, bytes */
  bytesPerVuser: number;
  /** sockets one vuser holds at once (connect scenario: 1) */
  socketsPerVuser: number;
}

/** The limit that caps a generator's concurrent vusers. */
export type BindingLimit = 'openFiles' | 'ephemeralPorts' | 'memory';

/** Arrivals of the `arrivals` package's uniform process: ticks of floor(interval µs) within the duration. */
function uniformArrivals(durationMs: number, intervalMs: number): number {
  const tickUs = Math.floor(intervalMs * 1000);
  if (tickUs < 1) return (durationMs / intervalMs); // beyond the timer's resolution: nominal count
  return Math.floor((durationMs * 1000) / tickUs);
}

/**
 * Arrivals per ramp second as Artillery computes them: linear from arrivalRate at
 * second 0 to rampTo at second duration-1, each second rounded half up (floor
 * plus the one-worker bump of `adjustArrivalsByWorker`; `artillery run` always
 * passes phases through dist.ts).
 */
export function rampSecondArrivals(arrivalRate: number, rampTo: number, seconds: number, place = { worker: 1, of: 1 }): number[] {
  // Artillery's adjustArrivalsByWorker: worker n of m takes one of the fraction's round(fraction × m) arrivals.
  // A second that floating-point error takes just below zero (a ramp down to 0) creates none: Artillery's ticker
  // emits while its count is below the second's figure.
  const roundUp = (raw: number): number => Math.max(0, Math.floor(raw) + (Math.round((raw % 1) * place.of) >= place.worker ? 1 : 0));
  if (seconds === 1) return [roundUp((rampTo + arrivalRate) / 2)];
  const out: number[] = [];
  const difference = rampTo - arrivalRate;
  for (let i = 0; i < seconds; i++) out.push(roundUp((difference / (seconds - 1)) * i + arrivalRate));
  return out;
}

/** Expected arrivals of one normalized phase (Artillery's arithmetic; Poisson mode: rate × duration). */
export function phaseArrivals(p: NormalizedPhase): number {
  const durationMs = p.seconds * 1000;
  switch (p.kind) {
    case 'pause':
      return 0;
    case 'count':
      return p.arrivalCount ? uniformArrivals(durationMs, durationMs / p.arrivalCount) : 0;
    case 'rate': {
      const rate = p.arrivalRate ?? 0;
      if (rate === 0) return 0;
      return p.poisson ? rate * p.seconds : uniformArrivals(durationMs, 1000 / rate);
    }
    case 'ramp':
      return rampSecondArrivals(p.arrivalRate ?? 0, p.rampTo ?? 0, p.seconds, p.place).reduce((a, b) => a + b, 0);
  }
}

/**
 * Expected total arrivals (vusers created) of a phase list: arrivalCount as
 * Artillery's uniform process emits it (equal to the count unless the interval
 * has sub-microsecond parts), arrivalRate × duration likewise, ramps as the
 * trapezoid sampled per second and rounded half up as in phases.ts.
 *
 * @throws PlanError('invalid') for bad phases.
 */
export function estimateArrivals(phases: Phase[]): number {
  return normalizePhases(phases).reduce((sum, p) => sum + phaseArrivals(p), 0);
}

/**
 * The highest arrival rate (vusers/s) any phase asks for: its arrivalRate, the larger end of a ramp, or
 * arrivalCount spread over its duration. What the generators must sustain to keep to the schedule.
 *
 * @throws PlanError('invalid') for bad phases.
 */
export function peakArrivalRate(phases: Phase[]): number {
  return Math.max(
    0,
    ...normalizePhases(phases).map((p) => {
      if (p.kind === 'count') return (p.arrivalCount ?? 0) / p.seconds;
      if (p.kind === 'rate') return p.arrivalRate ?? 0;
      if (p.kind === 'ramp') return Math.max(p.arrivalRate ?? 0, p.rampTo ?? 0);
      return 0;
    }),
  );
}

const MAX_STEPS = 2_000_000;

function stepsPerSecond(lengths: number[]): number {
  const total = lengths.reduce((a, b) => a + b, 0);
  for (const k of [1, 10, 100, 1000]) {
    if (total * k > MAX_STEPS) return Math.max(1, k / 10);
    if (lengths.every((l) => Math.abs(l * k - Math.round(l * k)) < 1e-9)) return k;
  }
  return 1000;
}

/**
 * Peak concurrent vusers: the maximum over time t of arrivals in
 * (t - sessionSeconds, t], every vuser assumed to stay sessionSeconds. A phase's
 * maxVusers caps it the way Artillery's runner does (arrivals skipped while
 * that many vusers, from any phase, are active). Fluid model on a time grid,
 * rounded up to whole vusers.
 *
 * @throws PlanError('invalid') for bad phases or a non-positive session length.
 */
export function estimatePeakConcurrent(phases: Phase[], sessionSeconds: number): number {
  const norm = normalizePhases(phases);
  if (typeof sessionSeconds !== 'number' || !Number.isFinite(sessionSeconds) || sessionSeconds <= 0) {
    throw new PlanError('invalid', `sessionSeconds must be a positive number (got ${String(sessionSeconds)})`);
  }
  const k = stepsPerSecond([...norm.map((p) => p.seconds), sessionSeconds]);
  const window = Math.max(1, Math.round(sessionSeconds * k));
  const ring = new Float64Array(window); // accepted arrivals of the last `window` steps
  let slot = 0;
  let active = 0;
  let peak = 0;
  for (const p of norm) {
    const steps = Math.max(1, Math.round(p.seconds * k));
    const perSecond = p.kind === 'ramp' ? rampSecondArrivals(p.arrivalRate ?? 0, p.rampTo ?? 0, p.seconds) : [];
    const flat = p.kind === 'ramp' ? 0 : phaseArrivals(p) / steps;
    for (let j = 0; j < steps; j++) {
      active -= ring[slot] ?? 0; // this slot's arrivals leave the window now
      let x = flat;
      if (p.kind === 'ramp') x = ((perSecond[Math.floor((j * perSecond.length) / steps)] ?? 0) * perSecond.length) / steps;
      if (p.maxVusers !== undefined) x = Math.min(x, Math.max(0, p.maxVusers - active));
      ring[slot] = x;
      active += x;
      if (active > peak) peak = active;
      slot = (slot + 1) % window;
    }
  }
  return Math.max(0, Math.ceil(peak - 1e-9 * Math.max(1, peak)));
}

const BINDING_ORDER: BindingLimit[] = ['openFiles', 'ephemeralPorts', 'memory'];

/**
 * Validate generator limits.
 *
 * @throws PlanError('invalid') naming the bad field.
 */
export function validateLimits(limits: GeneratorLimits): void {
  if (typeof limits !== 'object' || limits === null) throw new PlanError('invalid', 'limits must be an object');
  for (const key of ['openFiles', 'ephemeralPorts', 'sourceAddresses', 'processes', 'memoryBytes', 'bytesPerVuser', 'socketsPerVuser'] as const) {
    const v = limits[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
      throw new PlanError('invalid', `limits.${key} must be a positive number (got ${JSON.stringify(v)})`);
    }
  }
}

/**
 * Concurrent vusers one generator holds: the floor of the smallest of
 * processes × openFiles / socketsPerVuser, sourceAddresses × ephemeralPorts /
 * socketsPerVuser and memoryBytes / bytesPerVuser, with the limit that binds
 * (ties resolve in that order).
 *
 * @throws PlanError('invalid') for bad limits.
 */
export function capacityPerGenerator(limits: GeneratorLimits): { vusers: number; binding: BindingLimit } {
  validateLimits(limits);
  const by: Record<BindingLimit, number> = {
    openFiles: Math.floor((limits.processes * limits.openFiles) / limits.socketsPerVuser),
    ephemeralPorts: Math.floor((limits.sourceAddresses * limits.ephemeralPorts) / limits.socketsPerVuser),
    memory: Math.floor(limits.memoryBytes / limits.bytesPerVuser),
  };
  let binding: BindingLimit = 'openFiles';
  for (const b of BINDING_ORDER) if (by[b] < by[binding]) binding = b;
  return { vusers: by[binding], binding };
}
