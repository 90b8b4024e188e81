/**
 * Scenarios: find the Artillery script a run uses (a built-in or the user's file), apply the flags to
 * it, and cut it into per-generator scripts along the plan.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { UsageError } from './errors';
import { BUILT_IN_SCENARIOS, RunOptions, defaultRampSeconds } from './options';
import type { Phase } from './core/plan';

/** An Artillery script, as much of it as the rig reads. */
export interface ArtilleryScript {
  config: {
    target?: string;
    phases?: Phase[];
    variables?: Record<string, unknown>;
    processor?: string;
    plugins?: Record<string, unknown>;
    ensure?: unknown;
    [key: string]: unknown;
  };
  scenarios: unknown[];
  [key: string]: unknown;
}

/** A loaded scenario: the script and the folder its relative paths (processor, payloads) resolve from. */
export interface LoadedScenario {
  readonly name: string;
  readonly file: string;
  readonly dir: string;
  readonly builtIn: boolean;
  readonly script: ArtilleryScript;
}

/** Reads a built-in scenario by name or the user's script by path; a bad one is a {@link UsageError}. */
export function loadScenario(nameOrPath: string, scenariosDir: string): LoadedScenario {
  const builtIn = (BUILT_IN_SCENARIOS as readonly string[]).includes(nameOrPath);
  const looksLikePath = /[\\/]|\.(ya?ml|json)$/i.test(nameOrPath);
  let file: string;
  if (builtIn) {
    file = path.join(scenariosDir, `${nameOrPath}.yml`);
    if (!fs.existsSync(file)) {
      throw new UsageError(`--scenario ${nameOrPath} is not shipped yet in this version; available: ${availableScenarios(scenariosDir).join(', ')}`);
    }
  } else if (looksLikePath) {
    file = path.resolve(nameOrPath);
    if (!fs.existsSync(file)) {
      throw new UsageError(`--scenario ${nameOrPath}: no such file; pass a built-in name (${availableScenarios(scenariosDir).join(', ')}) or the path of an Artillery script`);
    }
  } else {
    throw new UsageError(`--scenario ${JSON.stringify(nameOrPath)} is not a built-in scenario; use one of ${availableScenarios(scenariosDir).join(', ')} or a path to an Artillery .yml/.json script`);
  }
  let parsed: unknown;
  try {
    parsed = yaml.load(fs.readFileSync(file, 'utf8'), { filename: file });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new UsageError(`scenario file ${file} is not valid YAML/JSON (${reason}); fix the syntax and run again`);
  }
  const script = checkScript(parsed, file);
  return { name: builtIn ? nameOrPath : path.basename(file), file, dir: path.dirname(file), builtIn, script };
}

function checkScript(parsed: unknown, file: string): ArtilleryScript {
  const obj = parsed as Partial<ArtilleryScript> | null;
  if (!obj || typeof obj !== 'object' || !obj.config || typeof obj.config !== 'object') {
    throw new UsageError(`scenario file ${file} has no "config" section; an Artillery script needs config (target, phases) and scenarios`);
  }
  if (!Array.isArray(obj.scenarios) || obj.scenarios.length === 0) {
    throw new UsageError(`scenario file ${file} has no "scenarios" list; add at least one scenario with a flow`);
  }
  if (obj.config.phases !== undefined && !Array.isArray(obj.config.phases)) {
    throw new UsageError(`scenario file ${file}: config.phases must be a list of phases`);
  }
  return obj as ArtilleryScript;
}

/** Built-in scenario names that ship in this checkout. */
export function availableScenarios(scenariosDir: string): string[] {
  return BUILT_IN_SCENARIOS.filter((n) => fs.existsSync(path.join(scenariosDir, `${n}.yml`)));
}

/**
 * The script with the flags applied: `--vusers`/`--ramp` replace the phases with one even ramp,
 * `--hold` and `--var` set variables, the target is set. Pure.
 */
export function applyOptions(script: ArtilleryScript, options: RunOptions, target: string): ArtilleryScript {
  const copy: ArtilleryScript = JSON.parse(JSON.stringify(script));
  const variables: Record<string, unknown> = { ...(copy.config.variables ?? {}) };
  if (options.holdSeconds !== undefined) variables.hold = options.holdSeconds;
  Object.assign(variables, options.vars);
  copy.config.variables = variables;
  copy.config.target = target;
  if (options.vusers !== undefined) {
    const duration = options.rampSeconds ?? defaultRampSeconds(options.vusers);
    copy.config.phases = [{ name: 'ramp', duration, arrivalCount: options.vusers }];
  } else if (options.rampSeconds !== undefined) {
    // --ramp alone stretches the scenario's own phases to that total length, keeping their shape.
    copy.config.phases = stretchPhases(copy.config.phases ?? [], options.rampSeconds);
  }
  if (!copy.config.phases || copy.config.phases.length === 0) {
    throw new UsageError('the scenario has no config.phases; pass --vusers N (and --ramp) or add phases to the script');
  }
  // The rig ships metrics itself; Artillery's own reporters would only duplicate output per generator.
  delete copy.config.ensure;
  return copy;
}

function stretchPhases(phases: Phase[], totalSeconds: number): Phase[] {
  const durations = phases.map((p) => Number(p.duration ?? p.pause ?? 0));
  const sum = durations.reduce((a, b) => a + b, 0);
  if (!(sum > 0)) return phases;
  return phases.map((p, i) => {
    const d = Math.max(1, Math.round(((durations[i] ?? 0) * totalSeconds) / sum));
    return p.pause !== undefined ? { ...p, pause: d } : { ...p, duration: d };
  });
}

/** How long one vuser's session lasts, for concurrency planning: `hold` plus connect time, else unknown. */
export function expectedSessionSeconds(script: ArtilleryScript): number | undefined {
  const hold = Number(script.config.variables?.hold);
  return Number.isFinite(hold) && hold > 0 ? hold + 5 : undefined;
}

/** The `config.ensure.conditions` expressions of a script (Artillery's ensure syntax). */
export function ensureFromScript(script: { config: { ensure?: unknown } }): string[] {
  const e = script.config.ensure as { conditions?: Array<{ expression?: string }> } | undefined;
  return (e?.conditions ?? []).map((c) => c.expression).filter((x): x is string => typeof x === 'string');
}
