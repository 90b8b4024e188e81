#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Starts a TypeScript entry of the rig (`npm run loadtest`, `report`, `bench`, `leftovers`) without paying
 * for TypeScript at every start:
 *
 *   node scripts/launch.js scripts/cli.ts [flags]     run an entry
 *   node scripts/launch.js --warm                      transpile every scripts/ and lib/ .ts into the cache (npm's
 *                                                      `prepare`, i.e. at `npm ci` / `npm install`)
 *
 * Each .ts module is transpiled once with the project's own TypeScript (`transpileModule`, what
 * `ts-node --transpile-only` did at every start) and its JavaScript kept in a cache keyed by a hash of the
 * source, the compiler options and TypeScript's version. A start whose sources did not change reads the
 * JavaScript and never loads TypeScript (~0.5 s of CPU saved at every start, ~2 s with ts-node's own
 * per-file work); an edited file is transpiled again on its next start, so a cache is never stale.
 * Modules keep their .ts path as their filename, so `__dirname` and relative `require`s of the .js
 * files under load-generators/ stay what they are in the source tree (a `dist/` build would move them).
 *
 * It also turns on V8's compile cache (NODE_COMPILE_CACHE, Node ≥ 22.1) for this process and, through the
 * environment, for everything the run starts (agents, Artillery load processes, the reference target):
 * later starts skip compiling the JavaScript of Artillery and its dependencies. NODE_COMPILE_CACHE set by
 * the user wins; RIG_COMPILE_CACHE=0 turns it off.
 *
 * Why not tsx or @swc-node/register: both bring a second compiler as a native binary (esbuild, swc) whose
 * output can differ from tsc's, and still re-check or re-transpile on start; this is the project's pinned
 * TypeScript and ~100 lines.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
/** Bumped when the way this file transpiles changes, so older cache entries are not reused. */
const FORMAT = '1';

/**
 * The cache folder: RIG_LAUNCH_CACHE when set, else node_modules/.cache/rig (git-ignored with node_modules),
 * else the OS temp folder; none when nothing is writable (then every start transpiles, as ts-node did).
 */
function cacheDir() {
  const candidates = process.env.RIG_LAUNCH_CACHE
    ? [process.env.RIG_LAUNCH_CACHE]
    : [path.join(ROOT, 'node_modules', '.cache', 'rig'), path.join(require('node:os').tmpdir(), `rig-launch-cache-${process.getuid?.() ?? 'user'}`)];
  for (const dir of candidates) {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      fs.accessSync(dir, fs.constants.W_OK);
      // The cache holds code this process runs: only a folder of this user's that no one else may write to.
      const st = fs.statSync(dir);
      if (process.getuid && (st.uid !== process.getuid() || (st.mode & 0o022) !== 0)) continue;
      return dir;
    } catch {
      /* not writable: try the next */
    }
  }
  return undefined;
}

/** The compiler options of tsconfig.json that matter for emit, made to emit CommonJS with inline source maps. */
function emitOptions() {
  const raw = JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')).compilerOptions || {};
  const { target, module, esModuleInterop, resolveJsonModule, useDefineForClassFields, experimentalDecorators } = raw;
  return { target, module, esModuleInterop, resolveJsonModule, useDefineForClassFields, experimentalDecorators, inlineSourceMap: true, inlineSources: false };
}

/**
 * A transpiler with a content-addressed cache. TypeScript is loaded only on the first miss.
 * @param {string | undefined} dir
 */
function createTranspiler(dir) {
  const options = emitOptions();
  const tsVersion = JSON.parse(fs.readFileSync(require.resolve('typescript/package.json'), 'utf8')).version;
  const salt = `${FORMAT}\0${tsVersion}\0${JSON.stringify(options)}\0`;
  /** @type {any} */
  let ts;
  /**
   * @param {string} source @param {string} filename
   * @returns {string} the JavaScript
   */
  return function transpile(source, filename) {
    const key = crypto.createHash('sha256').update(salt).update(filename).update('\0').update(source).digest('hex').slice(0, 40);
    const file = dir ? path.join(dir, `${key}.js`) : undefined;
    if (file) {
      try {
        return fs.readFileSync(file, 'utf8');
      } catch {
        /* a miss: transpile below */
      }
    }
    ts ??= require('typescript');
    const compilerOptions = ts.convertCompilerOptionsFromJson(options, ROOT).options;
    const js = ts.transpileModule(source, { compilerOptions, fileName: filename }).outputText;
    if (file) {
      // tmp + rename: processes starting at the same time never read a half-written entry.
      const tmp = `${file}.${process.pid}.tmp`;
      try {
        fs.writeFileSync(tmp, js);
        fs.renameSync(tmp, file);
      } catch {
        fs.rmSync(tmp, { force: true });
      }
    }
    return js;
  };
}

/** Folders whose TypeScript the CLI and the other npm scripts may load (bin/ and target-stack/ are the CDK app's). */
const WARM_FOLDERS = ['scripts', 'lib'];

/** Every .ts file under `dir` (declaration files excluded). @param {string} dir @returns {string[]} */
function tsFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

function main() {
  const dir = cacheDir();
  const transpile = createTranspiler(dir);
  const [entry, ...rest] = process.argv.slice(2);
  if (entry === '--warm') {
    // scripts/ and lib/ (the CDK-side constants the CLI shares: metric names, instance paths).
    const files = WARM_FOLDERS.flatMap((f) => tsFiles(path.join(ROOT, f)));
    for (const f of files) transpile(fs.readFileSync(f, 'utf8'), f);
    process.stderr.write(`launch: ${files.length} TypeScript files of ${WARM_FOLDERS.map((f) => `${f}/`).join(' and ')} transpiled into ${dir ?? '(no writable cache folder)'}\n`);
    return;
  }
  if (!entry) {
    process.stderr.write('usage: node scripts/launch.js <entry.ts> [args…] | --warm\n');
    process.exitCode = 2;
    return;
  }
  if (dir && process.env.RIG_COMPILE_CACHE !== '0') {
    process.env.NODE_COMPILE_CACHE ??= path.join(dir, 'v8');
    Module.enableCompileCache?.(process.env.NODE_COMPILE_CACHE);
  }
  process.setSourceMapsEnabled(true);
  // The same hook ts-node registers: `.ts` becomes resolvable and loads as transpiled CommonJS.
  /** @type {any} */ (Module)._extensions['.ts'] = (/** @type {any} */ mod, /** @type {string} */ filename) => {
    mod._compile(transpile(fs.readFileSync(filename, 'utf8'), filename), filename);
  };
  const file = path.resolve(entry);
  process.argv = [process.argv[0] ?? process.execPath, file, ...rest];
  // A Ctrl-C while the entry loads its modules is kept for it (scripts/early-interrupt.js), not lost.
  const early = require('./early-interrupt');
  early.listen();
  // Loaded as the main module (what `node file` and ts-node do), so `require.main === module` holds in the entry.
  /** @type {any} */ (Module)._load(file, null, true);
  early.release();
}

main();
