/**
 * How every command of the rig (`npm run loadtest`, `report`, `bench`, `teardown`, `leftovers`, `soak`,
 * `report:screenshot`) ends: never with exit 0 by running out of work (load-generators/lib/run-entry.js, shared with
 * the generator's agent and preflight).
 */
import { ExitCode } from './errors';

type Proc = { once(event: 'beforeExit', listener: () => void): unknown; stderr: { write(s: string): unknown }; exitCode?: number | string | null };
/** What an entry may add: the process (a test's stand-in). */
export interface EntryOptions {
  readonly proc?: Proc;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const shared = require('../load-generators/lib/run-entry') as { runEntry(name: string, main: () => Promise<number>, onError: (err: unknown) => number, opts?: EntryOptions & { report?: string }): void };

/**
 * Runs `main` as the process's entry: its result becomes the exit code; `onError` turns a rejection into one (its
 * line written by it). If the process runs out of work before `main` settles: one line naming `name`, exit 3.
 */
export function runEntry(name: string, main: () => Promise<number>, onError: (err: unknown) => number, opts: EntryOptions = {}): void {
  shared.runEntry(name, main, onError, { ...opts, report: 'please report it with the command you ran' });
}

/** A main function's unexpected rejection (it handles what it expects itself): one line, exit 3. */
export function unexpectedFailure(err: unknown): number {
  process.stderr.write(`rig failure: ${err instanceof Error ? err.message : String(err)}\n`);
  return ExitCode.rigFailure;
}
