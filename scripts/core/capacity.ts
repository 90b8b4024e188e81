/**
 * How much load a phase list produces (arrivals, peak concurrency) and how much
 * one generator can hold. Arrival counts follow artillery 2.0.34's own arithmetic
 * (`lib/core/phases.ts`, the `arrivals` package, `lib/dist.ts`). Pure: no I/O.
 */
import ms from 'ms';

/** An Artillery phase as in `config.phases` (durations: seconds, or an Artillery/ms duration string like "90s", "20m", "1h"). */
export interface Phase {
  name?: string;
  duration?: number | string;
  arrivalRate?: number;
  rampTo?: number;
  arrivalCount?: number;
  maxVusers?: number;
  pause?: number | string;
  [extra: string]: unknown;
}

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

/** Why a plan was refused: bad input, a forced generator count too small, or more generators than allowed. */
export class PlanError extends Error {
  /** `invalid`: bad input; `capacity`: forced generator count cannot hold the load; `max-generators`: needs more than allowed. */
  readonly kind: 'capacity' | 'invalid' | 'max-generators';
  /** Generators the request needs (set for `capacity` and `max-generators`). */
  readonly generatorsNeeded?: number;

  /** @param kind - category of failure; @param message - one self-contained line; @param generatorsNeeded - see field. */
  constructor(kind: PlanError['kind'], message: string, generatorsNeeded?: number) {
    super(message);
    this.name = 'PlanError';
    this.kind = kind;
    if (generatorsNeeded !== undefined) this.generatorsNeeded = generatorsNeeded;
  }
}

/** A validated phase with its durations in seconds. */
export interface NormalizedPhase {
  kind: 'pause' | 'count' | 'rate' | 'ramp';
  /** Wall-clock length of the phase, seconds. */
  seconds: number;
  arrivalRate?: number;
  rampTo?: number;
  arrivalCount?: number;
  maxVusers?: number;
  poisson: boolean;
}

const ARRIVAL_KEYS = ['arrivalRate', 'rampTo', 'arrivalCount'] as const;

/**
 * The longest duration the rig accepts: Node's timers (and Artillery's `think`, phase and pause timers)
 * hold at most 2^31-1 ms (~24.8 days); a longer one silently fires after 1 ms.
 */
export const MAX_DURATION_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** A duration in seconds, or why the value is not one. */
export type DurationReading = { readonly seconds: number } | { readonly problem: 'not-a-duration' | 'not-positive' | 'too-long' };

/**
 * The rig's one duration rule, for flags (`--ramp`, `--hold`, `--plateau`) and script phases alike: a
 * number of seconds, a string of plain seconds ("90", "1.5"), or an `ms` string ("90s", "20m", "1h",
 * "1500ms"); longer than zero and at most {@link MAX_DURATION_SECONDS}. (Artillery itself would read
 * "1.5" as 1.5 ms; the load processes get every phase duration as a number of seconds: scripts/scenario.ts.)
 */
export function readDuration(value: unknown): DurationReading {
  let seconds = Number.NaN;
  if (typeof value === 'number') seconds = value;
  else if (typeof value === 'string') {
    const s = value.trim();
    seconds = /^\d+(\.\d+)?$/.test(s) ? Number(s) : ((ms(s as ms.StringValue) as number | undefined) ?? Number.NaN) / 1000;
  }
  if (!Number.isFinite(seconds)) return { problem: 'not-a-duration' };
  if (seconds <= 0) return { problem: 'not-positive' };
  if (seconds > MAX_DURATION_SECONDS) return { problem: 'too-long' };
  return { seconds };
}

/**
 * Seconds of a phase's duration ({@link readDuration}).
 *
 * @throws PlanError('invalid') naming the phase and field.
 */
export function parseDuration(value: unknown, where: string): number {
  const d = readDuration(value);
  if ('seconds' in d) return d.seconds;
  if (d.problem === 'not-positive') throw new PlanError('invalid', `${where} must be longer than zero (got ${JSON.stringify(value)})`);
  if (d.problem === 'too-long') throw new PlanError('invalid', `${where}: ${JSON.stringify(value)} is longer than the ${MAX_DURATION_SECONDS} s (~24.8 days) a timer can hold`);
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new PlanError('invalid', `${where} must be a number of seconds or a duration like "90s" (got ${JSON.stringify(value)})`);
  }
  throw new PlanError('invalid', `${where}: ${JSON.stringify(value)} is not a valid duration (try "90s", "20m", "1h")`);
}

/** Seconds from the first phase's start to the last one's end. @throws PlanError('invalid') for bad phases. */
export function profileSeconds(phases: Phase[]): number {
  return normalizePhases(phases).reduce((sum, p) => sum + p.seconds, 0);
}

function numberField(p: Phase, key: string, where: string): number | undefined {
  const v = p[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new PlanError('invalid', `${where}.${key} must be a finite number (got ${JSON.stringify(v)})`);
  }
  if (v < 0) throw new PlanError('invalid', `${where}.${key} must not be negative (got ${v})`);
  return v;
}

/**
 * Validate one phase and normalize it (durations in seconds, its kind decided).
 *
 * @throws PlanError('invalid') naming the phase index and field.
 */
export function normalizePhase(p: Phase, index: number): NormalizedPhase {
  const where = `phase ${index}${typeof p.name === 'string' ? ` ("${p.name}")` : ''}`;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) throw new PlanError('invalid', `phase ${index} must be an object`);
  const arrivalRate = numberField(p, 'arrivalRate', where);
  const rampTo = numberField(p, 'rampTo', where);
  const arrivalCount = numberField(p, 'arrivalCount', where);
  const maxVusers = numberField(p, 'maxVusers', where);
  const poisson = p.mode === 'poisson';
  const present = ARRIVAL_KEYS.filter((k) => p[k] !== undefined);
  if (p.pause !== undefined) {
    if (present.length > 0) throw new PlanError('invalid', `${where}: pause cannot be combined with ${present.join(', ')}`);
    if (p.duration !== undefined) parseDuration(p.duration, `${where}.duration`);
    return { kind: 'pause', seconds: parseDuration(p.pause, `${where}.pause`), poisson };
  }
  if (present.length === 0) {
    throw new PlanError('invalid', `${where} has none of arrivalRate, rampTo, arrivalCount or pause (unknown phase shape)`);
  }
  if (p.duration === undefined) throw new PlanError('invalid', `${where}.duration is required`);
  const seconds = parseDuration(p.duration, `${where}.duration`);
  const base = { seconds, poisson, ...(maxVusers !== undefined ? { maxVusers } : {}) };
  if (arrivalCount !== undefined) {
    if (present.length > 1) throw new PlanError('invalid', `${where}: arrivalCount cannot be combined with arrivalRate or rampTo`);
    if (!Number.isInteger(arrivalCount)) throw new PlanError('invalid', `${where}.arrivalCount must be a whole number (got ${arrivalCount})`);
    return { ...base, kind: 'count', arrivalCount };
  }
  if (rampTo !== undefined) {
    return { ...base, kind: 'ramp', rampTo, ...(arrivalRate !== undefined ? { arrivalRate } : {}) };
  }
  return { ...base, kind: 'rate', arrivalRate: arrivalRate ?? 0 };
}

/**
 * Validate a whole phase list.
 *
 * @throws PlanError('invalid') for an empty or non-array list or any bad phase.
 */
export function normalizePhases(phases: Phase[]): NormalizedPhase[] {
  if (!Array.isArray(phases) || phases.length === 0) throw new PlanError('invalid', 'phases must be a non-empty list');
  return phases.map((p, i) => normalizePhase(p, i));
}

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
export function rampSecondArrivals(arrivalRate: number, rampTo: number, seconds: number): number[] {
  const roundUp = (raw: number): number => Math.floor(raw) + (Math.round(raw % 1) >= 1 ? 1 : 0);
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
      return rampSecondArrivals(p.arrivalRate ?? 0, p.rampTo ?? 0, p.seconds).reduce((a, b) => a + b, 0);
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
