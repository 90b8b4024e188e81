/**
 * Scenarios: find the Artillery script a run uses (a built-in or the user's file), apply the flags to
 * it, and cut it into per-generator scripts along the plan.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { distance } from 'fastest-levenshtein';
// lodash's merge is what Artillery uses to apply an environment (arrays merged index by index).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const merge = require('lodash/merge') as <T>(target: T, source: unknown) => T;
import { UsageError } from './errors';
import { readScriptFile } from './script-file';
import { MAX_TIMER_SECONDS, numberWritten } from './builtin-variables';
import { BUILT_IN_SCENARIOS, RunOptions, defaultRampSeconds } from './options';
import { isRecord } from './core/is-record';
import { estimateArrivals, parseDuration, profileSeconds } from './core/plan';
import { PlanError, normalizePhases, phasesWithNumbers } from './core/phases';
import { chosenEnvironment } from './phase-origin';
import { assertPhasesResolved, resolveConfigEnv, resolveConfigFunctions, resolveKnownTemplates, resolveScriptPlace } from './config-env';
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
  /** The script, with the `-e/--environment` entry already merged into its config. */
  readonly script: ArtilleryScript;
  /** True when the chosen environment sets the target. */
  readonly envTarget?: boolean;
  /** The `--var` names the script's config templates read (resolved before the run, as `artillery run -v` does). */
  readonly configVars?: readonly string[];
}

/**
 * Reads a built-in scenario by name or the user's script by path, and merges the `-e/--environment`
 * entry of `config.environments` into its config as Artillery does; a bad one is a {@link UsageError}.
 * `env` resolves the environment templates of the phases, processor and payload paths (scripts/config-env.ts); in
 * a user's script, `vars` (`--var`) are resolved in all of its config, as `artillery run -v` resolves them before the
 * run, and `{{ $dirname }}`/`{{ $scenarioFile }}` made to name the script's folder wherever it runs (scripts/config-env.ts).
 */
export function loadScenario(
  nameOrPath: string,
  scenariosDir: string,
  environment?: string,
  env: Readonly<Record<string, string | undefined>> = {},
  vars: Readonly<Record<string, unknown>> = {},
  phasesReplaced = false,
): LoadedScenario {
  const builtIn = (BUILT_IN_SCENARIOS as readonly string[]).includes(nameOrPath);
  const looksLikePath = namesAFile(nameOrPath);
  let file: string;
  if (builtIn) {
    file = path.join(scenariosDir, `${nameOrPath}.yml`);
    if (!fs.existsSync(file)) {
      throw new UsageError(`--scenario ${nameOrPath} is not shipped yet in this version; available: ${availableScenarios(scenariosDir).join(', ')}`);
    }
  } else if (looksLikePath) {
    file = path.resolve(nameOrPath);
    if (!fs.existsSync(file)) {
      throw new UsageError(`--scenario ${nameOrPath}: no such file;${didYouMean(nameOrPath, scenariosDir)} pass a built-in name (${availableScenarios(scenariosDir).join(', ')}) or the path of an Artillery script`);
    }
  } else {
    throw new UsageError(`--scenario ${JSON.stringify(nameOrPath)} is not a built-in scenario;${didYouMean(nameOrPath, scenariosDir)} use one of ${availableScenarios(scenariosDir).join(', ')} or a path to an Artillery .yml/.json/.js script`);
  }
  if (fs.statSync(file).isDirectory()) {
    throw new UsageError(`--scenario ${nameOrPath} is a folder, not a script; pass the path of an Artillery .yml/.json/.js script in it`);
  }
  const parsed = readScriptFile(file, nameOrPath);
  const script = checkScript(parsed, file);
  const name = builtIn ? nameOrPath : path.basename(file);
  const envTarget = environment === undefined ? undefined : applyEnvironment(script, environment, name);
  script.config = resolveConfigEnv(script.config, env, name);
  const used = new Set<string>();
  if (!builtIn) {
    script.config = resolveScriptPlace(resolveConfigFunctions(resolveKnownTemplates(script.config, vars, used)) as ArtilleryScript['config'], path.basename(file));
    if (!phasesReplaced) assertPhasesResolved(script.config.phases, name, chosenEnvironment(script.config, environment));
  }
  if (script.config.phases !== undefined) script.config.phases = phasesWithNumbers(script.config.phases) as Phase[];
  const configVars = [...used];
  return { name, file, dir: path.dirname(file), builtIn, script, ...(envTarget !== undefined ? { envTarget } : {}), ...(configVars.length ? { configVars } : {}) };
}

/**
 * Merges `config.environments[name]` into `config` (lodash merge, as Artillery's checkConfig). Unlike
 * Artillery, which warns and runs on, an environment the script does not define is refused: a typo must
 * not send the load to the default target. Returns whether the environment sets the target.
 */
function applyEnvironment(script: ArtilleryScript, environment: string, name: string): boolean {
  const envs = script.config.environments as Record<string, unknown> | undefined;
  const entry = envs && typeof envs === 'object' ? envs[environment] : undefined;
  if (!entry || typeof entry !== 'object') {
    const known = envs && typeof envs === 'object' ? Object.keys(envs) : [];
    throw new UsageError(
      `-e ${environment}: ${name} has no config.environments.${environment}; ${known.length ? `use one of ${known.join(', ')}` : 'the script defines no environments, drop -e'}`,
    );
  }
  merge(script.config, entry);
  // The load processes run without -e (the entry is merged here), so Artillery would leave $environment
  // unset: resolve it in config (e.g. a payload path `{{ $environment }}-users.csv`) and give it to the
  // vusers as a variable, as `artillery run -e` does.
  const resolved = withEnvironmentName(script.config, environment) as ArtilleryScript['config'];
  script.config = { ...resolved, variables: { ...(resolved.variables ?? {}), $environment: environment } };
  return (entry as { target?: unknown }).target !== undefined;
}

/** Replaces `{{ $environment }}` in every string of a config value. Pure. */
function withEnvironmentName(value: unknown, environment: string): unknown {
  if (typeof value === 'string') return value.replace(/\{\{\s*\$environment\s*\}\}/g, environment);
  if (Array.isArray(value)) return value.map((v) => withEnvironmentName(v, environment));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withEnvironmentName(v, environment)]));
  return value;
}

function checkScript(parsed: unknown, file: string): ArtilleryScript {
  const obj = parsed as Partial<ArtilleryScript> | null;
  if (!obj || typeof obj !== 'object' || !obj.config || typeof obj.config !== 'object') {
    throw new UsageError(`scenario file ${file} has no "config" section; an Artillery script needs config (target, phases) and scenarios`);
  }
  if (!Array.isArray(obj.scenarios) || obj.scenarios.length === 0) {
    const what = Array.isArray(obj.scenarios) ? 'an empty "scenarios" list' : obj.scenarios === undefined ? 'no "scenarios" list' : 'a "scenarios" that is not a list';
    throw new UsageError(`scenario file ${file} has ${what}; add at least one scenario with a flow`);
  }
  if (obj.config.phases !== undefined && !Array.isArray(obj.config.phases)) {
    throw new UsageError(`scenario file ${file}: config.phases must be a list of phases`);
  }
  // Artillery's schema takes any list here, then fails on its first phase with a TypeError.
  const notAPhase = (obj.config.phases ?? []).findIndex((p: unknown) => !p || typeof p !== 'object' || Array.isArray(p));
  if (notAPhase >= 0) {
    throw new UsageError(`scenario file ${file}: config.phases[${notAPhase}] is ${JSON.stringify(obj.config.phases?.[notAPhase])}, not a phase; each phase is a mapping such as { duration: 60, arrivalRate: 5 }`);
  }
  return obj as ArtilleryScript;
}

/** " did you mean pubsub?" for a built-in name within two edits of what was typed (case aside; `./connect`, `connect.yml` too), else ''. */
function didYouMean(typed: string, scenariosDir: string): string {
  const word = path.basename(typed).replace(/\.(ya?ml|json|js)$/i, '').toLowerCase();
  const near = availableScenarios(scenariosDir)
    .map((n) => ({ n, d: distance(n, word) }))
    .filter((c) => c.d <= 2)
    .sort((a, b) => a.d - b.d)[0];
  return near ? ` did you mean ${near.n}?` : '';
}

/** Whether a --scenario value names a file (a path, or a name with an extension: built-in names have none) rather than a built-in scenario. */
export function namesAFile(value: string): boolean {
  return /[\\/]|\.[A-Za-z0-9]+$/.test(value);
}

/** Built-in scenario names that ship in this checkout. */
export function availableScenarios(scenariosDir: string): string[] {
  return BUILT_IN_SCENARIOS.filter((n) => fs.existsSync(path.join(scenariosDir, `${n}.yml`)));
}

/**
 * Notes for variables the flags set that a user's own script never mentions (as `{{ name }}` or in an `ifTrue`
 * expression; flows, hooks, config outside `variables`): `--var` (a typo sets nothing the flow reads) and `hold`,
 * which `--hold`, or `--vusers` for "all N held at once", sets for the built-in scenarios' hold step. Said before the run, never silently ignored; a
 * processor may still read `context.vars`, so a script with one gets "unless its processor reads it". Pure.
 */
export function unreadVariableNotes(script: ArtilleryScript, options: RunOptions, name: string, readInConfig: readonly string[] = []): string[] {
  const { variables: _v, ...config } = script.config;
  const text = JSON.stringify({ ...script, config });
  // Any whole-word use counts: `{{ name }}`, and the bare names of ifTrue/whileTrue expressions and loop `over`.
  const mentions = (v: string) => new RegExp(`(^|[^\\w$])${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w])`).test(text);
  const unless = script.config.processor ? ' unless its processor reads context.vars.' : '';
  const notes: string[] = [];
  for (const key of Object.keys(options.vars ?? {})) {
    if (!mentions(key) && !readInConfig.includes(key)) notes.push(`note: --var ${key}: ${name} never mentions {{ ${key} }}, so it changes nothing${unless ? `${unless}${key}` : ''}`);
  }
  if (options.holdSeconds !== undefined && !(options.vars && 'hold' in options.vars) && !mentions('hold')) {
    const flag = options.plateauSeconds === undefined ? `--hold` : `--vusers' hold (${options.holdSeconds} s, so all are connected at once)`;
    notes.push(`note: ${flag} sets the variable hold, which ${name} never mentions ({{ hold }}), so its vusers last as long as its own flow${unless ? `${unless}hold` : ''}`);
  }
  return notes;
}

/**
 * The script with the flags applied: `--vusers`/`--ramp` replace the phases with one even ramp,
 * `--hold` and `--var` set variables. Pure; applied once per run (scripts/run-input.ts), the target
 * is set afterwards with {@link withTarget}.
 */
export function applyOptions(script: ArtilleryScript, options: RunOptions): ArtilleryScript {
  const copy: ArtilleryScript = JSON.parse(JSON.stringify(script));
  const variables: Record<string, unknown> = { ...(copy.config.variables ?? {}) };
  if (options.holdSeconds !== undefined) variables.hold = options.holdSeconds;
  checkVarTypes(variables, options.vars, thinkVariables(copy));
  Object.assign(variables, options.vars);
  copy.config.variables = variables;
  // -k: as `artillery run -k` (lib/util.ts checkConfig), whatever the script's own config.tls says.
  if (options.insecure) copy.config.tls = { ...(isRecord(copy.config.tls) ? copy.config.tls : {}), rejectUnauthorized: false };
  // No phases at all: one vuser, as `artillery run` does (prepare-test-execution-plan); said before the run.
  if (copy.config.phases === undefined) copy.config.phases = ARTILLERY_DEFAULT_PHASES.map((p) => ({ ...p }));
  if (options.vusers !== undefined) {
    const duration = options.rampSeconds ?? defaultRampSeconds(options.vusers);
    copy.config.phases = [{ name: 'ramp', duration, arrivalCount: options.vusers }];
  } else if (options.rampSeconds !== undefined) {
    // --ramp alone stretches the scenario's own phases to that total length, keeping their shape.
    copy.config.phases = stretchPhases(copy.config.phases ?? [], options.rampSeconds);
  }
  if (!copy.config.phases || copy.config.phases.length === 0) {
    // A PlanError: scripts/run-input.ts names the script's file before it.
    throw new PlanError('invalid', 'config.phases is an empty list, so no vuser would arrive; add a phase, drop the empty list (one vuser, as artillery run), or pass --vusers N');
  }
  // Ensure runs once, on the merged data (scripts/report/ensure.ts); a load process running it on its
  // slice would judge a fraction of the load and exit 1 (read as a lost generator). Both places go.
  delete copy.config.ensure;
  if (copy.config.plugins && 'ensure' in copy.config.plugins) {
    const { ensure: _ensure, ...plugins } = copy.config.plugins;
    copy.config.plugins = plugins;
  }
  // Already merged into config by loadScenario.
  delete copy.config.environments;
  return copy;
}

/**
 * -k: refused on a built-in scenario, or a script whose flows connect through the rig's own processor functions
 * (`rigConnect`: a copy of a built-in keeping its processor), which check the certificate whatever config.tls says
 * (throws); on a script that turns certificate checks on itself, the note to say (as Artillery warns).
 */
export function checkInsecure(script: ArtilleryScript, options: RunOptions, builtIn: boolean, name: string, rigConnect = builtIn): string | undefined {
  if (!options.insecure) return undefined;
  if (builtIn) {
    throw new UsageError(
      "-k/--insecure applies to your own scripts (it sets their config.tls.rejectUnauthorized: false); the built-in scenarios connect with their own client, which checks the target's certificate: use a certificate this machine trusts, or drop -k",
    );
  }
  if (rigConnect) {
    throw new UsageError(
      `-k/--insecure sets ${name}'s config.tls.rejectUnauthorized: false, but its flows connect through the rig's own processor functions (fetchCookie, openSocket), which check the target's certificate whatever config.tls says (plain artillery run -k fails every vuser on it): use a certificate this machine trusts (NODE_EXTRA_CA_CERTS=cert.pem), or drop -k`,
    );
  }
  const tls = script.config.tls;
  return isRecord(tls) && tls.rejectUnauthorized === true ? `note: ${name} sets config.tls.rejectUnauthorized: true; -k turns certificate checks off for this run, as artillery run -k does` : undefined;
}

/** What `artillery run` (2.0.34) runs when a script has no `config.phases`: one vuser. */
export const ARTILLERY_DEFAULT_PHASES: ReadonlyArray<{ readonly duration: number; readonly arrivalCount: number }> = [{ duration: 1, arrivalCount: 1 }];

/**
 * The line said before the run when the flags decide a user's script's phases: it has none (one vuser, as
 * `artillery run`), `--vusers` replaces its own with one even ramp, or `--ramp` alone stretches them (each phase
 * keeps its rates and counts, so a rate phase creates more vusers). The flags ask for it; the line says what
 * becomes of what the script wrote, before anything starts. Undefined when the phases run as written.
 */
export function phasesNote(script: ArtilleryScript, options: RunOptions, name: string): string | undefined {
  const own = script.config.phases;
  if (own === undefined) {
    if (options.vusers !== undefined) return undefined;
    return `note: ${name} has no config.phases, so it runs one vuser${options.rampSeconds !== undefined ? ` (over --ramp)` : ''}, as artillery run does; pass --vusers N for more`;
  }
  if (!Array.isArray(own) || own.length === 0 || (options.vusers === undefined && options.rampSeconds === undefined)) return undefined;
  const phases = `${own.length === 1 ? 'the phase' : `the ${own.length} phases`} of ${name}`;
  let written: { seconds: number; vusers: number } | undefined;
  try {
    written = { seconds: profileSeconds(own), vusers: estimateArrivals(own) };
  } catch {
    written = undefined; // refused later with its own words
  }
  const was = written ? ` (${fmt(written.seconds)} s, ~${fmt(written.vusers)} vusers)` : '';
  if (options.vusers !== undefined) {
    const ramp = options.rampSeconds ?? defaultRampSeconds(options.vusers);
    return `note: --vusers ${fmt(options.vusers)} replaces ${phases}${was} with one even ramp: ${fmt(options.vusers)} vusers over ${fmt(ramp)} s`;
  }
  const ramp = options.rampSeconds as number;
  let becomes = '';
  try {
    if (written) becomes = `: ~${fmt(written.vusers)} → ~${fmt(estimateArrivals(stretchPhases(own, ramp)))} vusers`;
  } catch {
    becomes = '';
  }
  return `note: --ramp ${fmt(ramp)}s stretches ${phases}${written ? ` from ${fmt(written.seconds)} s` : ''} to ${fmt(ramp)} s, each keeping its arrival rate and count${becomes}; --vusers N with --ramp sets the total instead`;
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });

/** The script pointed at the run's target. Pure. */
export function withTarget(script: ArtilleryScript, target: string): ArtilleryScript {
  return { ...script, config: { ...script.config, target } };
}

/** Node's timers hold at most 2^31 - 1 ms (~24.8 days); a longer think would fire after ~1 ms. */
const MAX_THINK_SECONDS = MAX_TIMER_SECONDS;

/** Variables the script's flows use as a think time (`think: "{{ hold }}"`): seconds, so numbers a timer can hold. */
export function thinkVariables(script: ArtilleryScript): Set<string> {
  const found = new Set<string>();
  const walk = (flow: unknown): void => {
    if (!Array.isArray(flow)) return;
    for (const step of flow as Array<Record<string, unknown>>) {
      if (!step || typeof step !== 'object') continue;
      const m = typeof step.think === 'string' ? /^\{\{\s*([A-Za-z_$][\w$]*)\s*\}\}$/.exec(step.think) : null;
      if (m) found.add(m[1] as string);
      walk(step.loop);
      walk(step.parallel);
    }
  };
  for (const sc of script.scenarios as Array<{ flow?: unknown }>) walk(sc?.flow);
  return found;
}

/**
 * `--var` values for variables the scenario uses as numbers (its default is a number, or a think step
 * reads it) must be numbers, checked like `--hold`: `--var hold=abc` would run with a NaN hold, and a
 * think time past Node's timer limit would end at once.
 */
function checkVarTypes(defaults: Record<string, unknown>, vars: RunOptions['vars'], thinks: ReadonlySet<string>): void {
  for (const [key, value] of Object.entries(vars)) {
    const d = defaults[key];
    const example = typeof d === 'number' ? d : 10;
    const usedAs = thinks.has(key) ? `a think time in seconds${typeof d === 'number' ? ` (default ${d})` : ''}` : `a number (default ${d})`;
    if ((typeof d === 'number' || thinks.has(key)) && typeof value !== 'number') {
      // `1e9`, `99999999999999999999`: a number, but not in the digits --var reads as one (it stays text).
      const how = typeof value === 'string' && numberWritten(value) !== undefined ? 'write it in digits, at most 9007199254740991 for a whole number' : 'pass a number';
      throw new UsageError(`--var ${key}=${String(value)}: the scenario uses ${key} as ${usedAs}; ${how}, e.g. --var ${key}=${example}`);
    }
    if (typeof value !== 'number') continue;
    if (((typeof d === 'number' && d >= 0) || thinks.has(key)) && value < 0) {
      throw new UsageError(`--var ${key}=${value}: ${key} must not be negative; pass e.g. --var ${key}=${example}`);
    }
    if (thinks.has(key) && value > MAX_THINK_SECONDS) {
      throw new UsageError(`--var ${key}=${value}: a think time of more than ${MAX_THINK_SECONDS} s (~24.8 days, Node's timer limit) cannot be held; pass a shorter one`);
    }
  }
}

/**
 * The phases stretched to `totalSeconds`, keeping their shape; their durations read by the rig's one duration
 * rule ("2s", "3 seconds", 90), so none is left as written. @throws PlanError for a phase the rig cannot read.
 */
function stretchPhases(phases: Phase[], totalSeconds: number): Phase[] {
  if (phases.length === 0) return phases; // refused by the caller, with its own words
  // A bad phase is a PlanError, which the caller (scripts/run-input.ts) names with the script's file.
  const durations = normalizePhases(phases).map((p) => p.seconds);
  const sum = durations.reduce((a, b) => a + b, 0);
  return phases.map((p, i) => {
    const d = Math.max(1, Math.round(((durations[i] ?? 0) * totalSeconds) / sum));
    return p.pause !== undefined ? { ...p, pause: d } : { ...p, duration: d };
  });
}

/**
 * One load process's script: its phases, and its share of every `order: sequence` payload
 * (`rigShare`, cut by the agent: load-generators/lib/payload-share.js): the rows its planned arrivals read
 * in one plain run; undefined for a process with none. Pure.
 */
export function processScript(script: ArtilleryScript, phases: Phase[], share: { start: number; count: number } | undefined): ArtilleryScript {
  const config: ArtilleryScript['config'] = { ...script.config, phases: phases.map(inSeconds) };
  const payload = config.payload;
  if (share && payload && typeof payload === 'object') {
    const list = (Array.isArray(payload) ? payload : [payload]) as Array<Record<string, unknown>>;
    const shared = list.map((p) => (p && p.order === 'sequence' ? { ...p, rigShare: share } : p));
    config.payload = Array.isArray(payload) ? shared : shared[0];
  }
  return { ...script, config };
}

/**
 * A phase with its durations in the one form Artillery 2.0.34 reads exactly (lib/core/phases.ts): a whole
 * number of seconds as a number, anything else as an `ms` string ("1500ms"). The rig reads "1.5" as 1.5 s
 * (scripts/core/capacity.ts readDuration); Artillery would read the string "1.5" as 1.5 ms and refuses the
 * number 1.5 ("Invalid duration for phase"), so neither may reach a load process.
 */
function inSeconds(phase: Phase): Phase {
  const out: Phase = { ...phase };
  if (phase.duration !== undefined) out.duration = artilleryDuration(parseDuration(phase.duration, 'duration'));
  if (phase.pause !== undefined) out.pause = artilleryDuration(parseDuration(phase.pause, 'pause'));
  return out;
}

/** Seconds as Artillery reads them exactly: 90 → 90, 1.5 → "1500ms". */
export function artilleryDuration(seconds: number): number | string {
  return Number.isInteger(seconds) ? seconds : `${Number((seconds * 1000).toFixed(3))}ms`;
}

/** How long one vuser's session lasts, for concurrency planning: `hold` plus connect time, else unknown. */
export function expectedSessionSeconds(script: ArtilleryScript): number | undefined {
  const hold = Number(script.config.variables?.hold);
  return Number.isFinite(hold) && hold > 0 ? hold + 5 : undefined;
}

