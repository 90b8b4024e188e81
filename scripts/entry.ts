/**
 * How every command of the rig (`npm run loadtest`, `report`, `bench`, `teardown`, `leftovers`, `soak`,
 * `report:screenshot`) ends: with the exit code its main function settles on, and never with 0 by accident.
 *
 * Node exits as soon as nothing is left to wait for — no socket, timer or child process — even while a promise is
 * still pending, and then with code 0. A command waiting on a promise that can never settle (a socket closed without
 * the event the code waited for) therefore ended as a success, with no run and no report: a CI gate read PASS. Here
 * the exit that comes before the main function settled is a rig failure (exit 3) and says so in one line.
 */
import { ExitCode } from './errors';

/**
 * Runs `main` as the process's entry: its result becomes the exit code; `onError` turns a rejection into one (its
 * line written by it). If the process runs out of work before `main` settles, `name` and exit 3.
 */
export function runEntry(name: string, main: () => Promise<number>, onError: (err: unknown) => number, proc: Pick<NodeJS.Process, 'once' | 'stderr' | 'exitCode'> = process): void {
  let settled = false;
  proc.once('beforeExit', () => {
    if (settled) return;
    proc.stderr.write(`rig failure: ${name} stopped before it finished, with nothing left to wait for: a rig bug (please report it with the command you ran; RIG_DEBUG=1 shows more)\n`);
    proc.exitCode = ExitCode.rigFailure;
  });
  main().then(
    (code) => {
      settled = true;
      proc.exitCode = code;
    },
    (err: unknown) => {
      settled = true;
      proc.exitCode = onError(err);
    },
  );
}

/** A main function's unexpected rejection (it handles what it expects itself): one line, exit 3. */
export function unexpectedFailure(err: unknown): number {
  process.stderr.write(`rig failure: ${err instanceof Error ? err.message : String(err)}\n`);
  return ExitCode.rigFailure;
}
