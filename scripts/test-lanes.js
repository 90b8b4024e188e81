#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * The end-to-end part of `npm test` (after the static checks and the unit and CDK tests), in two lanes:
 *
 *   node scripts/test-lanes.js
 *
 * The suites that only compare counters, exit codes and files (test/aws on moto, test/compat: plain `artillery run`
 * beside the rig) run one at a time in their own jest process, beside the rest, also one at a time; then the suites
 * that measure time or judge the generators' health (test/scenarios' latencies, the faults, the verdict's
 * `trustworthy` checks) run alone. One lane's wait (a ramp, a hold, moto) is the other's CPU: on the project's 2-vCPU
 * machine the part went from ~1,090 s one suite at a time to ~800 s (docs/testing.md). The second lane's output is
 * held and printed whole when it ends, so two suites' lines never mix; the exit code is 1 when any lane failed.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');

/** Suites that measure time or assert a healthy-generator verdict: run with nothing beside them. */
const ALONE = ['test/scenarios/', 'test/e2e/(faults|generator-errors|source-address|target-refusal)\\.test\\.ts$'];
/** Suites whose checks load does not change (counters, exit codes, files): run beside the others. */
const BESIDE = ['test/aws/', 'test/compat/'];

/**
 * Runs jest with `args`, its output streamed (`held` false) or held and printed whole at its end.
 * @param {string} name @param {string[]} args @param {boolean} held
 * @returns {Promise<number>} its exit code (1 for a signal)
 */
function jest(name, args, held) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [JEST, '--runInBand', ...args], { cwd: ROOT, stdio: ['ignore', held ? 'pipe' : 'inherit', held ? 'pipe' : 'inherit'] });
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    child.on('close', (code) => {
      const how = code === 0 ? 'ok' : 'FAILED';
      process.stdout.write(`== ${name}: ${how} in ${((Date.now() - started) / 1000).toFixed(1)} s\n${output}`);
      resolve(code ?? 1);
    });
  });
}

async function main() {
  const ignore = ['/test/(unit|cdk)/', ...BESIDE, ...ALONE];
  const [beside, rest] = await Promise.all([
    jest(`lane 2 (${BESIDE.join(', ')})`, BESIDE, true),
    jest('lane 1 (the other end-to-end suites)', ['--testPathIgnorePatterns', ...ignore], false),
  ]);
  const alone = await jest('alone (timing and verdict suites)', ALONE, false);
  if (beside || rest || alone) process.exitCode = 1;
}

void main();
