// @ts-check
'use strict';
/**
 * Loads a `.js` test script the way Artillery 2.0.34 does (`require`, lib/util/prepare-test-execution-plan.ts) and
 * hands back its data. Run in its own short-lived Node process by scripts/script-file.ts, never in the orchestrator:
 * user code (top-level side effects, a crash, an endless loop, a `process.exit`) cannot take the rig with it.
 *
 *   node scripts/script-probe.js <script file> <answer file>
 *
 * Writes the answer file whole (a temporary name, then renamed): JSON `{ "script": … }`, or `{ "notData": { "path",
 * "what" } }` for the first value JSON would not carry as it is (the load processes run a JSON copy of the script:
 * a function, a RegExp, a Date…; a key whose value is `undefined` is left out). On a load error: its stack on
 * stderr, exit 1.
 */
const fs = require('node:fs');

/**
 * The first value that JSON would not carry as it is, with its path (`config.variables.now`).
 * @param {unknown} v @param {string} at @returns {{ path: string, what: string } | undefined}
 */
function notData(v, at) {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : { path: at, what: String(v) };
  if (typeof v === 'function') return { path: at, what: 'a function' };
  if (typeof v !== 'object') return { path: at, what: typeof v === 'undefined' ? 'undefined' : `a ${typeof v}` };
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = notData(v[i], `${at}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return { path: at, what: `a ${v.constructor?.name ?? 'class'} object` };
  for (const [k, x] of Object.entries(v)) {
    // Left out of the copy, as structured cloning for Artillery's workers leaves it unset (`ca: process.env.CA`).
    if (x === undefined) continue;
    const found = notData(x, at ? `${at}.${k}` : k);
    if (found) return found;
  }
  return undefined;
}

const [file = '', answerFile = ''] = process.argv.slice(2);
let loaded;
try {
  loaded = require(file);
} catch (err) {
  process.stderr.write(`${String((err && /** @type {Error} */ (err).stack) || err)}\n`);
  process.exit(1);
}
if (!loaded || typeof loaded !== 'object') {
  process.stderr.write(`Error: it exports ${loaded === null ? 'null' : `a ${typeof loaded}`}, not { config, scenarios }\n`);
  process.exit(1);
}
// `export const config …; export const scenarios …` (an ES module required: Node's `__esModule` marker is not part of
// the script) or `module.exports = { config, scenarios }`.
const { __esModule: _marker, ...script } = loaded;
const found = notData(script, '');
const tmp = `${answerFile}.tmp`;
fs.writeFileSync(tmp, JSON.stringify(found ? { notData: found } : { script }));
fs.renameSync(tmp, answerFile);
// At once: a script that opens a timer or a socket at load time must not hold the probe open.
process.exit(0);
