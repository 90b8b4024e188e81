#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * The generator agent: one per generator (a local process, or an EC2 instance via SSM Run Command).
 *
 *   node load-generators/agent.js --store <folder|s3://bucket/prefix> --generator <id>
 *
 * It reads its slice from the run store, starts one Artillery process per slice entry (each with its
 * own source address), reports ready, waits for the shared start instant, streams every period's
 * serialized metrics and its own resource samples into the store while the load runs, and writes
 * done.json when the load processes end. It stops itself when the orchestrator's heartbeat goes stale
 * (the orchestrator died) or when the orchestrator writes control/abort.json.
 *
 * Exit codes: 0 every load process ended normally; 1 a load process failed; 3 the agent itself failed
 * (bad store, bad slice) or was stopped (abort, orphaned, signal).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { parseArgs } = require('node:util');
const { openStore } = require('./lib/run-store');
const { COMPLETED, CONTROL, DEFAULTS, SPOOL, generatorKeys } = require('./lib/run-protocol');
const { loadSsmSecrets } = require('./lib/secrets');
const { sampleProcess } = require('./lib/health');
const { countSocketsByAddress, parseSourceAddresses, sourceAddressesFor } = require('./lib/source-addresses');
const { tuneScript } = require('./lib/script-tuning');
const { sharePayloads } = require('./lib/payload-share');

const PLUGINS_DIR = path.join(__dirname, 'plugins');
/** Preloaded into every load process and its worker threads: arrival pacing without nanotimer's busy-wait. */
const CALM_TIMERS = path.join(__dirname, 'lib', 'calm-timers.js');
const ARTILLERY_BIN = path.join(path.dirname(require.resolve('artillery/package.json')), 'bin', 'run');

/** @typedef {import('./lib/run-protocol').Slice} Slice */

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** How long a stopped load process gets to flush its period in progress before it is killed. */
const FLUSH_GRACE_MS = 12_000;

/**
 * Write-then-rename: the load processes poll these files (start, abort) and must never read half of one.
 * @param {string} file @param {string | Buffer} body
 */
function writeAtomic(file, body) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, body);
  fs.renameSync(tmp, file);
}

/**
 * Why a child ended, in words: its exit code, or the signal's name (never a bare 128).
 * @param {number | null} code @param {NodeJS.Signals | null} signal
 */
function exitText(code, signal) {
  return signal ? `killed by ${signal}` : `exit code ${code}`;
}

/** @param {string} msg @returns {never} */
function usage(msg) {
  process.stderr.write(`agent: ${msg}\nusage: node load-generators/agent.js --store <folder|s3://bucket/prefix> --generator <id>\n`);
  process.exit(3);
}

/**
 * Makes every path the script names (processor, payload files) absolute against the scenario's folder.
 * @param {any} script @param {string} scriptDir
 */
function resolveScriptPaths(script, scriptDir) {
  const cfg = script.config || {};
  if (typeof cfg.processor === 'string') cfg.processor = path.resolve(scriptDir, cfg.processor);
  const payloads = Array.isArray(cfg.payload) ? cfg.payload : cfg.payload ? [cfg.payload] : [];
  for (const p of payloads) if (p && typeof p.path === 'string') p.path = path.resolve(scriptDir, p.path);
  return script;
}

/**
 * The worst recent event-loop delay (p99 of the last window) of a load process's threads.
 * @param {string} spool
 */
function latestLag(spool) {
  let worst;
  for (const n of fs.readdirSync(spool).filter((f) => SPOOL.lagFile.test(f))) {
    try {
      const { p99Ms } = JSON.parse(fs.readFileSync(path.join(spool, n), 'utf8'));
      worst = Math.max(worst ?? 0, Number(p99Ms) || 0);
    } catch { /* being replaced right now */ }
  }
  return worst;
}

async function main() {
  const { values } = parseArgs({
    options: { store: { type: 'string' }, generator: { type: 'string' }, workdir: { type: 'string' } },
  });
  if (!values.store) usage('--store is required');
  if (!values.generator) usage('--generator is required');
  const store = openStore(/** @type {string} */ (values.store));
  const gid = /** @type {string} */ (values.generator);
  const keys = generatorKeys(gid);

  const sliceText = await store.get(keys.slice);
  if (!sliceText) usage(`no slice at ${store.location}/${keys.slice}`);
  /** @type {Slice} */
  const slice = JSON.parse(/** @type {string} */ (sliceText));
  const heartbeatTimeoutMs = slice.heartbeatTimeoutMs ?? DEFAULTS.heartbeatTimeoutMs;
  const healthIntervalMs = slice.healthIntervalMs ?? DEFAULTS.healthIntervalMs;

  // AWS: scenario secrets from SSM Parameter Store, into the load processes' environment only.
  /** @type {Record<string, string>} */
  let secrets = {};
  /** @type {string[]} notes the run output shows once (ready.json) */
  const notes = [];
  if (process.env.RIG_SECRETS_SSM_PATH) {
    try {
      const read = await loadSsmSecrets(process.env.RIG_SECRETS_SSM_PATH);
      secrets = read.env;
      if (read.note) notes.push(read.note);
    } catch (err) {
      // Said in the run store too, so the orchestrator's "stopped before it was ready" names the cause.
      const message = /** @type {Error} */ (err).message;
      await store.put(keys.error, JSON.stringify({ at: Date.now(), message })).catch(() => undefined);
      usage(message);
    }
  }

  const work = fs.mkdtempSync(path.join(values.workdir || os.tmpdir(), `rig-${gid}-`));
  // However the agent ends (done, failed, stopped), its temporary folder goes with it.
  process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));
  /** @type {{ k: number, spool: string, child: import('node:child_process').ChildProcess, exit?: number | null, why: string, pushed: Set<string>, logFile: string }[]} */
  const procs = [];
  let stopping = '';

  const stopAll = (/** @type {string} */ reason) => {
    if (stopping) return;
    stopping = reason;
    for (const p of procs) {
      try { writeAtomic(path.join(p.spool, SPOOL.abort), reason); } catch { /* spool gone */ }
      // SIGTERM: Artillery's graceful shutdown, during which the rig plugin flushes the period in progress.
      if (p.exit === undefined) p.child.kill('SIGTERM');
    }
    // A load process that ignores SIGTERM is killed: the agent never leaves one behind.
    setTimeout(() => { for (const p of procs) if (p.exit === undefined) p.child.kill('SIGKILL'); }, FLUSH_GRACE_MS).unref();
  };
  process.on('SIGTERM', () => stopAll('signal'));
  process.on('SIGINT', () => stopAll('signal'));

  // Specs without a source address (AWS) are spread over this instance's private IPv4 addresses.
  const sources = await sourceAddressesFor(slice.processes);
  const sourceList = (/** @type {number} */ k) => parseSourceAddresses(sources[k]);
  slice.processes.forEach((spec, k) => {
    const spool = path.join(work, `p${k}`);
    fs.mkdirSync(path.join(spool, SPOOL.periods), { recursive: true });
    const { script, changed } = tuneScript(resolveScriptPaths(JSON.parse(JSON.stringify(spec.script)), slice.scriptDir));
    // The slice stores the target with its credentials redacted; the real URL comes only in the environment.
    if (slice.targetFromEnv && process.env.RIG_TARGET_URL) script.config.target = process.env.RIG_TARGET_URL;
    changed.push(...sharePayloads(script, spool));
    if (changed.length) process.stderr.write(`agent: p${k}: ${changed.join('; ')}\n`);
    script.config.plugins = { ...(script.config.plugins || {}), rig: { spoolDir: spool } };
    const scriptFile = path.join(spool, SPOOL.script);
    writeAtomic(scriptFile, JSON.stringify(script));
    const logFile = path.join(spool, SPOOL.log);
    const log = fs.openSync(logFile, 'a');
    const child = spawn(process.execPath, [ARTILLERY_BIN, 'run', scriptFile], {
      cwd: spool,
      stdio: ['ignore', log, log],
      env: {
        ...process.env,
        WORKERS: '1',
        ...secrets,
        ARTILLERY_DISABLE_TELEMETRY: 'true',
        // Ensure is evaluated once, on the merged data, by the orchestrator: never on one process's slice.
        ARTILLERY_DISABLE_ENSURE: 'true',
        ARTILLERY_PLUGIN_PATH: PLUGINS_DIR,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS || ''} --require ${JSON.stringify(CALM_TIMERS)}`.trim(),
        RIG_SOURCE_ADDRESS: sources[k] || '',
        // Scenarios with one-per-run duties (e.g. the pub/sub publisher) run them on generator 0, process 0.
        RIG_GENERATOR_ID: gid,
        RIG_GENERATOR_INDEX: String(slice.index ?? 0),
        RIG_GENERATOR_COUNT: String(slice.count ?? 1),
        RIG_PROCESS_INDEX: String(k),
        RIG_TARGET_URL: '',
      },
    });
    fs.closeSync(log);
    const entry = { k, spool, child, exit: /** @type {number | null | undefined} */ (undefined), why: '', pushed: new Set(), logFile };
    child.on('exit', (code, signal) => {
      entry.exit = code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1);
      entry.why = exitText(code, signal);
    });
    procs.push(entry);
  });

  /** Copies every new spool file into the store (periods are immutable once renamed into place). */
  const push = async () => {
    for (const p of procs) {
      const names = fs.readdirSync(p.spool).filter((n) => SPOOL.shipped.test(n));
      const periods = fs.readdirSync(path.join(p.spool, SPOOL.periods)).filter((n) => n.endsWith('.json')).map((n) => `${SPOOL.periods}/${n}`);
      for (const rel of [...periods, ...names]) {
        if (p.pushed.has(rel)) continue;
        await store.put(keys.process(p.k, rel), fs.readFileSync(path.join(p.spool, rel)));
        p.pushed.add(rel);
      }
    }
  };

  // 1. Ready once every load process has a thread waiting at the barrier.
  const readyDeadline = Date.now() + 120_000;
  for (;;) {
    if (stopping) break;
    const allReady = procs.every((p) => fs.readdirSync(p.spool).some((n) => SPOOL.readyFile.test(n)));
    const dead = procs.find((p) => p.exit !== undefined);
    if (dead) { stopAll(`load process p${dead.k} ended before start (${dead.why}; see ${keys.artilleryLog(dead.k)})`); break; }
    if (allReady) break;
    if (Date.now() > readyDeadline) { stopAll('load processes not ready within 120 s'); break; }
    await sleep(50);
  }
  if (!stopping) {
    /** @type {import('./lib/run-protocol').ReadyMarker} */
    const ready = { at: Date.now(), pid: process.pid, host: os.hostname(), processes: procs.length, notes };
    await store.put(keys.ready, JSON.stringify(ready));
  }

  // 2. Wait for the start instant (or an abort / a dead orchestrator), then hand it to the load processes.
  let lastHeartbeatSeen = Date.now();
  const checkControl = async () => {
    const abort = await store.get(CONTROL.abort);
    if (abort) { stopAll(`aborted by the orchestrator: ${JSON.parse(abort).reason || ''}`); return; }
    const hb = await store.get(CONTROL.heartbeat);
    if (hb) lastHeartbeatSeen = Math.max(lastHeartbeatSeen, Number(JSON.parse(hb).at) || 0);
    if (Date.now() - lastHeartbeatSeen > heartbeatTimeoutMs) stopAll('orphaned: the orchestrator heartbeat stopped');
  };
  while (!stopping) {
    const start = await store.get(CONTROL.start);
    if (start) {
      for (const p of procs) writeAtomic(path.join(p.spool, SPOOL.start), start);
      break;
    }
    await checkControl();
    await sleep(50);
  }

  // 3. Run: stream periods and health samples until every load process has exited.
  let nextHealth = 0;
  let nextControl = 0;
  /**
   * A run store that cannot be written (disk full, access denied) ends this generator cleanly: the load
   * stops, what was already stored stays, and the agent exits 3 so the orchestrator marks it lost.
   * @param {unknown} err
   */
  const storeFailed = (err) => {
    const e = /** @type {NodeJS.ErrnoException} */ (err);
    stopAll(`cannot write the run store ${store.location}: ${e.code || e.name || ''} ${e.message || err}`.trim());
  };
  while (procs.some((p) => p.exit === undefined)) {
    try {
      await runStep();
    } catch (err) {
      storeFailed(err);
    }
    await sleep(250);
  }
  try {
    await push();
    for (const p of procs) await store.put(keys.artilleryLog(p.k), fs.readFileSync(p.logFile));
  } catch (err) {
    storeFailed(err);
  }
  const exitCodes = procs.map((p) => p.exit ?? null);
  const failed = procs.filter((p) => p.exit !== 0).map((p) => `p${p.k} ${p.why}`);
  const reason = stopping || (failed.length ? `load process ${failed.join(', ')}` : COMPLETED);
  /** @type {import('./lib/run-protocol').DoneMarker} */
  const done = { at: Date.now(), exitCodes, reason };
  await store.put(keys.done, JSON.stringify(done)).catch(() => undefined);
  if (stopping) process.stderr.write(`agent ${gid}: stopped: ${stopping}\n`);
  fs.rmSync(work, { recursive: true, force: true });
  process.exitCode = stopping ? 3 : exitCodes.every((c) => c === 0) ? 0 : 1;

  /** One pass of the run loop: push new files, check control, sample health when due. */
  async function runStep() {
    await push();
    const now = Date.now();
    if (now >= nextControl) { await checkControl(); nextControl = now + 1000; }
    if (now >= nextHealth) {
      nextHealth = now + healthIntervalMs;
      // One count for every process (ss, filtered to these addresses); a process's figure is its busiest address.
      const sockets = await countSocketsByAddress(procs.flatMap((p) => sourceList(p.k)));
      const ports = sockets?.ports;
      const sum = (/** @type {Map<string, number> | undefined} */ m, /** @type {number} */ k) => (m && sourceList(k).length ? sourceList(k).reduce((a, addr) => a + (m.get(addr) || 0), 0) : undefined);
      const samples = procs.filter((p) => p.exit === undefined && p.child.pid).map((p) => ({
        process: `p${p.k}`,
        ...sampleProcess(/** @type {number} */ (p.child.pid)),
        portsInUse: ports && sourceList(p.k).length ? Math.max(...sourceList(p.k).map((a) => ports.get(a) || 0)) : undefined,
        // Connections this process holds (every address it connects from): the generator side of "held".
        socketsEstablished: sum(sockets?.established, p.k),
        eventLoopLagMs: latestLag(p.spool),
      }));
      await store.put(keys.health(now), JSON.stringify({ at: now, samples }));
    }
  }
}

main().catch((err) => {
  process.stderr.write(`agent: ${err && err.stack ? err.stack : err}\n`);
  process.exitCode = 3;
});
