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
 * @typedef {{ once(event: 'beforeExit' | 'uncaughtException', listener: (err?: any) => void): unknown, stderr: { write(s: string): unknown }, exitCode?: number | string | null, exit?: (code: number) => void }} Proc
 * @typedef {{ exitCode: number, error: string }} EntryFailure
 * @typedef {object} EntryOptions
 * @property {Proc} [proc] the process (a test's stand-in)
 * @property {string} [report] how to report the bug, in the line said when main never settled (default: `please
 *   report it`; an `npm run …` command asks for the command that was run)
 * @property {(failure: EntryFailure) => void} [onFailure] told the exit code and the one-line error whenever the code is
 *   not main's own: main rejected (onError's code) or the process ran out of work first (3). The CLI writes its
 *   failure summary (`--json`, `--output`) there.
 */

/** The first line of an error's message (or of it as text). @param {unknown} err */
const firstLine = (err) => String(err instanceof Error ? err.message : err).split('\n')[0] ?? '';

/**
 * Runs `main` as the process's entry: its result becomes the exit code; `onError` turns a rejection into one (its
 * line written by it). If the process runs out of work before `main` settles: one line naming `name`, exit 3.
 * @param {string} name @param {() => Promise<number>} main @param {(err: unknown) => number} onError
 * @param {EntryOptions} [opts]
 */
function runEntry(name, main, onError, opts = {}) {
  const proc = opts.proc ?? process;
  let settled = false;
  /** @param {EntryFailure} failure */
  const failed = (failure) => {
    try {
      opts.onFailure?.(failure);
    } catch (err) {
      proc.stderr.write(`rig failure: ${name} could not write its failure summary (${firstLine(err)})\n`);
    }
  };
  proc.once('beforeExit', () => {
    if (settled) return;
    const error = `${name} stopped before it finished, with nothing left to wait for: a rig bug (${opts.report ?? 'please report it'})`;
    proc.stderr.write(`rig failure: ${error}\n`);
    proc.exitCode = 3;
    failed({ exitCode: 3, error });
  });
  // An exception nothing caught (thrown from a callback, a rejection nothing handled): Node printed its stack and
  // exited 1, which the README gives to a breached threshold. Now what a rejection of main gets (onError's line and
  // code, the failure summary); after main settled, the run's own code stands (its summary is written) and the
  // error is one line.
  proc.once('uncaughtException', (err) => {
    if (settled) {
      proc.stderr.write(`rig failure: ${name} failed after it finished (${firstLine(err)}): a rig bug (${opts.report ?? 'please report it'})\n`);
    } else {
      settled = true;
      let code = 3;
      try {
        code = onError(err);
      } catch {
        proc.stderr.write(`rig failure: ${firstLine(err)}\n`);
      }
      proc.exitCode = code;
      failed({ exitCode: code, error: firstLine(err) });
    }
    if (proc.exit) proc.exit(Number(proc.exitCode ?? 3));
  });
  main().then(
    (code) => {
      settled = true;
      proc.exitCode = code;
    },
    (err) => {
      settled = true;
      const code = onError(err);
      proc.exitCode = code;
      failed({ exitCode: code, error: firstLine(err) });
    },
  );
}

module.exports = { runEntry };
