// @ts-check
'use strict';
/**
 * The rig's Artillery plugin (v2 plugin API, full metrics format).
 *
 * Artillery loads it twice per process:
 *  - in each worker thread, while the worker prepares: there it announces readiness and BLOCKS the
 *    thread until the run's shared start instant. Artillery starts a worker's phases right after
 *    the worker reports ready, so blocking here is what aligns the first arrival of every generator
 *    (a `pause` phase could not: Artillery's own start-up time varies by a second or more).
 *  - in the main thread: there it receives every period's merged `stats` (with DDSketch histograms)
 *    and the final report, and writes them serialized with Artillery's own SSMS serializer, the
 *    way Artillery's Fargate reporter ships them; and the script's `before`/`after` sections run
 *    there, so the engines' callbacks are called once there too (callbacks-once.js).
 *
 * It talks to the agent only through files in `spoolDir` (written atomically: tmp + rename), so the
 * agent decides where they go (the local run folder or S3).
 */
const fs = require('node:fs');
const path = require('node:path');
const { isMainThread, threadId } = require('node:worker_threads');
const { SPOOL } = require('../../lib/run-protocol');
const { wrapStepsOnce, loadHttpEngine } = require('./engine-steps');
const { quietSecondEnd, wsReceivers } = require('./ws-receiver');
const { callbacksOnce } = require('./callbacks-once');
const { reportEarlyExits } = require('./thread-exit');

const POLL_MS = 10;

/** @param {string} file @param {unknown} data */
function writeAtomic(file, data) {
  const tmp = `${file}.${process.pid}.${threadId}.tmp`;
  fs.writeFileSync(tmp, typeof data === 'string' ? data : JSON.stringify(data));
  fs.renameSync(tmp, file);
}

/**
 * Sleeps the current thread without spinning (only ever called in a worker thread).
 * @param {number} ms
 */
function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, ms));
}

/**
 * Blocks until `<spool>/start.json` names the start instant, then until that instant.
 * @param {string} spoolDir @param {number} timeoutMs
 * @returns {{ plannedAt: number, actualAt: number }}
 */
function awaitStart(spoolDir, timeoutMs) {
  const startFile = path.join(spoolDir, SPOOL.start);
  const abortFile = path.join(spoolDir, SPOOL.abort);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (fs.existsSync(abortFile)) throw new Error('rig: run aborted before start');
    if (fs.existsSync(startFile)) {
      const { startAt } = JSON.parse(fs.readFileSync(startFile, 'utf8'));
      // Coarse sleep, then a short spin for the last milliseconds: start skew is a reported figure.
      while (startAt - Date.now() > 5) sleepSync(Math.min(startAt - Date.now() - 5, 50));
      while (Date.now() < startAt) { /* spin < 5 ms */ }
      return { plannedAt: startAt, actualAt: Date.now() };
    }
    if (Date.now() > deadline) throw new Error(`rig: no start instant within ${timeoutMs} ms`);
    sleepSync(POLL_MS);
  }
}

/**
 * Samples this load thread's event-loop delay (the thread that runs the vusers) and leaves the
 * latest window in `lag-<thread>.json` for the agent's health samples: a lagging loop delays every
 * timer and socket callback, so latencies measured there describe the rig, not the target.
 * @param {string} spoolDir
 */
function watchEventLoop(spoolDir) {
  const { monitorEventLoopDelay } = require('node:perf_hooks');
  const resolutionMs = 20;
  const h = monitorEventLoopDelay({ resolution: resolutionMs });
  h.enable();
  // The histogram's samples include the sampling interval itself (an idle loop reads ~20 ms): subtract it.
  const lagMs = (/** @type {number} */ ns) => Math.max(0, Math.round(ns / 1e4) / 100 - resolutionMs);
  const timer = setInterval(() => {
    writeAtomic(path.join(spoolDir, SPOOL.lag(threadId)), {
      at: Date.now(),
      p99Ms: lagMs(h.percentile(99)),
      maxMs: lagMs(h.max),
    });
    h.reset();
  }, 2000);
  timer.unref();
}

/**
 * Ends this load process when its agent dies (killed, OOM): Linux re-parents an orphan, so a changed
 * ppid means nobody is left to stop it, ship its data or clean up — it must not run on unattended.
 */
function exitWithAgent() {
  const agentPid = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== agentPid) {
      process.stderr.write(`rig: agent ${agentPid} is gone; stopping this load process\n`);
      process.exit(3);
    }
  }, 1000);
  timer.unref();
}

/**
 * Worker thread: on an early stop, writes the period in progress instead of losing it. Artillery's
 * shutdown (SIGINT, SIGTERM) tells each worker to stop its runner, which stops the runner's metrics
 * without emitting what they hold, and the main process exits without waiting for the worker. So the
 * metrics' `stop` is wrapped: unless the runner already flushed them at its normal end, every period not
 * yet posted is aggregated and written straight to the spool (only this listener sees them: the main
 * thread never gets them, so none is counted twice), then `flushed-<thread>.json` names the last period
 * posted the normal way, which the main thread waits to have written.
 * @param {string} spoolDir
 */
function flushOnStop(spoolDir) {
  const SSMS = /** @type {any} */ (global).artillery?.__SSMS;
  if (!SSMS) return;
  const proto = SSMS.prototype;
  const aggregate = proto.aggregate;
  /** @this {any} @param {boolean | undefined} forceAll */
  proto.aggregate = function aggregateAndMark(forceAll) {
    // The runner's own final flush (all phases done, every vuser finished): nothing is left to keep.
    if (forceAll) this.__rigFlushed = true;
    return aggregate.call(this, forceAll);
  };
  const stop = proto.stop;
  /** @this {any} */
  proto.stop = function flushThenStop() {
    if (!this.isPullOnly && !this.__rigFlushed) {
      this.__rigFlushed = true;
      /** @type {number[]} */
      const written = [];
      const lastPosted = this._lastPeriod === null || this._lastPeriod === undefined ? null : Number(this._lastPeriod);
      const saved = this.listeners('metricData');
      this.removeAllListeners('metricData');
      const onPeriod = (/** @type {string} */ period, /** @type {any} */ data) => {
        writeAtomic(path.join(spoolDir, SPOOL.periods, `${period}-flush-t${threadId}.json`), SSMS.serializeMetrics(data));
        written.push(Number(period));
      };
      this.on('metricData', onPeriod);
      try {
        aggregate.call(this, true);
      } finally {
        this.removeListener('metricData', onPeriod);
        for (const l of saved) this.on('metricData', l);
        writeAtomic(path.join(spoolDir, SPOOL.flushed(threadId)), { at: Date.now(), lastPosted, periods: written });
      }
    }
    return stop.call(this);
  };
}

/**
 * Main thread, on an early stop: waits, bounded, until every worker thread has written its period in
 * progress and until every period they had already posted has been written here (Artillery's launcher
 * emits a posted period on its next 2-s tick).
 * @param {string} spoolDir @param {Set<number>} writtenPeriods
 */
async function awaitWorkerFlush(spoolDir, writtenPeriods) {
  // Threads that started running vusers (one stopped before the start has no metrics to flush).
  const threads = fs.readdirSync(spoolDir).map((n) => SPOOL.startedFile.exec(n)?.[1]).filter(Boolean);
  const until = async (/** @type {() => boolean} */ ok, /** @type {number} */ ms) => {
    const deadline = Date.now() + ms;
    while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  };
  const flushedFile = (/** @type {string | undefined} */ t) => path.join(spoolDir, SPOOL.flushed(Number(t)));
  await until(() => threads.every((t) => fs.existsSync(flushedFile(t))), 5000);
  let lastPosted = -Infinity;
  for (const t of threads) {
    try {
      const { lastPosted: p } = JSON.parse(fs.readFileSync(flushedFile(t), 'utf8'));
      if (typeof p === 'number') lastPosted = Math.max(lastPosted, p);
    } catch { /* that thread never flushed: nothing more to wait for */ }
  }
  await until(() => lastPosted === -Infinity || Math.max(-Infinity, ...writtenPeriods) >= lastPosted, 4000);
}

/**
 * A ramp the rig split over load processes carries each process's place (scripts/core/split.ts: rigWorker of
 * rigWorkers). Artillery's own split has set worker 1 of 1 by now (lib/dist.ts, one worker per load process);
 * the place goes back in before the phaser reads it (the plugin is built first, in the worker thread), so each
 * process rounds its share of every second as one of Artillery's workers would.
 * @param {any} script
 */
function takeRampPlaces(script) {
  const phases = (script && script.config && script.config.phases) || [];
  for (const phase of phases) {
    if (phase && Number.isInteger(phase.rigWorker) && Number.isInteger(phase.rigWorkers)) {
      phase.worker = phase.rigWorker;
      phase.totalWorkers = phase.rigWorkers;
    }
  }
}

/**
 * Worker thread: per-vuser work that Artillery's HTTP engine and `ws` do for nothing, done once or not at all
 * (engine-steps.js, ws-receiver.js), and the ws and socketio engines' callbacks called once (callbacks-once.js: a
 * crash of plain Artillery's when a target closes or drops connections). Where a package's layout no longer allows
 * one, the load process's log says so and the run goes on as plain Artillery would run it.
 * @returns {{ stepsWrappedOnce: boolean, wsQuietSecondEnd: boolean, callbacksOnce: boolean }} what was done (told in the ready file)
 */
function cheaperPaths() {
  return {
    stepsWrappedOnce: attempt("steps are wrapped per vuser: Artillery's HTTP engine not found", () => wrapStepsOnce(loadHttpEngine())),
    wsQuietSecondEnd: attempt('a closing WebSocket builds a dropped error, as plain Artillery', () => wsReceivers().forEach(quietSecondEnd)),
    // Not a cost but a crash of plain Artillery's (callbacks-once.js): said in the log all the same where it cannot be done.
    callbacksOnce: guardCallbacks('the load thread'),
  };
}

/**
 * Does `fn`; where it throws, the load process's log says what is left undone and the run goes on.
 * @param {string} what @param {() => void} fn @returns {boolean} whether it was done
 */
function attempt(what, fn) {
  try {
    fn();
    return true;
  } catch (err) {
    process.stderr.write(`rig: ${what} (${/** @type {Error} */ (err).message})\n`);
    return false;
  }
}

/**
 * The ws and socketio engines' callbacks called once (callbacks-once.js) in this thread. @param {string} where what
 * the crash would end @returns {boolean} whether it was done
 */
function guardCallbacks(where) {
  return attempt(
    `a connection the target closes or drops can call an engine's callback twice and end ${where}, as in plain Artillery: Artillery's ws or socketio engine not found`,
    () => callbacksOnce(),
  );
}

class Plugin {
  /**
   * @param {any} script the test script (a throw-away copy in the main thread)
   * @param {import('node:events').EventEmitter} events
   */
  constructor(script, events) {
    takeRampPlaces(script);
    const cfg = (script && script.config && script.config.plugins && script.config.plugins.rig) || {};
    /** @type {string} */
    this.spoolDir = cfg.spoolDir || process.env.RIG_SPOOL_DIR || '';
    /** @type {(() => Promise<void>) | undefined} set in the main thread */
    this.earlyStop = undefined;
    /** @type {{ shuttingDown(): void } | undefined} set in a worker thread */
    this.threadExits = undefined;
    if (!this.spoolDir) return; // not under the rig (e.g. plain `artillery run`): do nothing
    fs.mkdirSync(path.join(this.spoolDir, SPOOL.periods), { recursive: true });

    if (!isMainThread) {
      this.threadExits = reportEarlyExits(this.spoolDir, writeAtomic);
      flushOnStop(this.spoolDir);
      const cheaper = cheaperPaths();
      writeAtomic(path.join(this.spoolDir, SPOOL.ready(threadId)), { at: Date.now(), pid: process.pid, threadId, ...cheaper });
      const started = awaitStart(this.spoolDir, Number(cfg.startTimeoutMs) || 300_000);
      writeAtomic(path.join(this.spoolDir, SPOOL.started(threadId)), { ...started, pid: process.pid, threadId });
      watchEventLoop(this.spoolDir);
      return;
    }

    exitWithAgent();
    // The script's `before` and `after` sections run here, in the main thread, on engines of their own (runner.js
    // handleScriptHook): the same double callbacks would end the whole load process, before the load or after it.
    if (script && (script.before || script.after)) guardCallbacks('the load process (its before or after section)');
    let seq = 0;
    let finished = false;
    /** @type {Set<number>} */
    const writtenPeriods = new Set();
    const artillery = /** @type {any} */ (global).artillery;
    const ssms = artillery.__SSMS;
    events.on('stats', (stats) => {
      const name = `${String(stats.period)}-${String(seq++).padStart(6, '0')}.json`;
      writeAtomic(path.join(this.spoolDir, SPOOL.periods, name), ssms.serializeMetrics(stats));
      writtenPeriods.add(Number(stats.period));
    });
    events.on('done', (report) => {
      finished = true;
      writeAtomic(path.join(this.spoolDir, SPOOL.final), ssms.serializeMetrics(report));
    });
    // Artillery's shutdown unloads plugins (awaiting cleanup) after telling the workers to stop and
    // before it exits: the moment to wait for the periods the workers flush.
    this.earlyStop = async () => {
      if (!finished) await awaitWorkerFlush(this.spoolDir, writtenPeriods);
    };
  }

  /** @param {() => void} done */
  cleanup(done) {
    // A worker thread's plugins are unloaded by Artillery's own shutdown, right before its process.exit(0).
    this.threadExits?.shuttingDown();
    if (!this.earlyStop) return done();
    const asked = () => {
      // Artillery exits with the code a plugin suggested (artillery-plugin-expect: 21) once plugins are cleaned up:
      // written down so the agent can tell that exit from a crash.
      const code = /** @type {any} */ (global).artillery?.suggestedExitCode;
      if (typeof code === 'number' && code !== 0) {
        try { writeAtomic(path.join(this.spoolDir, SPOOL.asked), { code }); } catch { /* spool gone: read as a crash */ }
      }
      done();
    };
    this.earlyStop().then(asked, asked);
  }
}

module.exports = { Plugin, LEGACY_METRICS_FORMAT: false };
