/**
 * Errors the CLI maps to its documented exit codes. Anything else that escapes is a rig failure (3).
 */

/** Bad input: nothing was started. Exit code 2. The message is one line naming what was wrong and the fix. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The rig itself failed (a generator lost, the target would not start, an AWS error). Exit code 3. */
export class RigError extends Error {
  override readonly name = 'RigError';
}

/** Exit codes, as documented in the README. */
export const ExitCode = {
  ok: 0,
  thresholdsBreached: 1,
  badInput: 2,
  rigFailure: 3,
  interrupted: 130,
} as const;
