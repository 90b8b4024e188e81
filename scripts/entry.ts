/**
 * How every command of the rig (`npm run loadtest`, `report`, `bench`, `teardown`, `leftovers`, `soak`,
 * `report:screenshot`) ends: never with exit 0 by running out of work (load-generators/lib/run-entry.js, shared with
 * the generator's agent and preflight).
 */
import { ExitCode } from './errors';

type Proc = { once(event: 'beforeExit', listener: () => void): unknown; stderr: { write(s: string): unknown }; exitCode?: number | string | null };
/** An exit code that is not main's own, and its one-line error (the rig failure the CLI writes its summary for). */
export interface EntryFailure {
  readonly exitCode: number;
  readonly error: string;
}
/** What an entry may add: the process (a test's stand-in), and a hook told of an exit code that is not main's own. */
export interface EntryOptions {
  readonly proc?: Proc;
  readonly onFailure?: (failure: EntryFailure) => void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const shared = require('../load-generators/lib/run-entry') as { runEntry(name: string, main: () => Promise<number>, onError: (err: unknown) => number, opts?: EntryOptions & { report?: string }): void };

/**
 * Runs `main` as the process's entry: its result becomes the exit code; `onError` turns a rejection into one (its
 * line written by it). If the process runs out of work before `main` settles: one line naming `name`, exit 3.
 * `onFailure` is told either way main gave no code of its own.
 */
export function runEntry(name: string, main: () => Promise<number>, onError: (err: unknown) => number, opts: EntryOptions = {}): void {
  shared.runEntry(name, main, onError, { ...opts, report: 'please report it with the command you ran' });
}

/** A main function's unexpected rejection (it handles what it expects itself): one line, exit 3. */
export function unexpectedFailure(err: unknown): number {
  process.stderr.write(`rig failure: ${err instanceof Error ? err.message : String(err)}\n`);
  return ExitCode.rigFailure;
}
