// @ts-check
'use strict';
/**
 * How an agent rides out a run store that fails for a while (an S3 503 that outlived the client's attempts, a
 * network blip): the load goes on, what was not written is written on the next pass (the spooler marks a file
 * pushed only once its PUT succeeded), and only an error that cannot pass — a full or read-only disk, a refused
 * permission, a missing bucket — or one that lasts longer than the budget stops the load.
 */
const { backoff } = require('./backoff');

/** Network errors a retry may get past (any other errno code is the local disk's: full, read-only, refused). */
const NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'ENETDOWN']);

/** SDK errors without a status that a retry may get past: its own timeouts (the request never answered). */
const SDK_TIMEOUTS = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);

/**
 * Whether retrying `err` may help: S3's 5xx, throttling and timeouts (408, 429), network errors, the SDK's own
 * timeouts or an error it marks retryable; not a local disk's error, a refused request's (any other 4xx), an expired
 * or missing credential (the SDK's CredentialsProviderError has no status) or a bug (a TypeError has no code).
 * @param {unknown} err
 */
function isTransient(err) {
  const e = /** @type {{ code?: string, name?: string, $retryable?: unknown, $metadata?: { httpStatusCode?: number } } | undefined} */ (err);
  const status = e?.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 || status === 408 || status === 429;
  if (e?.code !== undefined) return NETWORK.has(e.code);
  return e?.$retryable !== undefined || SDK_TIMEOUTS.has(String(e?.name));
}

/**
 * The line an agent stops with when it cannot use its run store.
 * @param {{ location: string }} store @param {unknown} err
 */
function storeFailure(store, err) {
  const e = /** @type {NodeJS.ErrnoException} */ (err);
  return `cannot use the run store ${store.location}: ${e.code || e.name || ''} ${e.message || err}`.trim();
}

/**
 * Failures in a row ridden out for up to `budgetMs` (the agent's heartbeat timeout: an orchestrator that cannot
 * write for that long has it stop anyway), one line when they begin and one when the store answers again.
 * @param {{ clock: import('./backoff').AgentClock, budgetMs: number, log: (line: string) => void }} opts
 */
function storeTolerance({ clock, budgetMs, log }) {
  /** @type {number | undefined} */
  let since;
  /**
   * @param {unknown} err
   * @returns {false} the failure was ridden out  @throws err when it cannot pass or the budget is spent
   */
  const failed = (err) => {
    if (!isTransient(err)) throw err;
    const e = /** @type {Partial<Error>} */ (err);
    if (since === undefined) {
      since = clock.now();
      log(`run store error (${e.name || 'Error'}: ${String(e.message || err).split('\n')[0]}); the load goes on, retrying for up to ${Math.round(budgetMs / 1000)} s`);
    }
    if (clock.now() - since > budgetMs) throw err;
    return false;
  };
  const ok = () => {
    if (since !== undefined) log(`run store answers again after ${Math.round((clock.now() - since) / 1000)} s`);
    since = undefined;
    return true;
  };
  /**
   * Runs `op` once: true when it succeeded, false when its failure is ridden out (try again later).
   * @param {() => Promise<unknown>} op
   */
  const attempt = (op) => op().then(ok, failed);
  return {
    attempt,
    /**
     * Runs `op` until it succeeds, backing off between tries, within the budget.
     * @param {() => Promise<unknown>} op
     */
    async settle(op) {
      const wait = backoff({ initialMs: 250, ceilingMs: 2000 });
      while (!(await attempt(op))) await clock.sleep(wait.next());
    },
    /**
     * The store's reads for a watcher that polls anyway (start instant, abort, heartbeat): a read ridden out
     * answers "nothing yet", and the watcher's next poll reads again.
     * @param {{ get(key: string): Promise<string | undefined> }} store
     */
    reads: (store) => ({
      /** @param {string} key */
      async get(key) {
        /** @type {string | undefined} */
        let value;
        await attempt(async () => (value = await store.get(key)));
        return value;
      },
    }),
  };
}

module.exports = { storeTolerance, storeFailure, isTransient };
