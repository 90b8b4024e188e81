/**
 * Where `npm run loadtest` puts its summary JSON: stdout with `--json`, the file `--output` names (README: written
 * whatever the exit code), and the summary of a run that ended before its report.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { writeFileAtomic } from './adapters/atomic-file';
import { checkOutputFile } from './adapters/run-folder';
import { redactText } from './core/redact';
import type { EntryFailure } from './entry';
import { invocationDir, userPath } from './home-path';
import type { RawFlags } from './options';

/** The flags that say where the summary goes. */
export type SummaryFlags = Pick<RawFlags, 'json' | 'output'>;

/** The summary of a run that ended before its report (exit 2 or 3): still a summary a script can read. */
export interface FailedSummary {
  readonly runId?: string;
  readonly runDir?: string;
  readonly status: 'bad-input' | 'rig-failure' | 'interrupted' | 'script-failure';
  readonly exitCode: number;
  readonly error: string;
}

/** The value of `--flag V` or `--flag=V` in raw arguments (before the parser accepted them). */
function flagValue(argv: readonly string[], flag: string): string | undefined {
  const i = argv.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (i < 0) return undefined;
  const a = argv[i] as string;
  return a.includes('=') ? a.slice(flag.length + 1) : argv[i + 1];
}

/** `--json` and `--output` read from raw arguments, for a command line the parser did not accept. */
export function summaryFlagsOf(argv: readonly string[]): SummaryFlags {
  const output = flagValue(argv, '--output');
  return { json: argv.includes('--json'), output: output === undefined ? undefined : userPath(output, os.homedir(), invocationDir(process.env, process.cwd())) };
}

/** Puts the summary on stdout (`--json`) and into `--output FILE` (write-then-rename: never half a file). */
export function emitSummary(raw: SummaryFlags, summary: object): void {
  const text = redactText(`${JSON.stringify(summary, null, 2)}\n`);
  if (raw.json) process.stdout.write(text);
  if (raw.output) {
    try {
      checkOutputFile(raw.output);
    } catch {
      return; // an unusable --output was already reported as the run's bad input
    }
    try {
      writeFileAtomic(path.resolve(raw.output), text);
    } catch (err) {
      process.stderr.write(`error: cannot write --output ${raw.output} (${(err as NodeJS.ErrnoException).code ?? String(err)}); pass a writable file path\n`);
    }
  }
}

/** The run a failure summary names, once it has one: its id and folder (set by the CLI's main as the run opens). */
export interface RunReached {
  runInfo: { runId?: string; runDir?: string };
}

/**
 * The CLI's hook for its entry (scripts/entry.ts `onFailure`): the exit-3 paths that leave no code of main's own —
 * main rejected, or the process ran out of work before it settled — still write the rig-failure summary the CLI
 * writes for its other rig failures (README: `--output` is written whatever the exit code). The flags are read from
 * the command line as a refused one's are: main may not have parsed them.
 */
export function entryFailureSummary(argv: readonly string[], reached: RunReached): (failure: EntryFailure) => void {
  return ({ exitCode, error }) => emitSummary(summaryFlagsOf(argv), { ...reached.runInfo, status: 'rig-failure', exitCode, error } satisfies FailedSummary);
}
