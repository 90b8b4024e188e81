/**
 * Errors the CLI maps to its documented exit codes. Anything else that escapes is a rig failure (3).
 */

/** Bad input: nothing was started. Exit code 2. The message is one line naming what was wrong and the fix. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Bad input about `--output` itself (it names one of the run's inputs): the summary is not written there either. */
export class UnsafeOutputError extends UsageError {}

/** The rig itself failed (a generator lost, the target would not start, an AWS error). Exit code 3. */
export class RigError extends Error {
  override readonly name = 'RigError';
}

/**
 * The target failed the preflight (refused, timed out, answered 5xx, dropped the upgrade): exit 3 like a rig failure,
 * but printed as the target's (`target failure:`), since the run's promise is to say which side failed.
 */
export class TargetFailure extends RigError {}

/**
 * The user's script failed where plain `artillery run` fails too, before any load (its `before` section): exit 1, as
 * plain exits. Said as `script failure:`, naming the section, the load process's error and its log.
 */
export class ScriptFailure extends Error {
  override readonly name = 'ScriptFailure';
}

/**
 * Ctrl-C (or SIGTERM to the process group) before the first vuser: whatever had started is stopped, the run folder
 * emptied (nothing was measured). Exit code 130. Anything that failed after the signal and before the start (the local target, in the
 * terminal's process group, gets the same signal and exits before listening) is this, not its own error.
 */
export class InterruptedBeforeStart extends Error {
  override readonly name = 'InterruptedBeforeStart';
  /**
   * @param abandonedWork work of this process's own is still in flight and cannot be aborted (a DNS lookup of the local
   *   preflight: Node has no way to cancel getaddrinfo, which ends by the system resolver's timeout): the entry point
   *   exits without waiting for it. Everything else the run waits on is aborted at the signal and ends with it.
   */
  constructor(message = 'interrupted before the run started; nothing was started', readonly abandonedWork = false) {
    super(message);
  }
}

/** Exit codes, as documented in the README. */
export const ExitCode = {
  ok: 0,
  thresholdsBreached: 1,
  badInput: 2,
  rigFailure: 3,
  interrupted: 130,
} as const;

/** Text of an error for the one-line forms (its first line; a non-Error as a string). */
export function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0] ?? text;
}

/**
 * The one line for an error the rig did not expect (a bug in the rig, not the user's input): its message, and
 * where its stack went — a file (the run folder's rig-error.txt) or, with RIG_DEBUG=1, the lines that follow.
 */
export function unexpectedErrorLine(err: unknown, stackAt?: string): string {
  const where = stackAt ? `its stack is in ${stackAt}` : 'rerun with RIG_DEBUG=1 to print its stack';
  return `${errorText(err)} (an unexpected error in the rig: ${where}; please include it in a bug report)`;
}
