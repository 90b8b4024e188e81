/**
 * An Artillery phase list read the rig's way (pure): each phase validated, its durations in seconds (the
 * rig's one duration rule), or a {@link PlanError} naming the bad field. The load a phase list produces is
 * computed in ./capacity.ts.
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

/** Why a plan was refused: bad input, a forced generator count too small, or more generators than allowed. */
export class PlanError extends Error {
  /** `invalid`: bad input; `capacity`: forced generator count cannot hold the load; `max-generators`: needs more than allowed. */
  readonly kind: 'capacity' | 'invalid' | 'max-generators';
  /** Generators the request needs (set for `capacity` and `max-generators`). */
  readonly generatorsNeeded?: number;
  /** The phase a refusal is about (set by {@link normalizePhase}): its message starts with `where`. */
  readonly phase?: PhasePlace;

  /**
   * @param kind - category of failure; @param message - one self-contained line; @param generatorsNeeded - see field;
   * @param phase - see field.
   */
  constructor(kind: PlanError['kind'], message: string, generatorsNeeded?: number, phase?: PhasePlace) {
    super(message);
    this.name = 'PlanError';
    this.kind = kind;
    if (generatorsNeeded !== undefined) this.generatorsNeeded = generatorsNeeded;
    if (phase !== undefined) this.phase = phase;
  }
}

/** Which phase of `config.phases` a refusal is about, and which of its fields (none: the phase as a whole). */
export interface PhasePlace {
  /** 0-based, as in the script. */
  readonly index: number;
  /** The field whose value is refused (`arrivalRate`, `duration`, …); absent when the phase's fields together are. */
  readonly field?: string;
  /** How the message names the phase, at its start: {@link phaseWhere}'s `config.phases[1] ("warm")`. */
  readonly where: string;
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
  /** A ramp share's place among the load processes that share it (scripts/core/split.ts), as Artillery's worker n of m. */
  place?: { readonly worker: number; readonly of: number };
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
    // `ms` throws on an empty string (`--ramp=`, `duration: ""`) instead of answering undefined.
    seconds = s === '' ? Number.NaN : /^\d+(\.\d+)?$/.test(s) ? Number(s) : ((ms(s as ms.StringValue) as number | undefined) ?? Number.NaN) / 1000;
  }
  if (!Number.isFinite(seconds)) return { problem: 'not-a-duration' };
  if (seconds <= 0) return { problem: 'not-positive' };
  if (seconds > MAX_DURATION_SECONDS) return { problem: 'too-long' };
  return { seconds };
}

/**
 * Seconds of a phase's duration ({@link readDuration}). A string with spaces around it is refused unless it is a
 * plain number: Artillery 2.0.34 (lib/core/phases.ts) reads it with `ms()` as written and stops with "Invalid
 * duration for phase: 2s ", so trimming it would run a script plain `artillery run` refuses.
 *
 * @throws PlanError('invalid') naming the phase and field.
 */
export function parseDuration(value: unknown, where: string): number {
  if (typeof value === 'string' && value !== value.trim() && !/^\d+(\.\d+)?$/.test(value.trim())) {
    throw new PlanError('invalid', `${where}: ${JSON.stringify(value)} has a space before or after it, which artillery run refuses ("Invalid duration for phase"); write ${JSON.stringify(value.trim())}`);
  }
  const d = readDuration(value);
  if ('seconds' in d) return d.seconds;
  if (d.problem === 'not-positive') throw new PlanError('invalid', `${where} must be longer than zero (got ${JSON.stringify(value)}); write seconds or a duration, e.g. ${fieldOf(where)}: 60 or "10m"`);
  if (d.problem === 'too-long') throw new PlanError('invalid', `${where}: ${JSON.stringify(value)} is longer than the ${MAX_DURATION_SECONDS} s (~24.8 days) a timer can hold; write a shorter one, or several phases`);
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new PlanError('invalid', `${where} must be a number of seconds or a duration like "90s" (got ${JSON.stringify(value)})`);
  }
  throw new PlanError('invalid', `${where}: ${JSON.stringify(value)} is not a valid duration (try "90s", "20m", "1h")`);
}

/** The field a `where` ends with (`config.phases[0].pause` → `pause`), for a refusal's example. */
function fieldOf(where: string): string {
  return /\.(\w+)$/.exec(where)?.[1] ?? 'duration';
}

/** What each numeric phase field counts, with an example value: a refusal shows how to write it. */
const NUMBER_EXAMPLES: Record<string, string> = {
  arrivalRate: '10 (vusers a second)',
  rampTo: '50 (vusers a second at the end of the phase)',
  arrivalCount: '100 (vusers over the duration)',
  maxVusers: '100 (vusers at once, at most)',
};

/**
 * Seconds one phase lasts (its pause, else its duration) by {@link readDuration}, 0 when it has none the rig can
 * read: for phase lists already checked (a plan's slices), where one unreadable value must not make a sum NaN. Pure.
 */
export function secondsOfPhase(p: Pick<Phase, 'duration' | 'pause'>): number {
  const d = readDuration(p.pause ?? p.duration);
  return 'seconds' in d ? d.seconds : 0;
}

/** Seconds from the first phase's start to the last one's end. @throws PlanError('invalid') for bad phases. */
export function profileSeconds(phases: Phase[]): number {
  return normalizePhases(phases).reduce((sum, p) => sum + p.seconds, 0);
}

/** Phase fields Artillery reads as counts or rates (its dist.js takes each through `Number(…)`). */
const NUMERIC_KEYS = ['arrivalRate', 'rampTo', 'arrivalCount', 'maxVusers'] as const;

/**
 * The phases with numeric strings (`arrivalRate: "2"`, as YAML gives a quoted number) turned into numbers, as
 * Artillery's dist.js does with `Number(m)`; anything else is left for {@link normalizePhase} to refuse.
 */
export function phasesWithNumbers(phases: unknown): unknown {
  if (!Array.isArray(phases)) return phases;
  return phases.map((p: unknown) => {
    if (!p || typeof p !== 'object' || Array.isArray(p)) return p;
    const out: Record<string, unknown> = { ...(p as Record<string, unknown>) };
    for (const k of NUMERIC_KEYS) {
      const v = out[k];
      if (typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v)) out[k] = Number(v);
    }
    return out;
  });
}

/** A refusal of the phase at `at` (its message starts with `at.where`), of one field of it or of the whole. */
const phaseError = (at: { index: number; where: string }, message: string, field?: string) => new PlanError('invalid', message, undefined, { ...at, ...(field !== undefined ? { field } : {}) });

function numberField(p: Phase, key: string, at: { index: number; where: string }): number | undefined {
  const v = p[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw phaseError(at, `${at.where}.${key} must be a finite number (got ${JSON.stringify(v)}); write a number, e.g. ${key}: ${NUMBER_EXAMPLES[key] ?? '10'}`, key);
  }
  if (v < 0) throw phaseError(at, `${at.where}.${key} must not be negative (got ${v}); write 0 or more, e.g. ${key}: ${NUMBER_EXAMPLES[key] ?? '10'}`, key);
  return v;
}

/** A phase as refusals and notes name it: `config.phases[0] ("warm")`, 0-based as Artillery's own log. Pure. */
export function phaseWhere(phase: Phase, index: number): string {
  return `config.phases[${index}]${typeof phase.name === 'string' && phase.name ? ` ("${phase.name}")` : ''}`;
}

/**
 * Validate one phase and normalize it (durations in seconds, its kind decided).
 *
 * @throws PlanError('invalid') naming the phase index and field.
 */
export function normalizePhase(p: Phase, index: number): NormalizedPhase {
  // Named as in the script (0-based, as Artillery's "Phase started: … (index: 0 …)"), with the phase's name if any.
  if (typeof p !== 'object' || p === null || Array.isArray(p)) {
    const where = `config.phases[${index}]`;
    throw phaseError({ index, where }, `${where} is ${JSON.stringify(p)}, not a phase; each phase is a mapping such as { duration: 60, arrivalRate: 5 }`);
  }
  const where = phaseWhere(p, index);
  const at = { index, where };
  const duration = (field: 'duration' | 'pause'): number => {
    try {
      return parseDuration(p[field], `${where}.${field}`);
    } catch (err) {
      throw err instanceof PlanError ? phaseError(at, err.message, field) : err;
    }
  };
  const arrivalRate = numberField(p, 'arrivalRate', at);
  const rampTo = numberField(p, 'rampTo', at);
  const arrivalCount = numberField(p, 'arrivalCount', at);
  const maxVusers = numberField(p, 'maxVusers', at);
  const poisson = p.mode === 'poisson';
  const present = ARRIVAL_KEYS.filter((k) => p[k] !== undefined);
  if (p.pause !== undefined) {
    if (present.length > 0) throw phaseError(at, `${where}: pause cannot be combined with ${present.join(', ')}; a pause only waits: put the arrivals in a phase of their own before or after it`);
    if (p.duration !== undefined) duration('duration');
    return { kind: 'pause', seconds: duration('pause'), poisson };
  }
  if (present.length === 0) {
    throw phaseError(at, `${where} has none of arrivalRate, rampTo, arrivalCount or pause, so it would create no vusers; add one (e.g. arrivalRate: 10 for 10 vusers a second)`);
  }
  // Artillery 2.0.34 reads a phase with maxVusers 0 as idle (is-idle-phase.ts: it creates no vuser) and its dist.ts drops
  // a worker whose phases are all idle: refused here rather than run as a silent pause.
  if (maxVusers !== undefined && maxVusers < 1) throw phaseError(at, `${where}.maxVusers must be at least 1 (got ${maxVusers}): Artillery creates no vuser in a phase whose maxVusers is 0; drop maxVusers, or use { pause: ${JSON.stringify(p.duration ?? 60)} } for a phase that only waits`, 'maxVusers');
  // Missing, so no field holds the bad value: the phase's fields together ask for it.
  if (p.duration === undefined) throw phaseError(at, `${where}.duration is required with ${present.join(', ')}; add one, e.g. duration: 60 (seconds) or "10m"`);
  const seconds = duration('duration');
  const base = { seconds, poisson, ...(maxVusers !== undefined ? { maxVusers } : {}) };
  if (arrivalCount !== undefined) {
    if (present.length > 1) throw phaseError(at, `${where}: arrivalCount cannot be combined with arrivalRate or rampTo; keep arrivalCount for a total over the duration, or arrivalRate (and rampTo) for vusers a second`);
    if (!Number.isInteger(arrivalCount)) throw phaseError(at, `${where}.arrivalCount must be a whole number (got ${arrivalCount}); e.g. arrivalCount: ${Math.max(1, Math.round(arrivalCount))}`, 'arrivalCount');
    return { ...base, kind: 'count', arrivalCount };
  }
  // Artillery 2.0.34's dist.js splits arrivalRate (without rampTo) and maxVusers with an assertion that the whole
  // numbers it hands its workers sum to the value: a fraction stops every run with "AssertionError: 1.5 === 2".
  if (maxVusers !== undefined && !Number.isInteger(maxVusers)) throw phaseError(at, `${where}.maxVusers must be a whole number (got ${maxVusers}); e.g. maxVusers: ${Math.max(1, Math.floor(maxVusers))}`, 'maxVusers');
  if (rampTo === undefined && arrivalRate !== undefined && !Number.isInteger(arrivalRate)) {
    throw phaseError(at, `${where}.arrivalRate must be a whole number (got ${arrivalRate}): Artillery cannot split a fractional rate; use arrivalCount for a total over the duration (e.g. arrivalCount: ${Math.round(arrivalRate * seconds)})`, 'arrivalRate');
  }
  if (rampTo !== undefined) {
    const place = Number.isInteger(p.rigWorker) && Number.isInteger(p.rigWorkers) ? { place: { worker: p.rigWorker as number, of: p.rigWorkers as number } } : {};
    return { ...base, kind: 'ramp', rampTo, ...(arrivalRate !== undefined ? { arrivalRate } : {}), ...place };
  }
  return { ...base, kind: 'rate', arrivalRate: arrivalRate ?? 0 };
}

/**
 * Validate a whole phase list.
 *
 * @throws PlanError('invalid') for an empty or non-array list or any bad phase.
 */
export function normalizePhases(phases: Phase[]): NormalizedPhase[] {
  if (!Array.isArray(phases) || phases.length === 0) throw new PlanError('invalid', 'config.phases must be a non-empty list; add a phase, e.g. { duration: 60, arrivalRate: 5 }');
  return phases.map((p, i) => normalizePhase(p, i));
}

/** Whether a phase creates no vuser: a pause, or every arrival field it has is 0. */
const createsNoVusers = (p: NormalizedPhase): boolean => p.kind === 'pause' || ((p.arrivalCount ?? 0) === 0 && (p.arrivalRate ?? 0) === 0 && (p.rampTo ?? 0) === 0);

/**
 * A whole run's phase list validated as {@link normalizePhases}, and refused when no phase creates a vuser (as
 * {@link normalizePhase} refuses one phase with only a duration): the run would test nothing, yet end PASSED.
 * Only the whole profile: one load process's slice may rightly create none.
 *
 * @throws PlanError('invalid').
 */
export function normalizeProfile(phases: Phase[]): NormalizedPhase[] {
  const norm = normalizePhases(phases);
  if (norm.every(createsNoVusers)) {
    throw new PlanError('invalid', 'the phases create no vusers (every one is a pause or has 0 arrivals), so the run would test nothing; give a phase arrivals (e.g. arrivalRate: 10) or pass --vusers N');
  }
  return norm;
}
