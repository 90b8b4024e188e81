// @ts-check
'use strict';
/**
 * Worker thread: tells the agent when a step ends the load thread. A `process.exit()` in a worker thread ends that
 * thread only (Node's rule for worker threads): Artillery's main thread never hears the worker's `done`, and plain
 * `artillery run` waits forever. process.exit still does exactly that here; before it does — unless Artillery's own
 * shutdown has begun (its worker calls process.exit(0) after unloading the plugins) — the call's site is written to
 * `<spool>/thread-exit-<thread>.json`, and the agent stops its load processes and names it (agent-supervisor.js).
 */
const path = require('node:path');
const { threadId } = require('node:worker_threads');
const { SPOOL } = require('../../lib/run-protocol');

/**
 * The first frame of a stack outside Node's internals and this plugin: `file:line:col` (the file's base name, as
 * the user knows their processor), or undefined.
 * @param {string | undefined} stack
 */
function callSite(stack) {
  for (const line of (stack || '').split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?[^\s()]+):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!m || !m[1] || m[1].startsWith('node:') || m[1].includes(`${path.sep}artillery-plugin-rig${path.sep}`)) continue;
    return `${path.basename(m[1])}:${m[2]}:${m[3]}`;
  }
  return undefined;
}

/**
 * Wraps this worker thread's process.exit. Returns what the plugin calls when Artillery's shutdown begins.
 * @param {string} spoolDir
 * @param {(file: string, data: unknown) => void} writeAtomic
 * @returns {{ shuttingDown(): void }}
 */
function reportEarlyExits(spoolDir, writeAtomic) {
  const exit = process.exit;
  let shuttingDown = false;
  process.exit = /** @type {typeof process.exit} */ (
    function rigExit(/** @type {any[]} */ ...args) {
      if (!shuttingDown) {
        try {
          const code = args[0] === undefined ? (process.exitCode ?? 0) : args[0];
          writeAtomic(path.join(spoolDir, SPOOL.threadExit(threadId)), { at: Date.now(), code, site: callSite(new Error().stack) });
        } catch {
          /* the spool is gone: the run is ending anyway */
        }
      }
      return exit.apply(process, /** @type {any} */ (args));
    }
  );
  return { shuttingDown: () => void (shuttingDown = true) };
}

module.exports = { callSite, reportEarlyExits };
