/**
 * Which Artillery engine runs each part of a script, read the way Artillery reads it (core/runner.js): a scenario
 * runs `engine || config.engine || 'http'`, a before/after hook `engine || 'http'` (handleScriptHook ignores
 * config.engine). Pure.
 */
import { isRecord } from './core/is-record';
import type { ErrorOrigins } from './core/verdict';

interface ScriptShape {
  readonly config: Record<string, unknown>;
  readonly scenarios: readonly unknown[];
  readonly before?: unknown;
  readonly after?: unknown;
}

const named = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** The engine a scenario runs. */
export function scenarioEngine(script: ScriptShape, scenario: unknown): string {
  return named(isRecord(scenario) ? scenario.engine : undefined) ?? named(script.config.engine) ?? 'http';
}

/** The engine a top-level `before`/`after` section runs: its own, else http (config.engine does not apply to it). */
export function hookEngine(section: Record<string, unknown>): string {
  return named(section.engine) ?? 'http';
}

/** The engines a script runs, each with where (`before`, `after`, `scenario "name"` or `scenario N`), in script order. */
export function enginesUsed(script: ScriptShape): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  const use = (name: string, where: string) => byName.set(name, [...(byName.get(name) ?? []), where]);
  for (const hook of ['before', 'after'] as const) {
    const section = script[hook];
    if (isRecord(section)) use(hookEngine(section), hook);
  }
  script.scenarios.forEach((sc, i) => {
    if (isRecord(sc)) use(scenarioEngine(script, sc), `scenario ${typeof sc.name === 'string' ? JSON.stringify(sc.name) : i + 1}`);
  });
  return byName;
}

/**
 * A scenario's weight as Artillery reads it (runner.js): absent, 1; else parseInt of the value, 0 when that is not
 * a number. Undefined for a templated weight (`{{ … }}`), known only at run time.
 */
export function scenarioWeight(scenario: unknown): number | undefined {
  const w = isRecord(scenario) ? scenario.weight : undefined;
  if (w === undefined) return 1;
  if (typeof w === 'string' && w.includes('{{')) return undefined;
  const n = parseInt(String(w), 10);
  return Number.isNaN(n) ? 0 : n;
}

/** Whether Artillery may pick the scenario: its weight is above 0 (weighted-pick.js never picks one of 0), or templated. */
export function scenarioCanRun(scenario: unknown): boolean {
  const w = scenarioWeight(scenario);
  return w === undefined || w > 0;
}

/**
 * The URLs a run connects to, given the target it runs against: the target, except for a ws part (a scenario Artillery
 * may pick, or `before`/`after`) whose first step is a `connect` naming its own URL, which the ws engine opens instead
 * (engine_ws.js getWsInstance: `connect: URL`, or `connect: { target }`); a URL templated per vuser is not known
 * before the run and is left out. A `connect` function starts from the target.
 */
export function connectionTargets(script: ScriptShape, target: string): string[] {
  const hooks = (['before', 'after'] as const).map((h) => script[h]).filter(isRecord);
  const parts = [...hooks.map((h) => ({ part: h, engine: hookEngine(h) })), ...script.scenarios.filter(scenarioCanRun).map((sc) => ({ part: sc, engine: scenarioEngine(script, sc) }))];
  const urls = new Set<string>();
  for (const { part, engine } of parts) {
    const flow = isRecord(part) && Array.isArray(part.flow) ? part.flow : [];
    const connect = engine === 'ws' && isRecord(flow[0]) ? flow[0].connect : undefined;
    const own = typeof connect === 'string' ? connect : isRecord(connect) && connect.function === undefined && typeof connect.target === 'string' ? connect.target : undefined;
    if (own === undefined) urls.add(target);
    else if (!own.includes('{{')) urls.add(own);
  }
  return [...urls];
}

/**
 * What besides the script's own code can have raised a run's `errors.*` (the verdict tells them apart by it): a
 * scenario Artillery may pick on its socketio or ws engine, and the rig's own processors (`builtInScenario`). Not a
 * `before`/`after` section: Artillery runs it on an emitter of its own whose errors and counters reach no report
 * (runner.js handleScriptHook), so a ws `before` beside http scenarios must not read their `undefined` as the ws
 * engine's echo, nor a socketio one their `Error: …` as a refused connection. Pure.
 */
export function errorOriginsOf(script: ScriptShape, builtInScenario: boolean): ErrorOrigins {
  const engines = new Set(script.scenarios.filter(scenarioCanRun).map((sc) => scenarioEngine(script, sc)));
  return { socketIoEngine: engines.has('socketio') || engines.has('socketio-v3'), wsEngine: engines.has('ws'), builtInScenario };
}
