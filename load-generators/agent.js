#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * The generator agent: one per generator (a local process, or an EC2 instance via SSM Run Command).
 *
 *   node load-generators/agent.js --store <folder|s3://bucket/prefix> --generator <id>
 *
 * It reads its slice from the run store, starts one Artillery process per slice entry (each with its
 * own source address), reports ready, learns the shared start instant and sleeps until it (on its
 * synchronized clock), streams every period's serialized metrics and its own resource samples into the
 * store while the load runs, and writes done.json when the load processes end. It stops itself when the
 * orchestrator's heartbeat goes stale (the orchestrator died) or when the orchestrator writes
 * control/abort.json. The parts, each in lib/: agent-slice (slice loader), agent-supervisor (the load
 * processes), agent-spooler (spool → store, health), agent-control (start instant, abort, heartbeat), agent-end
 * (the last files and done.json).
 *
 * Exit codes: 0 every load process ended normally; 1 a load process failed; 3 the agent itself failed
 * (bad store, bad slice, done.json not written) or was stopped (abort, orphaned, signal).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { openStore } = require('./lib/run-store');
const { DEFAULTS, ORPHANED, SPOOL, STOPPED_BY_SIGNAL, generatorKeys } = require('./lib/run-protocol');
const { systemClock } = require('./lib/backoff');
const { SliceError, isTypescriptProcessor, loadSlice, processScript } = require('./lib/agent-slice');
const { supervisor, writeAtomic } = require('./lib/agent-supervisor');
const { spooler } = require('./lib/agent-spooler');
const { controlWatcher } = require('./lib/agent-control');
const { endRun } = require('./lib/agent-end');
const { storeFailure, storeTolerance } = require('./lib/store-tolerance');
const { sourceAddressesFor } = require('./lib/source-addresses');
const { installedOsPackages } = require('./lib/os-packages');

/** @param {string} msg @returns {never} */
function usage(msg) {
  process.stderr.write(`agent: ${msg}\nusage: node load-generators/agent.js --store <folder|s3://bucket/prefix> --generator <id>\n`);
  process.exit(3);
}

/**
 * Every load process's script, in its spool, before any process starts: a script that cannot be made (a TypeScript
 * processor that does not compile) ends the agent with its reason, said in the run store too, so the orchestrator's
 * "stopped before it was ready" names it.
 * @param {import('./lib/run-protocol').Slice} slice @param {string} work @param {import('./lib/run-store').RunStore} store
 * @param {string} errorKey @param {import('./lib/backoff').AgentClock} clock
 */
async function loadProcessScripts(slice, work, store, errorKey, clock) {
  try {
    return slice.processes.map((_, k) => {
      const spool = path.join(work, `p${k}`);
      fs.mkdirSync(path.join(spool, SPOOL.periods), { recursive: true });
      return processScript(slice, k, spool, { targetUrl: process.env.RIG_TARGET_URL, warn: (l) => process.stderr.write(`${l}\n`) });
    });
  } catch (err) {
    if (!(err instanceof SliceError)) throw err;
    await store.put(errorKey, JSON.stringify({ at: clock.now(), message: err.message })).catch(() => undefined);
    return usage(err.message);
  }
}

/** @param {import('./lib/backoff').AgentClock} clock */
async function main(clock) {
  const { values } = parseArgs({ options: { store: { type: 'string' }, generator: { type: 'string' }, workdir: { type: 'string' } } });
  if (!values.store) usage('--store is required');
  if (!values.generator) usage('--generator is required');
  const store = openStore(values.store);
  const gid = values.generator;
  const keys = generatorKeys(gid);
  const loaded = await loadSlice(store, gid, { secretsPath: process.env.RIG_SECRETS_SSM_PATH }).catch((err) => {
    if (err instanceof SliceError) usage(err.message);
    throw err;
  });
  const { slice, secrets, notes } = loaded;

  const work = fs.mkdtempSync(path.join(values.workdir || os.tmpdir(), `rig-${gid}-`));
  // However the agent ends (done, failed, stopped), its temporary folder goes with it.
  process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));
  const ended = new AbortController();
  const sup = supervisor({ clock, onStopped: () => ended.abort() });
  process.on('SIGTERM', () => sup.stopAll(STOPPED_BY_SIGNAL));
  process.on('SIGINT', () => sup.stopAll(STOPPED_BY_SIGNAL));

  // Specs without a source address (AWS) are spread over this instance's private IPv4 addresses; a local alias is
  // kept only where it reaches the target.
  const { sources, notes: sourceNotes } = await sourceAddressesFor(slice.processes);
  notes.push(...sourceNotes);
  const scripts = await loadProcessScripts(slice, work, store, keys.error, clock);
  slice.processes.forEach((_, k) => {
    const spool = path.join(work, `p${k}`);
    writeAtomic(path.join(spool, SPOOL.script), JSON.stringify(scripts[k]));
    // A bundled TypeScript processor: stack traces through its inline source map, as Artillery sets for its worker.
    const sourceMaps = isTypescriptProcessor(slice.processes[k]?.script?.config?.processor);
    sup.start(k, spool, secrets, {
      RIG_SOURCE_ADDRESS: sources[k] || '',
      // Scenarios with one-per-run duties (e.g. the pub/sub publisher) run them on generator 0, process 0.
      RIG_GENERATOR_ID: gid,
      RIG_GENERATOR_INDEX: String(slice.index ?? 0),
      RIG_GENERATOR_COUNT: String(slice.count ?? 1),
      RIG_PROCESS_INDEX: String(k),
      RIG_TARGET_URL: '',
      // The run's one test id ({{ $testId }}): every load process of the run gets the same (else each draws its own).
      ...(slice.testRunId ? { ARTILLERY_TEST_RUN_ID: slice.testRunId } : {}),
    }, { sourceMaps });
  });
  const targets = slice.processes.map((s) => s.script?.config?.target);
  const spool = spooler({ store, keys, procs: sup.procs, sources, targets, clock, healthIntervalMs: slice.healthIntervalMs ?? DEFAULTS.healthIntervalMs });
  /**
   * A run store that cannot be read or written (disk full, access denied, or failing past the heartbeat timeout)
   * ends this generator cleanly: the load stops, what was already stored stays, and the agent exits 3 so the
   * orchestrator marks it lost. Shorter failures are ridden out (lib/store-tolerance.js), reads and writes apart.
   * @param {unknown} err
   */
  const storeFailed = (err) => sup.stopAll(storeFailure(store, err));
  const riding = (/** @type {string} */ what) => storeTolerance({ clock, budgetMs: slice.heartbeatTimeoutMs ?? DEFAULTS.heartbeatTimeoutMs, log: (l) => process.stderr.write(`agent ${gid}: ${what}: ${l}\n`) });
  const writes = riding('writes');

  // 1. Ready once every load process has a thread waiting at the barrier.
  if (await sup.waitReady((k) => keys.artilleryLog(k), undefined, (k) => Boolean(scripts[k] && scripts[k].before))) {
    // The OS package builds this generator's boot recorded (AWS): the run folder says which CloudWatch agent it ran.
    const osPackages = installedOsPackages(__dirname);
    /** @type {import('./lib/run-protocol').ReadyMarker} */
    const ready = { at: clock.now(), pid: process.pid, host: os.hostname(), processes: sup.procs.length, notes, ...(osPackages ? { osPackages } : {}) };
    await writes.settle(() => store.put(keys.ready, JSON.stringify(ready)));
  }

  // 2. Learn the start instant (or an abort / a dead orchestrator); the load processes sleep until it.
  const control = controlWatcher({ store: riding('control reads').reads(store), clock, heartbeatTimeoutMs: slice.heartbeatTimeoutMs ?? DEFAULTS.heartbeatTimeoutMs, ...(slice.startLeadMs ? { startLeadMs: slice.startLeadMs } : {}), onStop: (r) => sup.stopAll(r) });
  const startAt = sup.stopping() ? undefined : await control.awaitStart(ended.signal).catch((err) => void storeFailed(err));
  if (startAt !== undefined && !sup.stopping()) {
    sup.handStart(JSON.stringify({ startAt }));
    const late = clock.now() - startAt;
    if (late > 0) process.stderr.write(`agent ${gid}: the start instant passed ${late} ms before this agent learned it; started at once (the lateness is in the run's start skew)\n`);
  }

  // 3. Run: stream periods and health samples until every load process has exited; watch control meanwhile.
  const watching = control.watch(ended.signal).catch(storeFailed);
  while (sup.alive()) {
    await writes.attempt(() => spool.step()).catch(storeFailed);
    sup.stopOnThreadExit();
    await clock.sleep(250);
  }
  ended.abort();
  await watching;
  // 4. The last files, then done.json, each retried as every store write is (lib/agent-end.js).
  const { stopping, exitCode } = await endRun({ store, doneKey: keys.done, spool, sup, writes, clock, log: (l) => process.stderr.write(`agent ${gid}: ${l}\n`) });
  fs.rmSync(work, { recursive: true, force: true });
  // The orchestrator removes the folder it made for its agents when it stops; an orphaned agent's orchestrator is
  // gone, so the last of its agents to leave removes it (rmdir: only once empty; the others' attempts fail harmlessly).
  if (values.workdir && stopping && stopping.startsWith(ORPHANED)) {
    try {
      fs.rmdirSync(values.workdir);
    } catch {
      /* another agent of the run still has its folder there, or it is gone already */
    }
  }
  process.exitCode = exitCode;
}

// main sets its own exit code (process.exitCode) and resolves; one that ran out of work before that is exit 3.
require('./lib/run-entry').runEntry(
  'agent',
  () => main(systemClock).then(() => Number(process.exitCode ?? 0)),
  (/** @type {any} */ err) => {
    process.stderr.write(`agent: ${err && err.stack ? err.stack : err}\n`);
    return 3;
  },
  // No one runs the agent by hand: the run folder keeps its log (generators/<id>/agent.log).
  { report: 'please report it with the run folder' },
);
