/**
 * Whether a script runs one of the rig's own processors (load-generators/processors), and which built-in scenario's
 * measurements it makes with it. Decided by what Artillery loads and what the flows call, never by the script's name:
 * a copy of `pubsub.yml` that keeps its processor and flow measures what the built-in measures, and a script of the
 * user's own under a built-in's name does not.
 * - The processor's error codes (`WS_CONNECT_FAILED`, `COOKIE_HTTP_503`, …) each name the target's answer: the verdict
 *   files them as the target's only when that code runs ({@link rigProcessorName}).
 * - A built-in scenario's figure rows and delivery checks (`no message was delivered`, a refused publish) read the
 *   counters its functions make, sender and receiver together: they apply when the flows call them
 *   ({@link rigScenarioOf}); a script that borrows only the connect functions gets neither.
 * The processor, resolved as Artillery resolves it from the script's folder, is a file of that folder (links followed)
 * or a byte-for-byte copy of one.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scenarioCanRun } from './engines';
import { BUILT_IN_SCENARIOS } from './options';
import { referencedFunctions, resolveProcessor } from './script-check';

/** A built-in scenario's name. */
export type BuiltInScenario = (typeof BUILT_IN_SCENARIOS)[number];

/** The rig's processors folder under the repository root. */
const processorsDir = (root: string) => path.join(root, 'load-generators', 'processors');

/** The file at `file`, links followed; undefined when it cannot be read. */
function realFile(file: string): string | undefined {
  try {
    return fs.statSync(file).isFile() ? fs.realpathSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The rig's processor (`pubsub`, `connect`, … its file name without `.js`) that `config.processor` of the script in
 * `scriptDir` is, or a copy of; undefined for any other. `processor`: as written (after its templates were resolved).
 */
export function rigProcessorName(processor: unknown, scriptDir: string, root: string): string | undefined {
  if (typeof processor !== 'string' || processor === '') return undefined;
  const file = realFile(resolveProcessor(path.resolve(scriptDir, processor)));
  if (file === undefined || !fs.existsSync(processorsDir(root))) return undefined;
  const dir = fs.realpathSync(processorsDir(root));
  const name = (f: string) => path.basename(f).replace(/\.js$/, '');
  if (path.dirname(file) === dir) return name(file);
  const content = fs.readFileSync(file);
  const copied = fs.readdirSync(dir).find((n) => {
    const own = realFile(path.join(dir, n));
    return own !== undefined && fs.statSync(own).size === content.length && fs.readFileSync(own).equals(content);
  });
  return copied === undefined ? undefined : name(copied);
}

/**
 * Per built-in scenario, the functions of its processor whose counters its figure rows and delivery checks read: the
 * sender and the receiver (a publisher alone would read as "none delivered"), and the step that books what the rows
 * count at a vuser's end (pubsubReport: zero-message vusers, gaps; roomsReport: connections closed, for the peak).
 * `presence` needs the join that listens for announcements; `connect` its connection.
 */
const MEASURED_BY: Readonly<Record<BuiltInScenario, readonly string[]>> = {
  connect: ['openSocket'],
  pubsub: ['pubsubPublisher', 'pubsubSubscribe', 'pubsubReport'],
  presence: ['presenceJoinFirst'],
  broadcast: ['broadcastPublisher', 'broadcastJoin'],
  rooms: ['roomsJoin', 'roomsPublish', 'roomsReport'],
  recovery: ['recoveryPublisher', 'recoveryRun'],
};

const isBuiltIn = (name: string | undefined): name is BuiltInScenario => (BUILT_IN_SCENARIOS as readonly (string | undefined)[]).includes(name);

/** The processor functions the scenarios Artillery may pick call (weight above 0; in their flows or hooks). */
function calledFunctions(script: { readonly scenarios: readonly unknown[] }): Set<string> {
  return new Set(referencedFunctions({ config: {}, scenarios: script.scenarios.filter(scenarioCanRun) }).map((f) => f.name));
}

/** The functions of every built-in scenario's processor that connect to the target (load-generators/processors/connect.js). */
export const RIG_CONNECT_FUNCTIONS = ['fetchCookie', 'openSocket'] as const;

/**
 * Whether the scenarios Artillery may pick connect through the rig's own functions ({@link RIG_CONNECT_FUNCTIONS} of
 * `processor`, from {@link rigProcessorName}): then the target is probed as those functions connect, their first
 * request is judged, and -k cannot reach them. A function of that name in a processor of the user's own is theirs.
 */
export function rigConnects(script: { readonly config: Record<string, unknown>; readonly scenarios: readonly unknown[] }, processor: string | undefined): boolean {
  if (!isBuiltIn(processor)) return false;
  const called = calledFunctions(script);
  return RIG_CONNECT_FUNCTIONS.some((fn) => called.has(fn));
}

/**
 * The built-in scenario whose measurements a script makes: `processor` (from {@link rigProcessorName}) is that
 * scenario's, and the scenarios Artillery may pick (weight above 0; not `before`/`after`, whose counters reach no
 * report) call every function its checks read, in their flows or hooks; else `connect` when they open the rig's
 * Socket.IO connection; else undefined. Pure.
 */
export function rigScenarioOf(script: { readonly config: Record<string, unknown>; readonly scenarios: readonly unknown[]; readonly before?: unknown; readonly after?: unknown }, processor: string | undefined): BuiltInScenario | undefined {
  if (processor === undefined) return undefined;
  const called = calledFunctions(script);
  const makes = (s: BuiltInScenario) => MEASURED_BY[s].every((fn) => called.has(fn));
  if (isBuiltIn(processor) && makes(processor)) return processor;
  return makes('connect') ? 'connect' : undefined;
}
