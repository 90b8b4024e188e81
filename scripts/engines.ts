/**
 * Which Artillery engine runs each part of a script, read the way Artillery reads it (core/runner.js): a scenario
 * runs `engine || config.engine || 'http'`, a before/after hook `engine || 'http'` (handleScriptHook ignores
 * config.engine). Pure.
 */
import { isRecord } from './core/is-record';

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

/** The engines a script runs, each with where (`before`, `after`, `scenario "name"` or `scenario N`), in script order. */
export function enginesUsed(script: ScriptShape): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  const use = (name: string, where: string) => byName.set(name, [...(byName.get(name) ?? []), where]);
  for (const hook of ['before', 'after'] as const) {
    const section = script[hook];
    if (isRecord(section)) use(named(section.engine) ?? 'http', hook);
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

