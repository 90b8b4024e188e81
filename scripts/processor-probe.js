// @ts-check
'use strict';
/**
 * Loads a processor the way Artillery 2.0.34 does (core/runner.js loadProcessor) and says what it exports and
 * what it loaded. Run in its own short-lived Node process by scripts/script-check.ts, never in the
 * orchestrator: user code (top-level side effects, a crash, an endless loop) cannot take the rig with it.
 *
 *   node scripts/processor-probe.js <processor file> <answer file>
 *
 * Writes the answer file: JSON `{ "exports": [names of functions], "loads": [{ "specifier", "file", "from" }] }`.
 * A file, not stdout: a processor that prints a lot at load time leaves writes to a pipe queued, and the exit that
 * follows the answer dropped them, the answer with them (a check that refused a processor plain Artillery loads).
 * `loads` lists every module a file outside node_modules asked for while the processor loaded (CommonJS
 * `require` and ESM `import` alike, read through Node's module.registerHooks, Node ≥ 22.15): a file path, or the
 * path of the package file it resolved to. Node's built-ins are left out. A module loaded later (a `require`
 * inside a step function) is not seen. On a load error: its stack on stderr, exit 1.
 */
const fs = require('node:fs');
const Module = require('node:module');
const { fileURLToPath, pathToFileURL } = require('node:url');


/** @type {Array<{ specifier: string, file: string, from: string }>} */
const loads = [];
const inPackage = (/** @type {string} */ file) => /[\\/]node_modules[\\/]/.test(file);
const asPath = (/** @type {string | undefined} */ url) => (url && url.startsWith('file:') ? fileURLToPath(url) : undefined);

let file = process.argv[2] ?? '';
const answerFile = process.argv[3] ?? '';
// Resolved with CommonJS rules first (an extensionless path, a folder's index.js), else the path as given.
try {
  file = require.resolve(file);
} catch {
  /* imported as written */
}

/** @type {any} */ (Module).registerHooks?.({
  resolve(/** @type {string} */ specifier, /** @type {{ parentURL?: string }} */ context, /** @type {(s: string, c: unknown) => { url: string }} */ next) {
    const resolved = next(specifier, context);
    const from = asPath(context.parentURL);
    const to = asPath(resolved.url);
    if (from && to && from !== __filename && !inPackage(from)) loads.push({ specifier, file: to, from });
    return resolved;
  },
});

import(pathToFileURL(file).href).then(
  (ns) => {
    // Artillery's view of the module: the default export's properties, then the named exports. `default` is one of
    // them: a CommonJS `module.exports = function` is callable as `function: default` in Artillery.
    const all = Object.assign({}, ns.default ?? {}, ns);
    const exports = Object.keys(all).filter((k) => typeof all[k] === 'function');
    // Whole or not at all (a file handed to another process): written under a temporary name, then renamed.
    const tmp = `${answerFile}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ exports, loads }));
    fs.renameSync(tmp, answerFile);
    // At once: a processor that opens a pool or a timer at load time must not hold the check open.
    process.exit(0);
  },
  (err) => {
    process.stderr.write(`${String((err && err.stack) || err)}\n`);
    process.exit(1);
  },
);
