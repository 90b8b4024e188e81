// @ts-check
'use strict';
/**
 * The agent's slice loader: reads generators/<id>/slice.json, the scenario secrets (AWS: SSM Parameter
 * Store), and turns each slice entry into the Artillery script one load process runs.
 */
const path = require('node:path');
const { createRequire } = require('node:module');
const { generatorKeys } = require('./run-protocol');
const { loadSsmSecrets } = require('./secrets');
const { tuneScript } = require('./script-tuning');
const { sharePayloads } = require('./payload-share');

/**
 * @typedef {import('./run-protocol').LoadProcessSpec} LoadProcessSpec
 * @typedef {import('./run-protocol').Slice} Slice
 */

/** The slice could not be used; the message says why (exit 3), `reason` the same without the file it is about. */
class SliceError extends Error {
  /** @param {string} message @param {string} [reason] */
  constructor(message, reason) {
    super(message);
    this.reason = reason ?? message;
  }
}

/** Whether a script's processor is TypeScript, which Artillery (and the rig) compile before loading. @param {unknown} processor */
const isTypescriptProcessor = (processor) => typeof processor === 'string' && path.extname(processor) === '.ts';

/**
 * The slice, plus the secrets for the load processes' environment and the notes the run output shows once.
 * @param {import('./run-store').RunStore} store @param {string} gid
 * @param {{ secretsPath?: string }} env RIG_SECRETS_SSM_PATH, read at the entry point
 * @returns {Promise<{ slice: Slice, secrets: Record<string, string>, notes: string[] }>}
 */
async function loadSlice(store, gid, env) {
  const key = generatorKeys(gid).slice;
  const text = await store.get(key);
  if (!text) throw new SliceError(`no slice at ${store.location}/${key}`);
  /** @type {Slice} */
  const slice = JSON.parse(text);
  /** @type {string[]} */
  const notes = [];
  if (!env.secretsPath) return { slice, secrets: {}, notes };
  try {
    const read = await loadSsmSecrets(env.secretsPath);
    if (read.note) notes.push(read.note);
    return { slice, secrets: read.env, notes };
  } catch (err) {
    // Said in the run store too, so the orchestrator's "stopped before it was ready" names the cause.
    const message = /** @type {Error} */ (err).message;
    await store.put(generatorKeys(gid).error, JSON.stringify({ at: Date.now(), message })).catch(() => undefined);
    throw new SliceError(message);
  }
}

/**
 * `{{ $dirname }}` in the config, the script's folder where this agent has it: Artillery resolves it before the run
 * (util.ts resolveConfigTemplates), but a load process runs its copy of the script from its own spool folder.
 * @param {unknown} v @param {string} scriptDir @returns {unknown}
 */
function withDirname(v, scriptDir) {
  // Two braces or three, as Artillery's renderVariables reads either (scripts/config-env.ts DIRNAME).
  if (typeof v === 'string') return v.replace(/\{\{\{?\s*\$dirname\s*\}?\}\}/g, () => scriptDir);
  if (Array.isArray(v)) return v.map((x) => withDirname(x, scriptDir));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withDirname(x, scriptDir)]));
  return v;
}

/**
 * Makes every path the script names (processor, payload files) absolute against the scenario's folder, and
 * `{{ $dirname }}` in its config that folder.
 * @param {any} script @param {string} scriptDir
 */
function resolveScriptPaths(script, scriptDir) {
  if (script.config) script.config = withDirname(script.config, scriptDir);
  const cfg = script.config || {};
  if (typeof cfg.processor === 'string') cfg.processor = path.resolve(scriptDir, cfg.processor);
  const payloads = Array.isArray(cfg.payload) ? cfg.payload : cfg.payload ? [cfg.payload] : [];
  for (const p of payloads) if (p && typeof p.path === 'string') p.path = path.resolve(scriptDir, p.path);
  return script;
}

/**
 * A TypeScript processor bundled for one load process into its own spool, with Artillery 2.0.34's own esbuild call
 * (lib/util/prepare-test-execution-plan.js: bundle, node, cjs, inline source map, `config.bundling.external`).
 * Left to Artillery, every load process of a generator bundles into the same dist/ beside the script at once (one
 * may read a half-written file) and deletes it when it exits. On AWS `script` names the generator's copy of the
 * script folder, so __dirname is the dist/ folder plain Artillery would use there.
 * @param {any} script with paths already absolute @param {string} spool
 * @returns {false | { metafile: any }} false when the processor is not TypeScript; else esbuild's metafile (the files
 *   it bundled, paths relative to the working folder), which the pre-run check reads
 * @throws {SliceError} naming the file and the compiler's first line when it does not compile
 */
function bundleTypescriptProcessor(script, spool) {
  const cfg = script.config || {};
  if (!isTypescriptProcessor(cfg.processor)) return false;
  const esbuild = createRequire(require.resolve('artillery/package.json'))('esbuild-wasm');
  const name = `${path.basename(cfg.processor, '.ts')}.js`;
  const outfile = path.join(spool, 'processor', name);
  const external = ['@playwright/test', ...((cfg.bundling && Array.isArray(cfg.bundling.external) && cfg.bundling.external) || [])];
  // __dirname, __filename and require() are what plain Artillery's bundle has (<processor's folder>/dist/<name>.js),
  // so a processor reading a file beside it finds it, and a package left external (config.bundling.external) is
  // found in node_modules beside the script; nothing is written there.
  const plainDir = path.join(path.dirname(cfg.processor), 'dist');
  const plainFile = path.join(plainDir, name);
  const define = { __dirname: JSON.stringify(plainDir), __filename: JSON.stringify(plainFile) };
  const banner = { js: `var require = require('node:module').createRequire(${JSON.stringify(plainFile)});` };
  let result;
  try {
    result = esbuild.buildSync({ entryPoints: [cfg.processor], outfile, bundle: true, platform: 'node', format: 'cjs', sourcemap: 'inline', external, define, banner, logLevel: 'silent', metafile: true });
  } catch (err) {
    const reason = `does not compile: ${String(/** @type {Error} */ (err).message).split('\n').slice(0, 2).join(' ')}`;
    throw new SliceError(`TypeScript processor ${cfg.processor} ${reason}`, reason);
  }
  cfg.processor = outfile;
  return { metafile: result.metafile };
}

/**
 * Load process k's script: paths resolved, tuned, payloads shared, the rig plugin pointed at its spool.
 * @param {Slice} slice @param {number} k @param {string} spool
 * @param {{ targetUrl?: string, warn: (line: string) => void }} env
 */
function processScript(slice, k, spool, env) {
  const spec = /** @type {LoadProcessSpec} */ (slice.processes[k]);
  const { script, changed } = tuneScript(resolveScriptPaths(JSON.parse(JSON.stringify(spec.script)), slice.scriptDir));
  // The slice stores the target with its credentials redacted; the real URL comes only in the environment.
  if (slice.targetFromEnv && env.targetUrl) script.config.target = env.targetUrl;
  changed.push(...sharePayloads(script, spool));
  if (bundleTypescriptProcessor(script, spool)) changed.push('TypeScript processor bundled into this process\'s spool (source maps on)');
  if (changed.length) env.warn(`agent: p${k}: ${changed.join('; ')}`);
  script.config.plugins = { ...(script.config.plugins || {}), rig: { spoolDir: spool } };
  return script;
}

module.exports = { SliceError, bundleTypescriptProcessor, isTypescriptProcessor, loadSlice, processScript, resolveScriptPaths };
