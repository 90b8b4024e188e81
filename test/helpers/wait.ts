/**
 * The one wait of the test suite: polls a condition until it holds (for state that has no event to
 * wait on, such as the process table or a fleet's status), never a fixed sleep.
 */

/** Options of {@link until}. */
export interface UntilOptions {
  /** @default 5000 */
  readonly timeoutMs?: number;
  /** Named in the timeout error. @default 'condition' */
  readonly what?: string;
  /** Between checks; 0 checks again on the next event-loop turn. @default 25 */
  readonly pollMs?: number;
}

/** Resolves with the milliseconds waited once `cond` holds; rejects after `timeoutMs`, naming `what`. */
export async function until(cond: () => boolean | Promise<boolean>, opts: UntilOptions = {}): Promise<number> {
  const { timeoutMs = 5000, what = 'condition', pollMs = 25 } = opts;
  const started = Date.now();
  while (!(await cond())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => (pollMs > 0 ? setTimeout(resolve, pollMs) : setImmediate(resolve)));
  }
  return Date.now() - started;
}

/**
 * `p`'s outcome, or a rejection once `ms` pass first: a bound on a promise that may never settle (what a test of
 * such a bug waits on), so the test fails in time instead of hanging.
 */
export function settlesWithin<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
