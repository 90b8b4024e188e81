// @ts-check
'use strict';
/**
 * The cluster primary: forks WORKERS workers (supervisor.js), relays the cluster adapter's messages (setupPrimary),
 * sequences broadcasts and stores sessions for connection state recovery, answers the workers (primary-messages.js),
 * prints the one stdout line when every worker listens, and stops everything on SIGTERM/SIGINT.
 */
// the typings declare a default export; at run time the CommonJS module is the Cluster object itself
const cluster = /** @type {import('node:cluster').Cluster} */ (/** @type {unknown} */ (require('node:cluster')));
const { setupPrimary: setupAdapterPrimary } = require('@socket.io/cluster-adapter');
const { loadConfig, ConfigError } = require('./config');
const { SOURCE, sendToWorker } = require('./ipc');
const { RecoveryStore } = require('./recovery-store');
const { ClusterRates } = require('./metrics');
const { Supervisor } = require('./supervisor');
const { createMessageHandler } = require('./primary-messages');

const BROADCAST = 3; // socket.io-adapter MessageType.BROADCAST

/** @param {string} msg */
function log(msg) {
  process.stderr.write(`target[primary pid ${process.pid}]: ${msg}\n`);
}

/**
 * The target's configuration from the environment; a bad value ends the process with exit code 2.
 * @param {(code: number) => never} exit
 * @returns {import('./config').TargetConfig}
 */
function configOrExit(exit) {
  // Configured by the environment only: a flag (`npm run target -- --port 3100`) would otherwise be ignored silently.
  const args = process.argv.slice(2);
  if (args.length > 0) {
    process.stderr.write(`target: takes no arguments (got ${args.join(' ')}); set PORT, HOST, WORKERS in the environment, e.g. PORT=3100 npm run target\n`);
    return exit(2);
  }
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return exit(2);
  }
}

/**
 * @param {{ exit: (code: number) => never }} entry how the entry point ends the process (server.js: process.exit)
 */
function main({ exit }) {
  const cfg = configOrExit(exit);
  const store = new RecoveryStore(cfg.recoveryMs);
  const supervisor = new Supervisor({ cfg, log, exit, onStopped: () => store.close() });
  const handleTargetMessage = createMessageHandler({ cfg, store, rates: new ClusterRates(), supervisor });

  // Registered BEFORE the adapter's setupPrimary() listener: it stamps the offset onto a BROADCAST message object,
  // which setupPrimary's listener then relays (same object) to the other workers.
  cluster.on('message', (worker, /** @type {any} */ msg) => {
    if (!msg) return;
    if (msg.source === '_sio_adapter') {
      if (msg.type === BROADCAST && msg.seqReq !== undefined && msg.data) {
        const offset = store.record(msg.data.opts || {}, msg.data.packet);
        msg.offset = offset;
        sendToWorker(worker, { t: 'offset', seqReq: msg.seqReq, offset });
      }
      return;
    }
    if (msg.source === SOURCE) handleTargetMessage(worker, msg);
  });
  if (!cfg.redisUrl) setupAdapterPrimary();

  process.on('SIGTERM', () => supervisor.shutdown(0));
  process.on('SIGINT', () => supervisor.shutdown(0));
  supervisor.start();

  if (cfg.exitWithParent) {
    // Started by the rig for one run: never outlive it (the rig may be SIGKILLed and unable to stop us).
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) {
        log(`parent ${parent} is gone; stopping the target`);
        supervisor.shutdown(0);
      }
    }, 1000).unref();
  }
}

module.exports = { main };
