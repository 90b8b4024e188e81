/**
 * Checks a script before any generator starts, so a broken one is bad input (exit 2, nothing started)
 * instead of a run whose vusers "complete" without doing anything (Artillery skips an undefined
 * `function:` step silently): the processor file exists and loads, every function the script names
 * (steps, hooks, ws `connect` functions) is exported by it, and every payload file exists. Every
 * problem is reported, each with the file and the step.
 *
 * The processor is loaded in a short-lived child Node process, never in the orchestrator: user code
 * (top-level side effects, a crash, an endless loop) cannot take the rig with it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { enginesUsed, scenarioWeight } from './engines';
import { UsageError } from './errors';
import { runProbe } from './probe-child';
import { stepKindProblems } from './step-kinds';
import { isRecord } from './core/is-record';
import type { ArtilleryScript, LoadedScenario } from './scenario';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { bundleTypescriptProcessor } = require('../load-generators/lib/agent-slice') as {
  bundleTypescriptProcessor(script: { config: Record<string, unknown> }, spool: string): false | { metafile: Parameters<typeof bundledLoads>[0] };
};

/** A function the script names, and where. */
export interface FunctionRef {
  readonly name: string;
  /** e.g. `scenario "join" step 3 (function)`. */
  readonly where: string;
}

const HOOK_KEYS = ['beforeRequest', 'afterResponse', 'beforeScenario', 'afterScenario'] as const;
const REQUEST_KEYS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

function names(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/** Every function a flow names: `function` steps, request hooks, ws `connect: { function }`, nested loops. */
function flowFunctions(flow: unknown, where: string, out: FunctionRef[]): void {
  if (!Array.isArray(flow)) return;
  flow.forEach((step: unknown, i) => {
    if (!step || typeof step !== 'object') return;
    const s = step as Record<string, unknown>;
    const at = `${where} step ${i + 1}`;
    for (const n of names(s.function)) out.push({ name: n, where: `${at} (function)` });
    const connect = s.connect as { function?: unknown } | undefined;
    if (connect && typeof connect === 'object') for (const n of names(connect.function)) out.push({ name: n, where: `${at} (connect.function)` });
    for (const key of [...REQUEST_KEYS, 'emit']) {
      const req = s[key] as Record<string, unknown> | undefined;
      if (!req || typeof req !== 'object' || Array.isArray(req)) continue;
      for (const hook of HOOK_KEYS) for (const n of names(req[hook])) out.push({ name: n, where: `${at} (${key}.${hook})` });
    }
    if (s.loop !== undefined) flowFunctions(s.loop, `${at} loop`, out);
    if (s.parallel !== undefined) flowFunctions(s.parallel, `${at} parallel`, out);
  });
}

/** Every function the script names, with where. Pure. */
export function referencedFunctions(script: LoadedScenario['script']): FunctionRef[] {
  const out: FunctionRef[] = [];
  const ws = (script.config.ws ?? {}) as Record<string, unknown>;
  for (const n of names(ws.connect && typeof ws.connect === 'object' ? (ws.connect as Record<string, unknown>).function : undefined)) {
    out.push({ name: n, where: 'config.ws.connect.function' });
  }
  for (const hook of ['before', 'after'] as const) {
    const section = script[hook] as { flow?: unknown } | undefined;
    if (section && typeof section === 'object') flowFunctions(section.flow, `${hook}`, out);
  }
  (script.scenarios as Array<Record<string, unknown>>).forEach((sc, i) => {
    if (!sc || typeof sc !== 'object') return;
    const label = `scenario ${typeof sc.name === 'string' ? JSON.stringify(sc.name) : i + 1}`;
    for (const hook of HOOK_KEYS) for (const n of names(sc[hook])) out.push({ name: n, where: `${label} (${hook})` });
    flowFunctions(sc.flow, label, out);
  });
  return out;
}

/** A module a file of the user's (not a package's) asked for while the processor loaded: `from` loaded `file`. */
export interface ModuleLoad {
  readonly specifier: string;
  readonly file: string;
  readonly from: string;
}

const PROCESSOR_PROBE = path.join(__dirname, 'processor-probe.js');

/**
 * The functions a processor exports and the modules it loads, read in a child process as Artillery would load it
 * (scripts/processor-probe.js), or why it failed to load. A `require()` here once refused ESM processors that plain
 * `artillery run` runs (`export default { fn }`, a top-level await).
 */
export function processorExports(file: string): { exports: string[]; loads: ModuleLoad[] } | { error: string } {
  // The answer comes in a file of its own; what the processor prints at load time goes nowhere (stdout ignored,
  // stderr kept for a load error's stack, with room for a processor that prints a lot there too).
  // Named with this process's id: whose folder it is, when several processes check scripts at once.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rig-processor-probe-${process.pid}-`));
  const answer = path.join(dir, 'answer.json');
  try {
    const failed = runProbe(PROCESSOR_PROBE, [file, answer], path.dirname(file), dir);
    if (failed) return { error: failed };
    if (!fs.existsSync(answer)) return { error: 'the check could not read its exports (did it exit at load time?)' };
    const r = JSON.parse(fs.readFileSync(answer, 'utf8')) as { exports: string[]; loads: ModuleLoad[] };
    return { exports: r.exports, loads: r.loads };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** What a TypeScript processor's own files import, from esbuild's metafile (paths relative to `cwd`). */
function bundledLoads(metafile: { inputs: Record<string, { imports?: Array<{ path: string; external?: boolean; original?: string }> }> }, cwd: string): ModuleLoad[] {
  const out: ModuleLoad[] = [];
  for (const [input, { imports = [] }] of Object.entries(metafile.inputs)) {
    const from = path.resolve(cwd, input);
    if (/[\\/]node_modules[\\/]/.test(from)) continue;
    for (const i of imports) if (!i.external) out.push({ specifier: i.original ?? i.path, file: path.resolve(cwd, i.path), from });
  }
  return out;
}

/** Engines Artillery 2.0.34 ships inside its runner (runner.js `Engines`); any other needs `config.engines.<name>`. */
const RUNNER_ENGINES = new Set(['http', 'ws', 'socketio']);

/**
 * Engines the script's scenarios and before/after sections use that Artillery would not find, each named with
 * where and the fix. Artillery's rule (runner.js): a scenario's engine is `engine`, else `config.engine`, else
 * http; a name other than http, ws and socketio must be listed in `config.engines` and `artillery-engine-<name>`
 * must load, or the first vuser throws "unknown engine" (a crashed load process, not a refused script).
 * `installed` says whether `artillery-engine-<name>` resolves.
 */
export function engineProblems(script: LoadedScenario['script'], installed: (name: string) => boolean): string[] {
  const config = script.config as Record<string, unknown>;
  const declared = config.engines && typeof config.engines === 'object' ? Object.keys(config.engines) : [];
  const problems: string[] = [];
  for (const [name, wheres] of enginesUsed(script)) {
    if (RUNNER_ENGINES.has(name)) continue;
    const at = wheres.join(', ');
    if (!installed(name)) problems.push(`${at} uses engine "${name}", which is not installed (no artillery-engine-${name}); install it (npm install artillery-engine-${name}) or fix the name (built in: http, ws, socketio, playwright)`);
    else if (!declared.includes(name)) problems.push(`${at} uses engine "${name}" but config.engines has no "${name}" entry; add config.engines.${name}: {} as Artillery requires`);
  }
  return problems;
}

/** Each `config.plugins` entry with the module Artillery loads for it: `<scope or artillery-plugin-><name>` (load-plugins.js). */
function pluginModules(script: LoadedScenario['script']): Array<{ readonly name: string; readonly module: string }> {
  const config = script.config as Record<string, unknown>;
  const plugins = config.plugins && typeof config.plugins === 'object' ? (config.plugins as Record<string, unknown>) : {};
  return Object.entries(plugins).map(([name, options]) => {
    const scope = (options && typeof options === 'object' ? (options as { scope?: unknown }).scope : undefined) ?? config.pluginsScope;
    return { name, module: `${typeof scope === 'string' && scope ? scope : 'artillery-plugin-'}${name}` };
  });
}

/**
 * Why Artillery could pick no scenario, or undefined: it reads each `weight` as parseInt of the value (absent: 1;
 * not a number: 0) and picks from weight × 100 slots, so when every weight is 0 or less the first vuser throws
 * (runner.js, weighted-pick.js). A templated weight (`{{ … }}`) is only known at run time and is not judged.
 */
export function weightProblem(script: LoadedScenario['script']): string | undefined {
  const weights = script.scenarios.map(scenarioWeight);
  if (weights.some((w) => w === undefined || w > 0)) return undefined;
  return `every scenario has a weight of 0 or less (${weights.join(', ')}), so Artillery can pick none; give at least one scenario a weight above 0 (or drop weight: it defaults to 1)`;
}

/**
 * Notes for `config.plugins` entries Artillery will not find: it looks for `<scope or artillery-plugin-><name>`
 * beside itself, among its bundled plugins and in ARTILLERY_PLUGIN_PATH (load-plugins.js) and, when none
 * loads, warns and runs without the plugin. The rig runs the same way and says so before the run. `found`
 * says whether a module name resolves.
 */
export function missingPluginNotes(script: LoadedScenario['script'], found: (module: string) => boolean): string[] {
  return pluginModules(script)
    .filter(({ module }) => !found(module))
    .map(({ name, module }) => `note: config.plugins.${name}: ${module} is not installed here, so Artillery runs the script without it (plain \`artillery run\` warns the same); npm install ${module} to use it`);
}

/**
 * The modules a script has Artillery load beyond its own core: `artillery-engine-<name>` for each engine other than
 * http, ws and socketio, and each `config.plugins` entry's module, with where the script asks for it.
 */
export function requiredModules(script: LoadedScenario['script']): Array<{ readonly where: string; readonly module: string }> {
  const engines = [...enginesUsed(script).keys()].filter((name) => !RUNNER_ENGINES.has(name));
  return [
    ...engines.map((name) => ({ where: `engine "${name}"`, module: `artillery-engine-${name}` })),
    ...pluginModules(script).map(({ name, module }) => ({ where: `config.plugins.${name}`, module })),
  ];
}

/**
 * Whether Artillery would find a module by name, the way its engine and plugin loaders look (runner.js,
 * load-plugins.js, builtin-packages.js): installed beside Artillery, bundled in it (dist/builtin-packages), or,
 * for plugins, in a folder of ARTILLERY_PLUGIN_PATH (`extraDirs`).
 */
export function artilleryModuleFinder(extraDirs: readonly string[] = []): (module: string) => boolean {
  const artilleryDir = path.dirname(require.resolve('artillery/package.json'));
  const dirs = [path.join(artilleryDir, 'dist', 'builtin-packages'), ...extraDirs];
  return (module) => {
    try {
      require.resolve(module, { paths: [artilleryDir] });
      return true;
    } catch {
      return dirs.some((d) => fs.existsSync(path.join(d, module)));
    }
  };
}

/** Whether a module ships inside Artillery's own package (dist/builtin-packages), so every install of it has it. */
export function bundledInArtillery(module: string): boolean {
  return fs.existsSync(path.join(path.dirname(require.resolve('artillery/package.json')), 'dist', 'builtin-packages', module));
}

/** {@link artilleryModuleFinder} for plugins: ARTILLERY_PLUGIN_PATH's folders too. */
export function artilleryPluginFinder(pluginPath: string | undefined): (module: string) => boolean {
  return artilleryModuleFinder(pluginPath ? pluginPath.split(':').filter(Boolean) : []);
}

/** Whether `artillery-engine-<name>` loads the way Artillery resolves it: installed beside it, or bundled in it. */
export function artilleryEngineInstalled(name: string): boolean {
  return artilleryModuleFinder()(`artillery-engine-${name}`);
}

/**
 * The file Artillery loads for `config.processor` (runner.js loadProcessor): the path resolved with CommonJS rules
 * first (`./proc` finds proc.js, a folder its index.js), else the path as written.
 */
export function resolveProcessor(file: string): string {
  if (/\.ts$/.test(file)) return file;
  try {
    return require.resolve(file);
  } catch {
    return file;
  }
}

/** Why a path a script names cannot be read as a file ("no such file", "a folder, not a file"), or undefined. */
function notAFile(file: string): string | undefined {
  if (!fs.existsSync(file)) return 'no such file';
  return fs.statSync(file).isDirectory() ? 'a folder, not a file' : undefined;
}

/** The files a script names (its processor, resolved as Artillery resolves it, and its payloads), each with where. */
export function namedFiles(scenario: LoadedScenario): Array<{ readonly where: string; readonly file: string }> {
  const { config } = scenario.script;
  const payloads = Array.isArray(config.payload) ? config.payload : config.payload ? [config.payload] : [];
  const out: Array<{ where: string; file: string }> = [];
  if (typeof config.processor === 'string') out.push({ where: `config.processor ${config.processor}`, file: resolveProcessor(path.resolve(scenario.dir, config.processor)) });
  payloads.forEach((p: unknown, i) => {
    const at = (p as { path?: unknown })?.path;
    if (typeof at === 'string') out.push({ where: `config.payload${Array.isArray(config.payload) ? `[${i}]` : ''}.path ${at}`, file: path.resolve(scenario.dir, at) });
  });
  for (const f of formDataFiles(scenario.script)) out.push({ where: `${f.where} ${f.fromFile}`, file: path.resolve(scenario.dir, f.fromFile) });
  return out;
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

/**
 * The files a script's HTTP requests upload (`formData: { field: { fromFile: path } }`), as written (templated ones
 * left out: known only per vuser), with where: Artillery's HTTP engine reads each from the script's folder
 * (engine_http.ts: `path.resolve(dirname($scenarioFile), fromFile)`) at every request. Steps in loops and parallel
 * blocks, and in before/after sections, included.
 */
function formDataFiles(script: ArtilleryScript): Array<{ where: string; fromFile: string }> {
  const out: Array<{ where: string; fromFile: string }> = [];
  const walk = (steps: unknown, at: string) => {
    if (!Array.isArray(steps)) return;
    steps.forEach((step: unknown, i) => {
      if (!isRecord(step)) return;
      const here = `${at}[${i}]`;
      for (const block of ['loop', 'parallel']) walk(step[block], `${here}.${block}`);
      for (const m of HTTP_METHODS) {
        const req = step[m];
        const form = isRecord(req) && isRecord(req.formData) ? req.formData : undefined;
        for (const [field, v] of Object.entries(form ?? {})) {
          if (isRecord(v) && typeof v.fromFile === 'string' && !v.fromFile.includes('{{')) out.push({ where: `${here}.${m}.formData.${field}.fromFile`, fromFile: v.fromFile });
        }
      }
    });
  };
  script.scenarios.forEach((sc, i) => walk(isRecord(sc) ? sc.flow : undefined, `scenarios[${i}].flow`));
  for (const hook of ['before', 'after'] as const) walk(isRecord(script[hook]) ? (script[hook] as Record<string, unknown>).flow : undefined, `${hook}.flow`);
  return out;
}

/** The files a script reads (itself, its processor, its payloads), as absolute paths; what the run must never write over. */
export function scriptInputFiles(scenario: LoadedScenario): string[] {
  return [scenario.file, ...namedFiles(scenario).map((f) => f.file)];
}

/**
 * Checks processor, functions and payload files; throws one {@link UsageError} listing every problem. Returns the
 * modules the processor loaded (what an AWS run must ship or find on the generators: scripts/generator-modules.ts).
 */
export function checkScriptFiles(scenario: LoadedScenario): { loads: ModuleLoad[] } {
  const problems: string[] = [];
  const loads: ModuleLoad[] = [];
  const { config } = scenario.script;
  // Paths as the script writes them, and absolute where a file was looked for: never relative to the rig's folder.
  const named = `config.processor ${String(config.processor)}`;
  const refs = referencedFunctions(scenario.script);
  let exported: string[] | undefined;
  if (typeof config.processor === 'string') {
    const file = resolveProcessor(path.resolve(scenario.dir, config.processor));
    const missing = notAFile(file);
    if (missing) {
      problems.push(`${named}: ${missing} (${file}); fix the path (relative to the script)`);
    } else if (!/\.ts$/.test(file)) {
      // .js, .cjs, .mjs or whatever else Artillery import()s.
      const r = processorExports(file);
      if ('error' in r) problems.push(`${named} fails to load: ${r.error}`);
      else {
        exported = r.exports;
        loads.push(...r.loads);
      }
    } else {
      // Compiled as every load process will compile it (load-generators/lib/agent-slice.js), into a folder of its own.
      const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-ts-check-'));
      try {
        const probe = { config: { ...config, processor: file } };
        const bundled = bundleTypescriptProcessor(probe, scratch);
        if (bundled) loads.push(...bundledLoads(bundled.metafile, process.cwd()));
        const r = processorExports(probe.config.processor);
        if ('error' in r) problems.push(`${named} fails to load: ${r.error}`);
        else {
          exported = r.exports;
          // What the bundle still requires at run time (its externals), as asked by the TypeScript file.
          loads.push(...r.loads.map((l) => ({ ...l, from: file })));
        }
      } catch (err) {
        problems.push(`${named}: ${(err as Error & { reason?: string }).reason ?? (err as Error).message}`);
      } finally {
        fs.rmSync(scratch, { recursive: true, force: true });
      }
    }
  } else if (refs.length > 0) {
    problems.push(`${refs[0]!.where} names function "${refs[0]!.name}" but the script has no config.processor; add the processor file that exports it`);
  }
  if (exported) {
    for (const ref of refs) {
      if (!exported.includes(ref.name)) {
        problems.push(`${ref.where}: function "${ref.name}" is not exported by ${String(config.processor)} (exports: ${exported.join(', ') || 'none'})`);
      }
    }
  }
  const payloads = Array.isArray(config.payload) ? config.payload : config.payload ? [config.payload] : [];
  payloads.forEach((p: unknown, i) => {
    const spec = p as { path?: unknown };
    const where = `config.payload${Array.isArray(config.payload) ? `[${i}]` : ''}.path`;
    if (typeof spec?.path !== 'string') {
      problems.push(`${where} is missing; name the CSV file (relative to the script)`);
      return;
    }
    const file = path.resolve(scenario.dir, spec.path);
    const missing = notAFile(file);
    if (missing) problems.push(`${where} ${spec.path}: ${missing} (${file}); fix the path (relative to the script)`);
  });
  problems.push(...engineProblems(scenario.script, artilleryEngineInstalled));
  problems.push(...stepKindProblems(scenario.script));
  const weights = weightProblem(scenario.script);
  if (weights) problems.push(weights);
  if (problems.length > 0) throw new UsageError(`${scenario.name}: ${problems.join('; ')}`);
  return { loads };
}
