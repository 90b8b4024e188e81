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
