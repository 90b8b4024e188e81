// @ts-check
'use strict';
/**
 * How every command of the rig ends (the orchestrator's `npm run …` commands through scripts/entry.ts, and the
 * generator's agent and preflight): with the exit code its main function settles on, and never with 0 by accident.
 *
 * Node exits as soon as nothing is left to wait for — no socket, timer or child process — even while a promise is
 * still pending, and then with code 0. A command waiting on a promise that can never settle (a socket closed without
 * the event the code waited for) therefore ended as a success: a run of a user's Socket.IO script against a server
 * with another parser ended with no run and exit 0, and a CI gate read PASS. Here an exit that comes before the main
 * function settled is a failure (exit 3) and says so in one line.
 */

/**
 * @typedef {{ once(event: 'beforeExit', listener: () => void): unknown, stderr: { write(s: string): unknown }, exitCode?: number | string | null }} Proc
 * @typedef {object} EntryOptions
 * @property {Proc} [proc] the process (a test's stand-in)
 * @property {string} [report] how to report the bug, in the line said when main never settled (default: `please
 *   report it`; an `npm run …` command asks for the command that was run)
 */

/**
 * Runs `main` as the process's entry: its result becomes the exit code; `onError` turns a rejection into one (its
 * line written by it). If the process runs out of work before `main` settles: one line naming `name`, exit 3.
 * @param {string} name @param {() => Promise<number>} main @param {(err: unknown) => number} onError
 * @param {EntryOptions} [opts]
 */
function runEntry(name, main, onError, opts = {}) {
  const proc = opts.proc ?? process;
  let settled = false;
  proc.once('beforeExit', () => {
    if (settled) return;
    proc.stderr.write(`rig failure: ${name} stopped before it finished, with nothing left to wait for: a rig bug (${opts.report ?? 'please report it'})\n`);
    proc.exitCode = 3;
  });
  main().then(
    (code) => {
      settled = true;
      proc.exitCode = code;
    },
    (err) => {
      settled = true;
      proc.exitCode = onError(err);
    },
  );
}

module.exports = { runEntry };
