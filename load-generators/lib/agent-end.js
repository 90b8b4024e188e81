// @ts-check
'use strict';
/**
 * The agent's end, once every load process has exited: the spool's last files (periods, reports, logs), then
 * done.json, which tells the orchestrator this generator ended and how. Both are written as every store write is
 * (./store-tolerance.js: failures that may pass are retried with backoff within the heartbeat budget); done.json
 * last, so whoever reads it finds every file before it. A done.json that cannot be written ends the agent with exit 3
 * and one line: without it the orchestrator would wait for a generator that has ended (on AWS it waits for done.json
 * after a command that succeeded; a failed command names the agent's last lines).
 */
const { COMPLETED } = require('./run-protocol');
const { storeFailure } = require('./store-tolerance');

/**
 * What done.json says: each load process's exit code and why the agent ended.
 * @param {import('./agent-supervisor').LoadProcess[]} procs @param {string | undefined} stopping @param {number} at
 * @returns {import('./run-protocol').DoneMarker}
 */
function doneMarker(procs, stopping, at) {
  // A process that finished and exited with the code a plugin asked for (expect's 21) completed: its code is the script's verdict.
  // A process whose script failed after its load (its `after` section) also completed: every figure is in; the
  // failure is the script's verdict, as the exit code of plain `artillery run`.
  const exitCodes = procs.map((p) => (p.asked !== null || p.failedAfterLoad !== null ? 0 : p.exit ?? null));
  const askedExitCodes = procs.map((p) => p.asked);
  const failedAfterLoad = procs.map((p) => (p.failedAfterLoad !== null ? { code: p.exit ?? 1, why: p.failedAfterLoad } : null));
  const failed = procs.filter((p) => p.exit !== 0 && p.asked === null && p.failedAfterLoad === null).map((p) => `p${p.k} ${p.why}`);
  const reason = stopping || (failed.length ? `load process ${failed.join(', ')}` : COMPLETED);
  return { at, exitCodes, reason, ...(askedExitCodes.some((c) => c !== null) ? { askedExitCodes } : {}), ...(failedAfterLoad.some((f) => f !== null) ? { failedAfterLoad } : {}) };
}

/**
 * The spool's last files, then done.json.
 * @param {{ store: import('./run-store').RunStore, doneKey: string, spool: { finish(): Promise<void> },
 *   sup: { procs: import('./agent-supervisor').LoadProcess[], stopping(): string | undefined, stopAll(reason: string): void },
 *   writes: { settle(op: () => Promise<unknown>): Promise<void> }, clock: import('./backoff').AgentClock, log: (line: string) => void }} opts
 * @returns {Promise<{ stopping: string | undefined, exitCode: number }>} exitCode: the agent's (agent.js)
 */
async function endRun({ store, doneKey, spool, sup, writes, clock, log }) {
  await writes.settle(() => spool.finish()).catch((err) => sup.stopAll(storeFailure(store, err)));
  const stopping = sup.stopping();
  const done = doneMarker(sup.procs, stopping, clock.now());
  const written = await writes.settle(() => store.put(doneKey, JSON.stringify(done))).then(
    () => true,
    (err) => (log(`done.json not written: ${storeFailure(store, err)}`), false),
  );
  if (stopping) log(`stopped: ${stopping}`);
  return { stopping, exitCode: stopping || !written ? 3 : done.exitCodes.every((c) => c === 0) ? 0 : 1 };
}

module.exports = { endRun, doneMarker };
