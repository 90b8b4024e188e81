/**
 * The variables each built-in scenario reads (docs/scenarios.md), and the values each can take. A `--var` the
 * scenario does not read (`--var room=50` on pubsub, which reads `rooms`) would change nothing, and a value its
 * processor would silently clamp (`rooms=0` runs as 1, `rooms=2.5` as 2) or replace by its default (`room=`,
 * `echo=maybe`) would not be what was asked: both are refused before the run, one line naming the fix. A user's own
 * script is not judged here (its processor may read anything): scripts/scenario.ts notes the variables it never
 * mentions instead. Pure.
 *
 * `hold` is also set by `--hold`/`--vusers` and is not listed where a scenario has no hold step. `socketPath`
 * (Socket.IO's path after the target's path prefix, default `/socket.io`) is read by every scenario's connect step.
 * test/unit/builtin-variables checks this table against the names the scenarios and their processors read.
 */
import { UsageError } from './errors';

/** What a variable may hold: a number (whole, at least `min` / above `above`, at most `max`), a path, a switch, or any non-empty text. */
export interface VariableRule {
  readonly number?: { readonly integer?: boolean; readonly min?: number; readonly above?: number; readonly max?: number; readonly maxWhy?: string };
  readonly kind?: 'path' | 'boolean';
}

/** Node's timers hold at most 2^31 - 1 ms (~24.8 days): a longer wait would fire after ~1 ms. */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);
const TIMER_WHY = "Node's timer limit, ~24.8 days";
/**
 * The largest `payloadSize` the reference target takes: its `POST /publish` answers 413 above 1 MiB of body, and the
 * publisher's body holds the payload with ~200 bytes of JSON around it (room name up to 256 characters, seq, clock).
 */
export const REFERENCE_MAX_PAYLOAD = 1024 * 1024 - 1024;

const text: VariableRule = {};
const path: VariableRule = { kind: 'path' };
const boolean: VariableRule = { kind: 'boolean' };
const seconds: VariableRule = { number: { min: 0, max: MAX_TIMER_SECONDS, maxWhy: TIMER_WHY } };
const count = (min: number, max?: number, maxWhy?: string): VariableRule => ({ number: { integer: true, min, ...(max !== undefined ? { max, maxWhy } : {}) } });
const rate: VariableRule = { number: { above: 0 } };
/** The one publisher POSTs to every room on every tick, from one load process. */
const publishedRooms = count(1, 10_000, 'the one publisher POSTs to every room on every tick, from one load process');
/** The publisher's ticks are timers: at most one a millisecond. */
const publishRate: VariableRule = { number: { above: 0, max: 1000, maxWhy: "the publisher's timer ticks at most once a millisecond" } };

export const BUILT_IN_VARIABLES: Readonly<Record<string, Readonly<Record<string, VariableRule>>>> = {
  connect: { hold: seconds, socketPath: path },
  pubsub: { hold: seconds, rooms: publishedRooms, roomPrefix: text, publishRate, publishSeconds: rate, socketPath: path },
  presence: { hold: seconds, linger: seconds, presenceRooms: count(1), targetMetrics: boolean, socketPath: path },
  broadcast: {
    hold: seconds,
    interval: { number: { min: 0.001 } },
    payloadSize: count(0),
    room: text,
    echo: boolean,
    publishSeconds: rate,
    socketPath: path,
  },
  rooms: { rooms: count(1), roomPrefix: text, messages: count(0), gap: seconds, linger: seconds, socketPath: path },
  recovery: { hold: seconds, dropAfter: seconds, away: seconds, rooms: publishedRooms, roomPrefix: text, publishRate, publishSeconds: rate, socketPath: path },
};

/**
 * A number written another way than in digits (`1e9`, ` 2.5 `, a whole number past 2^53), as JavaScript reads it;
 * else undefined (`1_000`, `0x10`, text). `--var` reads only plain digits as a number, so such a value stays text:
 * both checks of `--var` values (this file's, and scripts/scenario.ts for a user's script) ask for digits with it.
 */
export function numberWritten(value: string): number | undefined {
  if (!/^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(value)) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : Infinity;
}

/** The one-line refusal of a number variable's value, or undefined when it is fine. */
function numberProblem(key: string, value: string | number | boolean, n: NonNullable<VariableRule['number']>, scenario: string): string | undefined {
  const what = n.integer ? `a whole number of at least ${n.min}` : n.above !== undefined ? `a number above ${n.above}` : `a number of at least ${n.min}`;
  const example = `e.g. --var ${key}=${n.integer ? Math.max(1, n.min ?? 1) * 10 : 1}`;
  const asNumber = typeof value === 'number' ? value : typeof value === 'string' ? numberWritten(value) : undefined;
  const tooLarge = (v: number) =>
    n.max !== undefined && v > n.max
      ? `--var ${key}=${String(value)}: too large; the ${scenario} scenario takes at most ${n.max.toLocaleString('en-US')} for ${key} (${n.maxWhy})`
      : !Number.isSafeInteger(Math.trunc(v))
        ? `--var ${key}=${String(value)}: too large to be read exactly; pass at most ${Number.MAX_SAFE_INTEGER} (2^53 − 1)`
        : undefined;
  if (asNumber !== undefined && tooLarge(asNumber)) return tooLarge(asNumber);
  if (typeof value === 'string' && asNumber !== undefined) {
    return `--var ${key}=${value}: write the number in digits (${asNumber.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 })}); a value written otherwise stays text, which the ${scenario} scenario would replace by its default`;
  }
  // The processors read a non-number as the default (clock.js numVar): refused, not run as something else.
  const bad = typeof value !== 'number' || (n.integer && !Number.isInteger(value)) || (n.min !== undefined && value < n.min) || (n.above !== undefined && value <= n.above);
  return bad ? `--var ${key}=${String(value)}: the ${scenario} scenario needs ${what} for ${key}; ${example}` : undefined;
}

/** The one-line refusal of a value for `rule`, or undefined when it is fine. */
function valueProblem(scenario: string, key: string, value: string | number | boolean, rule: VariableRule, referenceTarget: boolean): string | undefined {
  if (value === '') return `--var ${key}=: an empty value; pass one (e.g. --var ${key}=${rule.kind === 'path' ? '/socket.io' : rule.number ? '1' : 'x'}), or leave --var ${key} out for the ${scenario} scenario's default`;
  if (rule.kind === 'boolean') {
    return [true, false, 0, 1].includes(value as never) ? undefined : `--var ${key}=${String(value)}: ${key} is a switch; pass true or false (or 1 or 0), e.g. --var ${key}=false`;
  }
  if (rule.kind === 'path') {
    return typeof value === 'string' && value.startsWith('/') ? undefined : `--var ${key}=${String(value)}: ${key} is a path and starts with /; e.g. --var ${key}=/${String(value).replace(/^\/*/, '') || 'socket.io'}`;
  }
  if (!rule.number) return undefined;
  const problem = numberProblem(key, value, rule.number, scenario);
  if (problem || key !== 'payloadSize' || !referenceTarget || typeof value !== 'number' || value <= REFERENCE_MAX_PAYLOAD) return problem;
  return `--var payloadSize=${value}: too large for the reference target, whose POST /publish takes at most 1 MiB (413 above); pass at most ${REFERENCE_MAX_PAYLOAD}, or --target your own service`;
}

/**
 * Refuses a `--var` a built-in scenario does not read, or a value it cannot run as given; and `--hold` (`explicitHold`)
 * on a scenario without a hold step (rooms: its vusers stay for their messages and `linger`). `referenceTarget`: the
 * run goes to the rig's reference target (no `--target URL`), whose limits then apply (`payloadSize`).
 */
export function checkBuiltInVars(scenario: string, vars: Readonly<Record<string, string | number | boolean>>, explicitHold = false, referenceTarget = false): void {
  const rules = BUILT_IN_VARIABLES[scenario];
  if (!rules) return;
  if (explicitHold && !('hold' in rules)) {
    const stay = 'messages' in rules && 'gap' in rules && 'linger' in rules ? 'its vusers stay for (messages − 1) × gap s, then linger s' : `its variables are ${Object.keys(rules).join(', ')}`;
    throw new UsageError(`--hold: the ${scenario} scenario has no hold step, so it would change nothing; ${stay}: set those with --var, e.g. --var linger=20`);
  }
  for (const [key, value] of Object.entries(vars)) {
    const rule = rules[key];
    if (!rule) {
      throw new UsageError(`--var ${key}: the ${scenario} scenario has no variable ${key}, so it would change nothing; its variables are ${Object.keys(rules).join(', ')} (docs/scenarios.md)`);
    }
    const problem = valueProblem(scenario, key, value, rule, referenceTarget);
    if (problem) throw new UsageError(problem);
  }
}

/**
 * How long one rooms vuser stays after it subscribed, as rooms.js runs it: `messages` publishes with `gap` s between
 * them (none after the last), then `linger` s. Undefined when a value is not a number.
 */
export function roomsStaySeconds(variables: Readonly<Record<string, unknown>>): { messages: number; gap: number; linger: number; seconds: number } | undefined {
  const [messages, gap, linger] = ['messages', 'gap', 'linger'].map((k) => Number(variables[k]));
  if (![messages, gap, linger].every(Number.isFinite)) return undefined;
  return { messages: messages!, gap: gap!, linger: linger!, seconds: Math.max(0, messages! - 1) * gap! + linger! };
}

/**
 * The note for `--vusers` on a built-in scenario without a hold step (rooms): "all N held at once" does not apply,
 * as each vuser stays for its messages and `linger` and leaves. `variables`: the script's, flags applied.
 */
export function noHoldStepNote(scenario: string, vusers: number | undefined, variables: Readonly<Record<string, unknown>>): string | undefined {
  const rules = BUILT_IN_VARIABLES[scenario];
  if (!rules || 'hold' in rules || vusers === undefined) return undefined;
  const s = roomsStaySeconds(variables);
  const stay = s ? ` ((${s.messages} − 1) × ${s.gap} s + ${s.linger} s = ${Number(s.seconds.toFixed(3))} s)` : '';
  return `note: the ${scenario} scenario has no hold step, so --vusers ${vusers.toLocaleString('en-US')} does not hold them all at once: each vuser stays for (messages − 1) × gap, then linger${stay}, and leaves; raise --var linger to keep more connected together`;
}
