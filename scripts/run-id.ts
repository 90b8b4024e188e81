/**
 * A run's id (`20261127-004306-0d51`, the name of `runs/<run-id>/`) and the `{{ $testId }}` its vusers see. Drawn once,
 * before the script's input is checked: plain `artillery run` draws its test id before it resolves the script's config
 * (cmds/run.ts, then util.ts resolveConfigTemplates), so `{{ $testId }}` in `config.target` is known there too.
 */
import { randomBytes } from 'node:crypto';

/** A new run id from the start time and two random bytes. */
export function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/**
 * The run's `{{ $testId }}`: the user's ARTILLERY_TEST_RUN_ID when set and not empty (as `artillery run` reads it:
 * `process.env.ARTILLERY_TEST_RUN_ID || generateId('t')`), else the run's id.
 */
export function testRunIdOf(runId: string, userTestRunId: string | undefined): string {
  return userTestRunId || runId;
}
