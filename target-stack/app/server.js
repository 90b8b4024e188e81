#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Reference Socket.IO target: entry point for the cluster primary and for every worker.
 *   node target-stack/app/server.js      (or: npm run target)
 * Env: PORT, HOST, WORKERS, REDIS_URL, FAULT_DELIVERY_DELAY_MS, FAULT_WITHHOLD_FRACTION, FAULT_COOKIE_503_FRACTION,
 * FAULT_SEED — see README.md. Stdout carries exactly one line, the primary's "listening" JSON.
 */
// the typings declare a default export; at run time the CommonJS module is the Cluster object itself
const cluster = /** @type {import('node:cluster').Cluster} */ (/** @type {unknown} */ (require('node:cluster')));

/** Only this entry point ends the process; primary and worker call it when they are done. */
const entry = { exit: (/** @type {number} */ code) => process.exit(code) };

if (cluster.isPrimary) {
  require('./primary').main(entry);
} else {
  require('./worker')
    .main(entry)
    .catch((/** @type {Error} */ err) => {
      process.stderr.write(`target[worker pid ${process.pid}]: failed to start: ${err && err.stack}\n`);
      process.exit(1);
    });
}
