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
const { fileURLToPath } = require('node:url');
const { threadId } = require('node:worker_threads');
const { SPOOL } = require('../../lib/run-protocol');

/**
 * The first frame of a stack outside Node's internals and this plugin: `file:line:col` (as the load process's crash
 * reasons name a user's code), or undefined.
 * @param {string | undefined} stack
 */
function callSite(stack) {
  for (const line of (stack || '').split('\n').slice(1)) {
    // `at fn (file:line:col)` or `at file:line:col`; a file's path may have spaces.
    const m = /\((.+):(\d+):(\d+)\)$/.exec(line.trim()) || /^at (.+):(\d+):(\d+)$/.exec(line.trim());
    if (!m || !m[1] || m[1].startsWith('node:') || m[1].includes(`${path.sep}artillery-plugin-rig${path.sep}`)) continue;
    return `${m[1].startsWith('file://') ? fileURLToPath(m[1]) : m[1]}:${m[2]}:${m[3]}`;
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
      // No frame outside Node's internals: Node itself ending the thread on an uncaught error (Artillery's main thread
      // then exits 11 and the agent reads the error from the load process's log), not a step's call.
      const site = shuttingDown ? undefined : callSite(new Error().stack);
      if (site) {
        try {
          const code = args[0] === undefined ? (process.exitCode ?? 0) : args[0];
          writeAtomic(path.join(spoolDir, SPOOL.threadExit(threadId)), { at: Date.now(), code, site });
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
