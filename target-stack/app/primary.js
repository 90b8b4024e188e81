// @ts-check
'use strict';
/**
 * The cluster primary: forks WORKERS workers, relays the cluster adapter's messages (setupPrimary), sequences
 * broadcasts and stores sessions for connection state recovery, counts room members exactly, aggregates /metrics,
 * prints the one stdout line when every worker listens, and stops everything on SIGTERM/SIGINT.
 */
// the typings declare a default export; at run time the CommonJS module is the Cluster object itself
const cluster = /** @type {import('node:cluster').Cluster} */ (/** @type {unknown} */ (require('node:cluster')));
const net = require('node:net');
const path = require('node:path');
const { setupPrimary: setupAdapterPrimary } = require('@socket.io/cluster-adapter');
const { loadConfig, ConfigError } = require('./config');
const { SOURCE } = require('./ipc');
const { RecoveryStore } = require('./recovery-store');
const { ClusterRates, aggregate } = require('./metrics');

const SHUTDOWN_GRACE_MS = 4000;
const BROADCAST = 3; // socket.io-adapter MessageType.BROADCAST

/** @param {string} msg */
function log(msg) {
  process.stderr.write(`target[primary pid ${process.pid}]: ${msg}\n`);
}

/**
 * @param {{ exit: (code: number) => never }} entry how the entry point ends the process (server.js: process.exit)
 */
function main({ exit }) {
  /** @type {import('./config').TargetConfig} */
  let cfg;
  try {
    cfg = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      exit(2);
    }
    throw err;
  }
  const local = !cfg.redisUrl;
  const store = new RecoveryStore(cfg.recoveryMs);
  const rates = new ClusterRates();
  /** @type {Map<string, number>} */
  const roomSizes = new Map();
  /** @type {Map<number, number>} worker id → port */
  const listening = new Map();
  /** The port every worker binds: PORT, or for PORT=0 the free port the probe found. */
  let port = cfg.port;
  let announced = false;
  let shuttingDown = false;
  let workerRestarts = 0;
  let exitCode = 0;
  let lastCpu = process.cpuUsage();
  let lastCpuAt = performance.now();

  /**
   * @param {import('node:cluster').Worker} worker
   * @param {Record<string, unknown>} msg
   */
  const sendTo = (worker, msg) => {
    if (worker.isConnected()) worker.send({ source: SOURCE, ...msg }, undefined, () => {});
  };
  /**
   * @param {import('node:cluster').Worker} worker
   * @param {any} req
   * @param {Record<string, unknown>} body
   */
  const reply = (worker, req, body) => sendTo(worker, { reply: true, reqId: req.reqId, ...body });

  /** @type {Map<number, { snaps: any[], expected: number, done: (snaps: any[]) => void }>} */
  const collections = new Map();
  let nextCollectId = 0;
  /** @returns {Promise<any[]>} */
  const collectSnapshots = () =>
    new Promise((resolve) => {
      const workers = Object.values(cluster.workers || {}).filter((w) => w && w.isConnected());
      const collectId = ++nextCollectId;
      const finish = (/** @type {any[]} */ snaps) => {
        collections.delete(collectId);
        clearTimeout(t);
        resolve(snaps.sort((a, b) => a.worker - b.worker));
      };
      const t = setTimeout(() => {
        const c = collections.get(collectId);
        finish(c ? c.snaps : []);
      }, 2000);
      collections.set(collectId, { snaps: [], expected: workers.length, done: finish });
      for (const w of workers) if (w) sendTo(w, { t: 'snapshot', collectId });
      if (workers.length === 0) finish([]);
    });

  // Registered BEFORE the adapter's setupPrimary() listener: it stamps the offset onto a BROADCAST message object,
  // which setupPrimary's listener then relays (same object) to the other workers.
  cluster.on('message', (worker, /** @type {any} */ msg) => {
    if (!msg) return;
    if (msg.source === '_sio_adapter') {
      if (msg.type === BROADCAST && msg.seqReq !== undefined && msg.data) {
        const offset = store.record(msg.data.opts || {}, msg.data.packet);
        msg.offset = offset;
        sendTo(worker, { t: 'offset', seqReq: msg.seqReq, offset });
      }
      return;
    }
    if (msg.source !== SOURCE) return;
    switch (msg.t) {
      case 'listening':
        listening.set(worker.id, msg.port);
        maybeAnnounce();
        break;
      case 'listen-error':
        if (!shuttingDown) {
          process.stderr.write(listenErrorLine(msg.code, msg.message));
          shutdown(listenErrorExit(msg.code));
        }
        break;
      case 'conns':
        rates.setConnections(worker.id, msg.n);
        break;
      case 'bucket':
        rates.addBucket(msg);
        break;
      case 'join': {
        /** @type {number[]} */
        const counts = [];
        for (const room of msg.rooms) {
          const n = (roomSizes.get(room) ?? 0) + 1;
          roomSizes.set(room, n);
          counts.push(n);
        }
        reply(worker, msg, { counts });
        break;
      }
      case 'leave':
        for (const room of msg.rooms) {
          const n = (roomSizes.get(room) ?? 0) - 1;
          if (n <= 0) roomSizes.delete(room);
          else roomSizes.set(room, n);
        }
        break;
      case 'rooms':
        reply(worker, msg, { rooms: roomSizes.size });
        break;
      case 'persist':
        store.persist(msg.session);
        break;
      case 'restore':
        store.restore(msg.pid, msg.offset).then(
          (session) => reply(worker, msg, { session }),
          () => reply(worker, msg, { session: null }),
        );
        break;
      case 'snapshot': {
        const c = collections.get(msg.collectId);
        if (c) {
          c.snaps.push(msg.snap);
          if (c.snaps.length >= c.expected) c.done(c.snaps);
        }
        break;
      }
      case 'metrics':
        collectSnapshots().then((snaps) => {
          const cpu = process.cpuUsage(lastCpu);
          const at = performance.now();
          const primaryCpu = ((cpu.user + cpu.system) / 1000 / Math.max(1, at - lastCpuAt)) * 100;
          lastCpu = process.cpuUsage();
          lastCpuAt = at;
          const metrics = aggregate(snaps, rates, roomSizes.size, {
            adapter: local ? 'cluster' : 'redis',
            workersConfigured: cfg.workers,
            workerRestarts,
            primaryCpu,
          });
          reply(worker, msg, { metrics });
        });
        break;
      default:
        break;
    }
  });
  if (local) setupAdapterPrimary();

  function maybeAnnounce() {
    if (announced || shuttingDown || listening.size < cfg.workers) return;
    announced = true;
    process.stdout.write(
      `${JSON.stringify({ event: 'listening', port, host: cfg.host, workers: cfg.workers, pid: process.pid })}\n`,
    );
  }

  /** @param {number} code */
  function shutdown(code) {
    if (shuttingDown) return;
    shuttingDown = true;
    exitCode = code;
    process.exitCode = code; // also if the loop empties before the last worker's exit event is seen
    const workers = Object.values(cluster.workers || {});
    if (workers.length === 0) exit(exitCode);
    for (const w of workers) {
      if (!w) continue;
      if (code === 2 || !announced) w.process.kill('SIGKILL');
      else sendTo(w, { t: 'shutdown' });
    }
    const force = setTimeout(() => {
      for (const w of Object.values(cluster.workers || {})) if (w) w.process.kill('SIGKILL');
      setTimeout(() => exit(exitCode), 300).unref();
    }, SHUTDOWN_GRACE_MS);
    force.unref();
  }

  cluster.on('exit', (worker, code, signal) => {
    listening.delete(worker.id);
    if (shuttingDown) {
      exitIfAllDead();
      return;
    }
    if (!announced) {
      log(`worker ${worker.id} (pid ${worker.process.pid}) exited (${signal || `code ${code}`}) while starting; stopping the target`);
      shutdown(1);
      return;
    }
    // A worker lost mid-run is a TARGET failure the load test must see (its sockets drop, clients must
    // reconnect elsewhere): replace it and keep serving, as a supervised production target would.
    workerRestarts++;
    log(`worker ${worker.id} (pid ${worker.process.pid}) exited (${signal || `code ${code}`}); starting a replacement`);
    forkWorker();
  });

  // a worker leaves cluster.workers only after both its exit and its disconnect: check on either
  cluster.on('disconnect', () => {
    if (shuttingDown) exitIfAllDead();
  });
  function exitIfAllDead() {
    if (Object.values(cluster.workers || {}).every((w) => !w || w.isDead())) {
      store.close();
      exit(exitCode);
    }
  }

  process.on('SIGTERM', () => shutdown(0));
  process.on('SIGINT', () => shutdown(0));

  cluster.setupPrimary({
    exec: path.join(__dirname, 'server.js'),
    serialization: 'advanced',
    // workers' stdout goes to our stderr: stdout carries only the listening line
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  /**
   * @param {string | undefined} code
   * @param {string} message
   */
  function listenErrorLine(code, message) {
    return code === 'EADDRINUSE'
      ? `target: port ${cfg.port} on ${cfg.host} is already in use; pass another PORT or stop the other process\n`
      : `target: cannot listen on ${cfg.host}:${cfg.port}: ${message}\n`;
  }
  /** @param {string | undefined} code */
  function listenErrorExit(code) {
    return code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL' ? 2 : 1;
  }

  function forkWorker() {
    // Every worker (and every replacement) binds the same concrete port with SO_REUSEPORT.
    const w = cluster.fork({ PORT: String(port) });
    // e.g. EPIPE when the primary's cluster internals message a worker we just killed: never crash the primary
    w.on('error', (err) => {
      if (!shuttingDown) log(`worker ${w.id}: ${err.message}`);
    });
  }
  // Each worker accepts on its own SO_REUSEPORT socket and the kernel spreads connections over them: the
  // primary no longer accepts every connection and passes its handle over IPC (Node's round-robin cluster
  // mode, ~20% of the target's CPU per connection at a few hundred connections/s). Claiming the port once
  // without SO_REUSEPORT first keeps "port in use" an error (another process's reuseport socket could
  // otherwise silently share it) and turns PORT=0 into one free port for all workers.
  claimPort(cfg.port, cfg.host).then(
    (p) => {
      port = p;
      if (!shuttingDown) for (let i = 0; i < cfg.workers; i++) forkWorker();
    },
    (/** @type {NodeJS.ErrnoException} */ err) => {
      process.stderr.write(listenErrorLine(err.code, err.message));
      exit(listenErrorExit(err.code));
    },
  );

  if (cfg.exitWithParent) {
    // Started by the rig for one run: never outlive it (the rig may be SIGKILLed and unable to stop us).
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) {
        log(`parent ${parent} is gone; stopping the target`);
        shutdown(0);
      }
    }, 1000).unref();
  }
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

module.exports = { main };
