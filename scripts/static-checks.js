#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * The static checks `npm test` runs before jest, all four at once:
 *
 *   node scripts/static-checks.js
 *
 * They only read the sources, so none waits for another; the longest (tsc over all TypeScript) sets the pace. The
 * gain is small (35.5 s → 32 s on the project's 2-vCPU machine): tsc alone keeps ~1.5 cores busy (V8's helper
 * threads), and the four take ~55 s of CPU. Each check's output is held and printed
 * whole when it ends, under one line naming it with its result and time, so two checks' lines never mix. The exit
 * code is 1 when any check failed (each failure is shown), 0 otherwise. Each alone: `npm run build` (both tsc),
 * `npm run lint`, `npm run deps`.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** The checks, longest first (each starts at once; the order only sets which gets the CPU first). */
const CHECKS = [
  ['tsc', '--noEmit', '-p', '.'],
  ['tsc', '-p', 'tsconfig.checkjs.json'],
  ['eslint', '.'],
  ['depcruise', '--config', '.dependency-cruiser.cjs', 'scripts', 'lib', 'load-generators', 'target-stack', 'bin', 'test'],
];

/**
 * Runs one check with its output held; resolves with what it printed and how it ended (never rejects).
 * @param {string[]} argv
 * @returns {Promise<{ argv: string[], output: string, code: number | null, signal: NodeJS.Signals | null, ms: number }>}
 */
function run(argv) {
  const started = Date.now();
  return new Promise((resolve) => {
    const [cmd, ...args] = argv;
    // The project's own tools, whether or not npm put node_modules/.bin on the PATH.
    const env = { ...process.env, PATH: [path.join(ROOT, 'node_modules', '.bin'), process.env.PATH].filter(Boolean).join(path.delimiter) };
    const child = spawn(/** @type {string} */ (cmd), args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (err) => resolve({ argv, output: `${output}${err.message}\n`, code: null, signal: null, ms: Date.now() - started }));
    child.on('close', (code, signal) => resolve({ argv, output, code, signal, ms: Date.now() - started }));
  });
}

async function main() {
  const results = await Promise.all(
    CHECKS.map((argv) =>
      run(argv).then((r) => {
        const how = r.code === 0 ? 'ok' : `FAILED (${r.signal ? `killed by ${r.signal}` : `exit ${r.code}`})`;
        process.stdout.write(`== ${r.argv.join(' ')}: ${how} in ${(r.ms / 1000).toFixed(1)} s\n${r.output}${r.output && !r.output.endsWith('\n') ? '\n' : ''}`);
        return r;
      }),
    ),
  );
  const failed = results.filter((r) => r.code !== 0);
  if (failed.length) {
    process.stdout.write(`static checks: ${failed.length} of ${results.length} failed: ${failed.map((r) => r.argv[0] === 'tsc' ? r.argv.join(' ') : r.argv[0]).join(', ')}\n`);
    process.exitCode = 1;
  }
}

void main();
