// @ts-check
'use strict';
/**
 * The primary's workers: forks WORKERS workers on one claimed port, prints the one stdout line when every worker
 * listens, replaces a worker lost mid-run, and stops them all on shutdown (gracefully, then by force).
 */
// the typings declare a default export; at run time the CommonJS module is the Cluster object itself
const cluster = /** @type {import('node:cluster').Cluster} */ (/** @type {unknown} */ (require('node:cluster')));
const net = require('node:net');
const path = require('node:path');
const { sendToWorker } = require('./ipc');

const SHUTDOWN_GRACE_MS = 4000;

/**
 * Forks the workers, announces the target once they all listen, replaces a lost one, and stops them all.
 */
class Supervisor {
  /**
   * @param {object} deps
   * @param {import('./config').TargetConfig} deps.cfg
   * @param {(msg: string) => void} deps.log
   * @param {(code: number) => never} deps.exit      ends the process (the entry point's)
   * @param {() => void} deps.onStopped              once every worker is gone, before the exit
   */
  constructor({ cfg, log, exit, onStopped }) {
    this.cfg = cfg;
    this.log = log;
    this.exit = exit;
    this.onStopped = onStopped;
    /** @type {Map<number, number>} worker id → port */
    this.listening = new Map();
    /** The port every worker binds: PORT, or for PORT=0 the free port the probe found. */
    this.port = cfg.port;
    this.announced = false;
    this.shuttingDown = false;
    /** Workers replaced after a loss (reported by /metrics). */
    this.restarts = 0;
    this.exitCode = 0;
    cluster.on('exit', (worker, code, signal) => this.onWorkerExit(worker, code, signal));
    // a worker leaves cluster.workers only after both its exit and its disconnect: check on either
    cluster.on('disconnect', () => {
      if (this.shuttingDown) this.exitIfAllDead();
    });
  }

  /** Claims the port, then forks the workers. */
  start() {
    cluster.setupPrimary({
      exec: path.join(__dirname, 'server.js'),
      serialization: 'advanced',
      // workers' stdout goes to our stderr: stdout carries only the listening line
      stdio: ['ignore', 2, 2, 'ipc'],
    });
    // Each worker accepts on its own SO_REUSEPORT socket and the kernel spreads connections over them: the
    // primary no longer accepts every connection and passes its handle over IPC (Node's round-robin cluster
    // mode, ~20% of the target's CPU per connection at a few hundred connections/s). Claiming the port once
    // without SO_REUSEPORT first keeps "port in use" an error (another process's reuseport socket could
    // otherwise silently share it) and turns PORT=0 into one free port for all workers.
    claimPort(this.cfg.port, this.cfg.host).then(
      (p) => {
        this.port = p;
        if (!this.shuttingDown) for (let i = 0; i < this.cfg.workers; i++) this.forkWorker();
      },
      (/** @type {NodeJS.ErrnoException} */ err) => {
        process.stderr.write(listenErrorLine(this.cfg, err.code, err.message));
        this.exit(listenErrorExit(err.code));
      },
    );
  }

  /** A worker listens. @param {number} workerId @param {number} port */
  onListening(workerId, port) {
    this.listening.set(workerId, port);
    if (this.announced || this.shuttingDown || this.listening.size < this.cfg.workers) return;
    this.announced = true;
    const { host, workers } = this.cfg;
    process.stdout.write(`${JSON.stringify({ event: 'listening', port: this.port, host, workers, pid: process.pid })}\n`);
  }

  /** A worker could not listen. @param {string | undefined} code @param {string} message */
  onListenError(code, message) {
    if (this.shuttingDown) return;
    process.stderr.write(listenErrorLine(this.cfg, code, message));
    this.shutdown(listenErrorExit(code));
  }

  /** Stops every worker, then the process with this code. @param {number} code */
  shutdown(code) {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    this.exitCode = code;
    process.exitCode = code; // also if the loop empties before the last worker's exit event is seen
    const workers = Object.values(cluster.workers || {});
    if (workers.length === 0) this.exit(this.exitCode);
    for (const w of workers) {
      if (!w) continue;
      if (code === 2 || !this.announced) w.process.kill('SIGKILL');
      else sendToWorker(w, { t: 'shutdown' });
    }
    const force = setTimeout(() => {
      for (const w of Object.values(cluster.workers || {})) if (w) w.process.kill('SIGKILL');
      setTimeout(() => this.exit(this.exitCode), 300).unref();
    }, SHUTDOWN_GRACE_MS);
    force.unref();
  }

  /** @private */
  exitIfAllDead() {
    if (Object.values(cluster.workers || {}).every((w) => !w || w.isDead())) {
      this.onStopped();
      this.exit(this.exitCode);
    }
  }

  /** @private */
  forkWorker() {
    // Every worker (and every replacement) binds the same concrete port with SO_REUSEPORT.
    const w = cluster.fork({ PORT: String(this.port) });
    // e.g. EPIPE when the primary's cluster internals message a worker we just killed: never crash the primary
    w.on('error', (err) => {
      if (!this.shuttingDown) this.log(`worker ${w.id}: ${err.message}`);
    });
  }

  /**
   * @private
   * @param {import('node:cluster').Worker} worker @param {number} code @param {string} signal
   */
  onWorkerExit(worker, code, signal) {
    this.listening.delete(worker.id);
    if (this.shuttingDown) {
      this.exitIfAllDead();
      return;
    }
    const how = `worker ${worker.id} (pid ${worker.process.pid}) exited (${signal || `code ${code}`})`;
    if (!this.announced) {
      this.log(`${how} while starting; stopping the target`);
      this.shutdown(1);
      return;
    }
    // A worker lost mid-run is a TARGET failure the load test must see (its sockets drop, clients must
    // reconnect elsewhere): replace it and keep serving, as a supervised production target would.
    this.restarts++;
    this.log(`${how}; starting a replacement`);
    this.forkWorker();
  }
}

/**
 * @param {import('./config').TargetConfig} cfg
 * @param {string | undefined} code
 * @param {string} message
 */
function listenErrorLine(cfg, code, message) {
  if (code === 'EADDRINUSE') return `target: port ${cfg.port} on ${cfg.host} is already in use; pass another PORT or stop the other process\n`;
  if (code === 'ENOTFOUND') return `target: HOST="${cfg.host}" does not resolve to an address of this machine; use an address such as 127.0.0.1 or 0.0.0.0\n`;
  return `target: cannot listen on ${cfg.host}:${cfg.port}: ${message}\n`;
}

/** @param {string | undefined} code */
function listenErrorExit(code) {
  return code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' ? 2 : 1;
}

/**
 * Binds host:port exclusively, reads the port, and lets it go again.
 * @param {number} port
 * @param {string} host
 * @returns {Promise<number>}
 */
function claimPort(port, host) {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => {
      const addr = probe.address();
      const bound = addr && typeof addr === 'object' ? addr.port : port;
      probe.close(() => resolve(bound));
    });
  });
}

module.exports = { Supervisor };
