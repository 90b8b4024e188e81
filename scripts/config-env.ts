/**
 * `{{ $env.NAME }}` and `{{ $processEnvironment.NAME }}` in the parts of a script's config the rig must know before
 * the run: its phases (it splits them over the load processes), its processor and payload paths (it checks them and,
 * on AWS, ships them). Artillery resolves every config template from the environment before it reads any of these
 * (util.ts resolveConfigTemplates), so `arrivalRate: "{{ $processEnvironment.RATE }}"` runs under `artillery run`;
 * the rig refused it as "not a number". Resolved here, from this machine's environment, as `artillery run` here would.
 * Other config values keep their templates for Artillery (a `config.variables` secret is never copied into a slice:
 * scripts/generator-modules.ts assertEnvOnGenerators). Pure.
 */
import { UsageError } from './errors';
import { PlanError } from './core/phases';
import { type ChosenEnvironment, phaseRefusal } from './phase-origin';

// Artillery's own pattern takes a third brace each side too (engine_util.js: `{{{ $env.X }}}`).
const TEMPLATE = /\{\{\{?\s*\$(env|processEnvironment)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\}?/g;

/** One string with its environment templates replaced; an unset variable is bad input, named with where it is read. */
function resolveString(value: string, env: Readonly<Record<string, string | undefined>>, where: string): string {
  return value.replace(TEMPLATE, (all, _kind: string, name: string) => {
    const v = env[name];
    if (v === undefined) throw new UsageError(`${where} reads the environment variable ${name} (${all}), which is not set; export it and run again`);
    return v;
  });
}

function resolveDeep(value: unknown, env: Readonly<Record<string, string | undefined>>, where: string): unknown {
  if (typeof value === 'string') return resolveString(value, env, where);
  if (Array.isArray(value)) return value.map((v, i) => resolveDeep(v, env, `${where}[${i}]`));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveDeep(v, env, `${where}.${k}`)]));
  return value;
}

/**
 * `value` with its environment templates filled from `env` as Artillery fills a config's: a string that is one template
 * of an unset variable becomes undefined, one inside other text "undefined"; `complete` is false
 * when another template is left (one Artillery fills per vuser). Pure.
 */
export function fillEnvTemplates(value: unknown, env: Readonly<Record<string, string | undefined>>): { value: unknown; complete: boolean } {
  // Artillery's rendering of known templates (resolveKnownTemplates), with the environment as what `$env` and
  // `$processEnvironment` name.
  const filled = resolveKnownTemplates(value, { $env: env, $processEnvironment: env }, new Set());
  return { value: filled, complete: !(JSON.stringify(filled) ?? '').includes('{{') };
}

/**
 * The config with the environment templates of `phases`, `processor` and every payload's `path` resolved (the
 * rest as it was). `name` is the script's, for the error line.
 */
export function resolveConfigEnv<C extends Record<string, unknown>>(config: C, env: Readonly<Record<string, string | undefined>>, name: string): C {
  const out: Record<string, unknown> = { ...config };
  if (config.phases !== undefined) out.phases = resolveDeep(config.phases, env, `${name}: config.phases`);
  if (typeof config.processor === 'string') out.processor = resolveString(config.processor, env, `${name}: config.processor`);
  const payload = config.payload;
  const withPath = (p: unknown, where: string) =>
    p && typeof p === 'object' && typeof (p as { path?: unknown }).path === 'string'
      ? { ...(p as Record<string, unknown>), path: resolveString((p as { path: string }).path, env, `${where}.path`) }
      : p;
  if (Array.isArray(payload)) out.payload = payload.map((p, i) => withPath(p, `${name}: config.payload[${i}]`));
  else if (payload !== undefined) out.payload = withPath(payload, `${name}: config.payload`);
  return out as C;
}

// lodash's get is what Artillery's renderVariables reads a `{{ a.b }}` path with.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const lodashGet = require('lodash/get') as (o: unknown, p: string) => unknown;

/** Artillery's template pattern (engine_util.ts renderVariables). */
const ANY_TEMPLATE = /\{\{\{?[\s$\w.[\]'"-]+\}\}\}?/g;

/**
 * Artillery resolves every template of `config` before the run with the values it knows then
 * (util.ts resolveConfigTemplates), the `-v` variables (the rig's `--var`) among them. A load process gets the
 * `--var` values in `config.variables` instead, where its own resolution does not look, so `{{ port }}` in
 * `config.target` would be nothing: the rig resolves them here, as renderVariables does (a string that is one
 * template takes the value itself, a number stays a number; in a longer string, objects as JSON). Templates of
 * other names are left for Artillery. `used` collects the names read. Pure.
 */
export function resolveKnownTemplates(value: unknown, known: Readonly<Record<string, unknown>>, used: Set<string>): unknown {
  if (typeof value === 'string') {
    const matches = value.match(ANY_TEMPLATE);
    if (!matches) return value;
    if (matches.length === 1 && matches[0] === value) {
      const { hit, v } = lookupKnown(value, known, used);
      if (!hit) return value;
      return v === 0 || v === false || v === null || v === undefined ? v : v || '';
    }
    return resolveInText(value, known, used);
  }
  if (Array.isArray(value)) return value.map((v) => resolveKnownTemplates(v, known, used));
  // Keys too, as Artillery's template renders them (`"{{ a }}key": 5` in config.variables is `1key` with -v a=1).
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [resolveInText(k, known, used), resolveKnownTemplates(v, known, used)]));
  return value;
}

/** The value of one template (`{{ a.b }}`) when its head is a known name. */
function lookupKnown(t: string, known: Readonly<Record<string, unknown>>, used: Set<string>): { hit: boolean; v?: unknown } {
  const name = t.replace(/[{}]/g, '').trim();
  const head = /^[$\w]+/.exec(name)?.[0] ?? '';
  if (!Object.prototype.hasOwnProperty.call(known, head)) return { hit: false };
  used.add(head);
  return { hit: true, v: lodashGet(known, name) };
}

/** Text with its known templates replaced: objects as JSON, everything else as text; unknown ones left as written. */
function resolveInText(text: string, known: Readonly<Record<string, unknown>>, used: Set<string>): string {
  return text.replace(ANY_TEMPLATE, (t) => {
    const { hit, v } = lookupKnown(t, known, used);
    return !hit ? t : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
  });
}

/**
 * The `--var` values with the templates of other `--var` names resolved, as `artillery run -v '{"a":1,"b":"{{ a }}"}'`
 * resolves them in config (b is 1): a load process gets the values in `config.variables`, where its own resolution
 * does not see `a`. One pass, as Artillery's. `used` collects the names read. Pure.
 */
export function resolveVarTemplates<V>(vars: Readonly<Record<string, V>>, used: Set<string>): Record<string, V> {
  return Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, resolveKnownTemplates(v, vars, used) as V]));
}

// lodash's random is what Artillery's $randomNumber calls (runner.ts).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const lodashRandom = require('lodash/random') as (min?: number, max?: number) => number;

/** Artillery's function-call template (engine_util.ts template): `{{ $randomNumber(1, 10) }}`, `{{ $randomString() }}`. */
const FUNCTION_CALL = /\{\{\s*\$([A-Za-z0-9_]+)\s*\(([A-Za-z0-9_,\s]*)\)\s*\}\}/g;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** The functions Artillery offers config templates (runner.ts contextFuncs), as it defines them. */
const CONFIG_FUNCTIONS: Readonly<Record<string, (...args: unknown[]) => string | number>> = {
  randomNumber: (min, max) => lodashRandom(min as number | undefined, max as number | undefined),
  randomString: (length = 10) => Array.from({ length: Number(length) || 0 }, () => ALPHABET.charAt((Math.random() * ALPHABET.length) | 0)).join(''),
};

/** A call's arguments as Artillery's parser reads them: numbers and true/false/null; any other name is undefined. */
function callArguments(text: string): unknown[] {
  if (text.trim() === '') return [];
  return text.split(',').map((a) => a.trim()).map((a) => (/^\d+$/.test(a) ? Number(a) : a === 'true' ? true : a === 'false' ? false : a === 'null' ? null : undefined));
}

/**
 * `{{ $randomString() }}` and `{{ $randomNumber(min, max) }}` in a user script's config, called once for the run.
 * Artillery resolves config templates once, before its workers start (util.ts resolveConfigTemplates), so one plain
 * `artillery run` gives every vuser the same `config.variables.room: "room-{{ $randomNumber(1, 9999) }}"` and one
 * `config.target`; each load process is its own `artillery run` and would draw its own value. Calls of other names
 * are left for Artillery, as written. Pure apart from the random draw.
 */
export function resolveConfigFunctions(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.replace(FUNCTION_CALL, (call, name: string, args: string) => {
      const fn = CONFIG_FUNCTIONS[name];
      return fn ? String(fn(...callArguments(args))) : call;
    });
  }
  if (Array.isArray(value)) return value.map(resolveConfigFunctions);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveConfigFunctions(v)]));
  return value;
}

// Two braces or three (`{{{ $dirname }}}`), as Artillery's renderVariables reads either.
const DIRNAME = /\{\{\{?\s*\$dirname\s*\}?\}\}/g;
const SCENARIO_FILE = /\{\{\{?\s*\$scenarioFile\s*\}?\}\}/g;

/**
 * `{{ $dirname }}` (the script's folder) and `{{ $scenarioFile }}` (the script), which Artillery resolves in config
 * before the run. A load process runs a copy of the script from its own folder, so its Artillery would resolve them
 * to that: in the processor and payload paths (which the rig checks before the run, relative paths resolving from
 * the script's folder) they become `.` and `./<script>`; elsewhere `$scenarioFile` becomes `{{ $dirname }}/<script>`
 * and the agent resolves `$dirname` to the script's folder where it runs (load-generators/lib/agent-slice.js). Pure.
 */
export function resolveScriptPlace<C extends Record<string, unknown>>(config: C, scriptName: string): C {
  const deep = (v: unknown, inPath: boolean): unknown => {
    if (typeof v === 'string') return inPath ? v.replace(DIRNAME, '.').replace(SCENARIO_FILE, `./${scriptName}`) : v.replace(SCENARIO_FILE, `{{ $dirname }}/${scriptName}`);
    if (Array.isArray(v)) return v.map((x) => deep(x, inPath));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep(x, inPath)]));
    return v;
  };
  const out = deep(config, false) as Record<string, unknown>;
  // The target is left as written: it is chosen before the run (scripts/target-choice.ts), which refuses a file path
  // in it naming the template the script wrote (`{{ $scenarioFile }}` would read as `{{ $dirname }}/<script>` here).
  if (config.target !== undefined) out.target = config.target;
  if (typeof config.processor === 'string') out.processor = deep(config.processor, true);
  const withPath = (p: unknown) => (p && typeof p === 'object' && typeof (p as { path?: unknown }).path === 'string' ? { ...(p as Record<string, unknown>), path: deep((p as { path: string }).path, true) } : p);
  if (Array.isArray(out.payload)) out.payload = out.payload.map(withPath);
  else if (out.payload !== undefined) out.payload = withPath(out.payload);
  return out as C;
}

/**
 * The variables `$dirname` (the script's folder) and `$scenarioFile` (the script) that Artillery gives every vuser
 * (runner.ts createContext; a relative formData `fromFile` resolves from `$scenarioFile`'s folder, engine_http.ts). A
 * load process runs a copy of the script from its own spool folder, where its Artillery would give that folder: they
 * are set in `config.variables` as templates the agent resolves to the script's folder where it runs
 * (load-generators/lib/agent-slice.js), unless the script defines a variable of that name itself (its own wins, as in
 * Artillery). Plain `artillery run` gives `$dirname` as the folder was typed (`.` from inside it); here it is absolute,
 * as a load process does not run from there. Pure.
 */
export function withScriptPlaceVariables<C extends { variables?: Record<string, unknown> }>(config: C, scriptName: string): C {
  return { ...config, variables: { $dirname: '{{ $dirname }}', $scenarioFile: `{{ $dirname }}/${scriptName}`, ...(config.variables ?? {}) } };
}

/**
 * A phase value still a template once the known ones are resolved (`arrivalRate: "{{ rate }}"` without
 * `--var rate=…`): the rig must split it before the run, so it is refused naming the way to give it.
 */
export function assertPhasesResolved(phases: unknown, name: string, environment?: ChosenEnvironment): void {
  if (!Array.isArray(phases)) return;
  phases.forEach((p: unknown, i) => {
    if (!p || typeof p !== 'object') return;
    for (const [k, v] of Object.entries(p as Record<string, unknown>)) {
      const t = typeof v === 'string' ? /\{\{\s*([^}]*?)\s*\}\}/.exec(v) : null;
      if (!t || k === 'name') continue;
      const what = t[1] as string;
      const how = /^[A-Za-z_][\w]*$/.test(what) ? `pass --var ${what}=VALUE (as artillery run -v '{"${what}": …}' sets it), ` : '';
      // Named where it is written: -e merges the environment's phases element by element (lodash merge).
      const where = `config.phases[${i}]`;
      const err = new PlanError('invalid', `${where}.${k} is ${JSON.stringify(v)}, which is not known before the run; ${how}use {{ $env.NAME }} with NAME exported, or write the value`, undefined, { index: i, field: k, where });
      throw new UsageError(phaseRefusal(name, err, environment));
    }
  });
}
