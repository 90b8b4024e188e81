/**
 * The variables each built-in scenario reads (docs/scenarios.md), and the values each can take. A `--var` the
 * scenario does not read (`--var room=50` on pubsub, which reads `rooms`) would change nothing, and a value its
 * processor would silently clamp (`rooms=0` runs as 1, `rooms=2.5` as 2) would not be what was asked: both are
 * refused before the run, naming the scenario's variables. A user's own script is not judged here (its
 * processor may read anything): scripts/scenario.ts notes the variables it never mentions instead. Pure.
 *
 * `hold` is also set by `--hold`/`--vusers` and is not listed where a scenario has no hold step. `socketPath`
 * (Socket.IO's path, default `/socket.io`) is read by every scenario's connect step. test/unit/builtin-variables
 * checks this table against the names the scenarios and their processors read.
 */
import { UsageError } from './errors';

/** What a variable may hold: a number (whole, at least `min` / above `above`), or any text. */
export interface VariableRule {
  readonly number?: { readonly integer?: boolean; readonly min?: number; readonly above?: number };
}

const text: VariableRule = {};
const seconds: VariableRule = { number: { min: 0 } };
const count = (min: number): VariableRule => ({ number: { integer: true, min } });
const rate: VariableRule = { number: { above: 0 } };

export const BUILT_IN_VARIABLES: Readonly<Record<string, Readonly<Record<string, VariableRule>>>> = {
  connect: { hold: seconds, socketPath: text },
  pubsub: { hold: seconds, rooms: count(1), roomPrefix: text, publishRate: rate, publishSeconds: rate, socketPath: text },
  presence: { hold: seconds, linger: seconds, presenceRooms: count(1), targetMetrics: text, socketPath: text },
  broadcast: { hold: seconds, interval: rate, payloadSize: count(0), room: text, echo: text, publishSeconds: rate, socketPath: text },
  rooms: { rooms: count(1), roomPrefix: text, messages: count(0), gap: seconds, linger: seconds, socketPath: text },
  recovery: { hold: seconds, dropAfter: seconds, away: seconds, rooms: count(1), roomPrefix: text, publishRate: rate, publishSeconds: rate, socketPath: text },
};

/**
 * Refuses a `--var` a built-in scenario does not read, or a value it cannot run as given; and `--hold` (`explicitHold`)
 * on a scenario without a hold step (rooms: its vusers stay for their messages and `linger`).
 */
export function checkBuiltInVars(scenario: string, vars: Readonly<Record<string, string | number | boolean>>, explicitHold = false): void {
  const rules = BUILT_IN_VARIABLES[scenario];
  if (!rules) return;
  if (explicitHold && !('hold' in rules)) {
    const stay = 'messages' in rules && 'gap' in rules && 'linger' in rules ? 'its vusers stay for messages × gap s, then linger s' : `its variables are ${Object.keys(rules).join(', ')}`;
    throw new UsageError(`--hold: the ${scenario} scenario has no hold step, so it would change nothing; ${stay}: set those with --var, e.g. --var linger=20`);
  }
  for (const [key, value] of Object.entries(vars)) {
    const rule = rules[key];
    if (!rule) {
      throw new UsageError(`--var ${key}: the ${scenario} scenario has no variable ${key}, so it would change nothing; its variables are ${Object.keys(rules).join(', ')} (docs/scenarios.md)`);
    }
    const n = rule.number;
    if (!n) continue;
    const what = n.integer ? `a whole number of at least ${n.min}` : n.above !== undefined ? 'a number above 0' : `a number of at least ${n.min}`;
    // The processors read a non-number as the default (clock.js numVar): refused, not run as something else.
    const bad = typeof value !== 'number' || (n.integer && !Number.isInteger(value)) || (n.min !== undefined && value < n.min) || (n.above !== undefined && value <= n.above);
    if (bad) throw new UsageError(`--var ${key}=${String(value)}: the ${scenario} scenario needs ${what} for ${key}; e.g. --var ${key}=${n.integer ? Math.max(1, n.min ?? 1) * 10 : 1}`);
  }
}

/**
 * The note for `--vusers` on a built-in scenario without a hold step (rooms): "all N held at once" does not apply,
 * as each vuser stays for its messages and `linger` and leaves. `variables`: the script's, flags applied.
 */
export function noHoldStepNote(scenario: string, vusers: number | undefined, variables: Readonly<Record<string, unknown>>): string | undefined {
  const rules = BUILT_IN_VARIABLES[scenario];
  if (!rules || 'hold' in rules || vusers === undefined) return undefined;
  const [messages, gap, linger] = ['messages', 'gap', 'linger'].map((k) => Number(variables[k]));
  const stay = [messages, gap, linger].every(Number.isFinite) ? ` (${messages} × ${gap} s + ${linger} s = ${messages! * gap! + linger!} s)` : '';
  return `note: the ${scenario} scenario has no hold step, so --vusers ${vusers.toLocaleString('en-US')} does not hold them all at once: each vuser stays for messages × gap, then linger${stay}, and leaves; raise --var linger to keep more connected together`;
}
