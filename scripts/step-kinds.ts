/**
 * A step written for another engine than the one that runs it: Artillery 2.0.34 runs it anyway, and every vuser that
 * reaches it fails. Read from the engines' own `step()` (core/engine_http.js, engine_socketio.js, engine_ws.js):
 * - http takes any step that is not `loop`, `parallel`, `think`, `log` or `function` as a request named by its first
 *   key, so an `emit:`, `send:`, `wait:` or `connect:` step fails with "an URL must be specified";
 * - socketio runs `emit` (and `think`, `loop`) itself and hands every other step to the http engine: a ws step fails
 *   there the same way (and its vuser fails with no error counted);
 * - ws takes any step that is not `connect`, `loop`, `think`, `function` or `log` as a `send`/`wait`: an HTTP request
 *   or an `emit:` has neither, and fails with "invalid_step".
 * Only steps of another built-in engine are judged (a key no engine knows may be a plugin engine's). The top-level
 * `before`/`after` sections are judged too, on the engine they run on: their own `engine`, else http (runner.js
 * handleScriptHook: `script[hook].engine || 'http'`, config.engine does not apply); a failing step fails the section,
 * and plain `artillery run` stops on it (exit 1: before its first vuser, or after its report). Pure.
 */
import { isRecord } from './core/is-record';
import { hookEngine, scenarioEngine } from './engines';

const REQUESTS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];
const WS_ONLY = ['send', 'wait', 'connect'];

/** The engine a step kind belongs to, when only another one runs it. */
const OWNER: Readonly<Record<string, string>> = {
  emit: 'socketio',
  ...Object.fromEntries(WS_ONLY.map((k) => [k, 'ws'])),
  ...Object.fromEntries([...REQUESTS, 'parallel'].map((k) => [k, 'http'])),
};

const OWNER_WORDS: Readonly<Record<string, string>> = { http: 'an HTTP', socketio: 'a Socket.IO', ws: 'a ws' };

/** The fix for a step of `owner`'s in a scenario of `engine`. */
function fix(kind: string, owner: string, engine: string): string {
  if (owner === 'http' && engine === 'ws') return `the ws engine makes no HTTP requests: move the ${kind} into a scenario of engine http or socketio`;
  return `use engine: ${owner} for that scenario`;
}

/** The fix for a step of `owner`'s in a `before`/`after` section of `engine` (`named`: the section names its engine). */
function hookFix(hook: string, kind: string, owner: string, engine: string, named: boolean): string {
  if (owner === 'http' && engine === 'ws') return `the ws engine makes no HTTP requests: remove the ${kind} from the ${hook} section, or run the section on engine http (drop its engine: ws)`;
  return `give the ${hook} section engine: ${owner}${named ? '' : ' (it runs on engine http unless it names its own: config.engine does not apply to before/after)'}`;
}

interface ScriptShape {
  readonly config: Record<string, unknown>;
  readonly scenarios: readonly unknown[];
  readonly before?: unknown;
  readonly after?: unknown;
}

/** A part of the script that runs a flow: a scenario, or the `before`/`after` section. */
interface Part {
  readonly flow: unknown;
  readonly engine: string;
  /** `scenario "name"` / `scenario 2`, or `before` / `after`. */
  readonly label: string;
  readonly hook?: 'before' | 'after';
  /** A section that names its own engine. */
  readonly named?: boolean;
}

/** The script's flows with the engine each runs on: `before`, `after` (their own engine, else http), the scenarios. */
function parts(script: ScriptShape): Part[] {
  const hooks = (['before', 'after'] as const).flatMap((hook): Part[] => {
    const section = script[hook];
    if (!isRecord(section)) return [];
    return [{ flow: section.flow, engine: hookEngine(section), label: hook, hook, named: typeof section.engine === 'string' && section.engine !== '' }];
  });
  const scenarios = script.scenarios.flatMap((scenario, i): Part[] =>
    isRecord(scenario) ? [{ flow: scenario.flow, engine: scenarioEngine(script, scenario), label: `scenario ${typeof scenario.name === 'string' ? JSON.stringify(scenario.name) : i + 1}` }] : [],
  );
  return [...hooks, ...scenarios];
}

/**
 * One problem per scenario (and `before`/`after` section) with a step its engine does not run: where (the part and
 * step, 1-based, nested steps as `step 2 > 1`), what, and the fix. Parts of other engines (plugins) are not judged.
 */
export function stepKindProblems(script: ScriptShape): string[] {
  const problems: string[] = [];
  for (const { flow, engine, label, hook, named } of parts(script)) {
    if (!(engine in OWNER_WORDS)) continue;
    const found = firstForeignStep(Array.isArray(flow) ? flow : [], engine);
    if (!found) continue;
    const { path, kind, runBy, inParallel } = found;
    const owner = OWNER[kind] as string;
    const error = runBy === 'ws' ? 'invalid_step' : 'an URL must be specified';
    // A section is one run of its flow: its failure stops plain `artillery run` (runner.js handleScriptHook rejects).
    const fails = hook === undefined
      ? `every vuser that reaches it fails ("${error}"), as under plain artillery run`
      : `the ${hook} section fails ("${error}") and plain artillery run stops on it, exit 1 (${hook === 'before' ? 'before its first vuser' : 'after its report'})`;
    // Artillery runs a parallel's steps with the http engine, whatever the scenario's: only HTTP requests work there.
    const how = inParallel
      ? `inside a parallel, which Artillery runs with the http engine: ${fails}; move the ${kind} out of the parallel`
      : `which the ${engine} engine does not run: ${fails}; ${hook === undefined ? fix(kind, owner, engine) : hookFix(hook, kind, owner, engine, named ?? false)}`;
    problems.push(`${label} (engine ${engine}) step ${path} is ${OWNER_WORDS[owner]} "${kind}" step, ${how}`);
  }
  return problems;
}

/**
 * The first step (depth first, through loops and parallels) that `engine` does not run, read as its `step()` reads a
 * step: the keys it tests for (`loop`, `parallel`, `think`, `log`, `function`, socketio's `emit`, ws's `connect`,
 * `send`, `wait`) wherever they stand; the http engine takes any other step's first key as the request's method (so an
 * HTTP `connect: { url }` is a CONNECT request, not a ws step). Socket.IO hands a step without `emit` to the http engine.
 */
function firstForeignStep(flow: readonly unknown[], engine: string): Foreign | undefined {
  for (let i = 0; i < flow.length; i++) {
    const step = flow[i];
    if (!isRecord(step)) continue;
    const found = foreignStep(step, engine);
    if (found) return { ...found, path: found.path ? `${i + 1} > ${found.path}` : String(i + 1) };
  }
  return undefined;
}

/** A step its engine does not run: where, its kind, the engine that runs it, and whether a parallel holds it. */
interface Foreign {
  readonly path: string;
  readonly kind: string;
  readonly runBy: string;
  readonly inParallel: boolean;
}

function foreignStep(step: Record<string, unknown>, engine: string): Foreign | undefined {
  const within = (key: string, as: string) => (Array.isArray(step[key]) ? firstForeignStep(step[key] as unknown[], as) : undefined);
  if (step.loop !== undefined) return within('loop', engine);
  if (step.think !== undefined || step.function !== undefined || step.log !== undefined) return undefined;
  if (engine === 'ws') {
    if (step.connect !== undefined || step.send !== undefined || step.wait !== undefined) return undefined;
  } else {
    if (engine === 'socketio' && step.emit !== undefined) return undefined;
    if (step.parallel !== undefined) {
      const inner = within('parallel', 'http');
      return inner && { ...inner, inParallel: true };
    }
    const method = Object.keys(step)[0] ?? '';
    // engine_http.js takes `url` or `uri`.
    if (REQUESTS.includes(method) || (method === 'connect' && isRecord(step.connect) && (step.connect.url !== undefined || step.connect.uri !== undefined))) return undefined;
  }
  // Named by a key of another engine's (a step that fails for another reason, e.g. a misplaced request key, is not judged).
  const own = engine === 'ws' ? ['ws'] : engine === 'socketio' ? ['socketio', 'http'] : ['http'];
  const kind = Object.keys(step).find((k) => k in OWNER && !own.includes(OWNER[k] as string));
  return kind === undefined ? undefined : { path: '', kind, runBy: engine, inParallel: false };
}
