// @ts-check
'use strict';
/**
 * Polling intervals that grow while nothing changes: bounded exponential backoff with jitter
 * ("equal jitter" in AWS's Architecture Blog post "Exponential Backoff And Jitter"). Each delay is the
 * current step's half plus a random share of the other half, so a fleet of agents that all started
 * polling at the same moment spreads its requests instead of hitting the store in lockstep; the step
 * doubles after every delay up to the ceiling and returns to the first step on reset() (something changed).
 *
 * Hand-written (about 20 lines) rather than a library: the npm backoff packages wrap a failing call in
 * retries; here nothing fails, the caller polls for news and needs only the next delay.
 */

/**
 * @typedef {{ next(): number, reset(): void }} Backoff
 * @param {{ initialMs: number, ceilingMs: number, factor?: number, random?: () => number }} opts
 * @returns {Backoff}
 */
function backoff(opts) {
  const factor = opts.factor ?? 2;
  const random = opts.random ?? Math.random;
  const ceiling = Math.max(1, opts.ceilingMs);
  const initial = Math.min(Math.max(1, opts.initialMs), ceiling);
  let step = initial;
  return {
    next() {
      const delay = Math.round(step / 2 + random() * (step / 2));
      step = Math.min(ceiling, step * factor);
      return delay;
    },
    reset() {
      step = initial;
    },
  };
}

/**
 * The real clock: `sleep` resolves early (never rejects) when the signal aborts, so a watcher that sleeps
 * for its whole ceiling still ends the moment its work is over.
 * @typedef {{ now(): number, sleep(ms: number, signal?: AbortSignal): Promise<void> }} AgentClock
 * @type {AgentClock}
 */
const systemClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

module.exports = { backoff, systemClock };
