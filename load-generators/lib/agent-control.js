// @ts-check
'use strict';
/**
 * The agent's control watcher: learns the shared start instant, and stops the agent when the orchestrator
 * writes control/abort.json or its heartbeat goes stale. Three reads of the run store, each on its own
 * schedule, so a fleet's request rate stays low however long it waits:
 *
 *   control/start.json      until it is found: backoff from 100 ms up to a quarter of the start lead
 *                           (≤ 1 s), so the agent learns the instant well before it comes; then never again
 *   control/abort.json      backoff from 1 s up to ABORT_CEILING_MS (5 s): an abort reaches every agent within
 *                           5 s plus one read (the CLI also cancels the agents' commands on AWS)
 *   control/heartbeat.json  every third of the heartbeat timeout: an orphaned agent stops within the
 *                           timeout + two reads of the last beat (≤ 50 s after it with the default 30 s)
 *
 * The start instant is absolute: agents sleep until it on their own clock. On EC2 that clock is kept by the
 * Amazon Time Sync Service (chrony against 169.254.169.123, the default on Amazon Linux 2023); AWS's EC2 User
 * Guide, "Precision clock and time synchronization on your EC2 instance", documents it as accurate to well
 * within a millisecond (microseconds with the PTP hardware clock), so instances agree on the instant far more
 * closely than one S3 read (tens of ms) would let them. An agent that learns the instant after it passed
 * starts at once; its lateness shows in the run's start skew (rig.startSkewMs).
 */

const { backoff } = require('./backoff');
const { ABORTED, CONTROL, ORPHANED } = require('./run-protocol');

/** The ceiling of the abort poll: the longest an abort waits before an agent sees it (plus one read). */
const ABORT_CEILING_MS = 5_000;
/** The ceiling of the start poll when the slice names no start lead. */
const START_CEILING_MS = 1_000;

/**
 * @typedef {import('./run-store').RunStore} RunStore
 * @typedef {import('./backoff').AgentClock} AgentClock
 * @param {{ store: Pick<RunStore, 'get'>, clock: AgentClock, heartbeatTimeoutMs: number, startLeadMs?: number,
 *   onStop: (reason: string) => void, random?: () => number }} opts
 */
function controlWatcher(opts) {
  const { store, clock, onStop } = opts;
  const random = opts.random;
  const startCeiling = opts.startLeadMs ? Math.min(START_CEILING_MS, Math.max(50, Math.floor(opts.startLeadMs / 4))) : START_CEILING_MS;
  const startPoll = backoff({ initialMs: Math.min(100, startCeiling), ceilingMs: startCeiling, ...(random ? { random } : {}) });
  const abortPoll = backoff({ initialMs: 1000, ceilingMs: ABORT_CEILING_MS, ...(random ? { random } : {}) });
  const heartbeatEveryMs = Math.max(1000, Math.floor(opts.heartbeatTimeoutMs / 3));
  /** @type {number | undefined} */
  let lastBeat;
  let lastChangeSeen = clock.now();
  let nextAbort = clock.now();
  let nextHeartbeat = clock.now() + heartbeatEveryMs;
  let stopped = false;
  const stop = (/** @type {string} */ reason) => {
    if (!stopped) onStop(reason);
    stopped = true;
  };

  /** Reads abort and heartbeat when due; returns the next instant one of them is due. */
  const checkDue = async () => {
    const now = clock.now();
    if (now >= nextAbort) {
      const abort = await store.get(CONTROL.abort);
      if (abort) stop(`${ABORTED}: ${JSON.parse(abort).reason || ''}`);
      nextAbort = clock.now() + abortPoll.next();
    }
    if (now >= nextHeartbeat) {
      // Staleness is judged by when this agent saw the beat change, on its own clock: the CLI's clock may be
      // off by any amount, so its `at` is compared only with its own earlier values.
      const hb = await store.get(CONTROL.heartbeat);
      const at = hb ? Number(JSON.parse(hb).at) || 0 : undefined;
      if (at !== undefined && at !== lastBeat) {
        lastBeat = at;
        lastChangeSeen = clock.now();
      }
      if (clock.now() - lastChangeSeen > opts.heartbeatTimeoutMs) stop(`${ORPHANED}: the orchestrator heartbeat stopped`);
      nextHeartbeat = clock.now() + heartbeatEveryMs;
    }
    return Math.min(nextAbort, nextHeartbeat);
  };

  return {
    /**
     * Until the start instant is known (returned, epoch ms) or the agent stops (undefined).
     * @param {AbortSignal} signal aborted when the agent stops for any other reason
     */
    async awaitStart(signal) {
      let nextStart = clock.now();
      while (!stopped && !signal.aborted) {
        if (clock.now() >= nextStart) {
          const start = await store.get(CONTROL.start);
          if (start) return Number(JSON.parse(start).startAt);
          nextStart = clock.now() + startPoll.next();
        }
        const due = Math.min(nextStart, await checkDue());
        if (!stopped) await clock.sleep(Math.max(0, due - clock.now()), signal);
      }
      return undefined;
    },
    /**
     * Watches abort and heartbeat until the signal aborts (the load ended) or the agent is told to stop.
     * @param {AbortSignal} signal
     */
    async watch(signal) {
      while (!stopped && !signal.aborted) {
        const due = await checkDue();
        if (!stopped) await clock.sleep(Math.max(0, due - clock.now()), signal);
      }
    },
  };
}

module.exports = { controlWatcher, ABORT_CEILING_MS, START_CEILING_MS };
