// @ts-check
'use strict';
/**
 * What the primary answers its workers (ipc.js): exact room member counts, sessions for connection state
 * recovery, per-worker snapshots collected into the cluster's /metrics, and the workers' listening state.
 */
// the typings declare a default export; at run time the CommonJS module is the Cluster object itself
const cluster = /** @type {import('node:cluster').Cluster} */ (/** @type {unknown} */ (require('node:cluster')));
const { replyTo, sendToWorker } = require('./ipc');
const { aggregate } = require('./metrics');

/** How long /metrics waits for every worker's snapshot before it answers with those it has. */
const SNAPSHOT_WAIT_MS = 2000;

/**
 * Member counts of every room across the cluster (a room with no member is dropped).
 */
class RoomSizes {
  constructor() {
    /** @type {Map<string, number>} */
    this.sizes = new Map();
  }

  /** @param {string[]} rooms @returns {number[]} the sizes after the join, in order */
  join(rooms) {
    return rooms.map((room) => {
      const n = (this.sizes.get(room) ?? 0) + 1;
      this.sizes.set(room, n);
      return n;
    });
  }

  /** @param {string[]} rooms */
  leave(rooms) {
    for (const room of rooms) {
      const n = (this.sizes.get(room) ?? 0) - 1;
      if (n <= 0) this.sizes.delete(room);
      else this.sizes.set(room, n);
    }
  }

  get size() {
    return this.sizes.size;
  }
}

/**
 * Asks every connected worker for its metrics snapshot; resolves with the snapshots (sorted by worker) once
 * all answered, or with those that did within SNAPSHOT_WAIT_MS.
 */
class SnapshotCollector {
  constructor() {
    /** @type {Map<number, { snaps: any[], expected: number, done: (snaps: any[]) => void }>} */
    this.collections = new Map();
    this.nextCollectId = 0;
  }

  /** @returns {Promise<any[]>} */
  collect() {
    return new Promise((resolve) => {
      const workers = Object.values(cluster.workers || {}).filter((w) => w && w.isConnected());
      const collectId = ++this.nextCollectId;
      const finish = (/** @type {any[]} */ snaps) => {
        this.collections.delete(collectId);
        clearTimeout(t);
        resolve(snaps.sort((a, b) => a.worker - b.worker));
      };
      const t = setTimeout(() => {
        const c = this.collections.get(collectId);
        finish(c ? c.snaps : []);
      }, SNAPSHOT_WAIT_MS);
      this.collections.set(collectId, { snaps: [], expected: workers.length, done: finish });
      for (const w of workers) if (w) sendToWorker(w, { t: 'snapshot', collectId });
      if (workers.length === 0) finish([]);
    });
  }

  /** A worker's answer. @param {number} collectId @param {unknown} snap */
  add(collectId, snap) {
    const c = this.collections.get(collectId);
    if (!c) return;
    c.snaps.push(snap);
    if (c.snaps.length >= c.expected) c.done(c.snaps);
  }
}

/** The primary's own CPU since the previous call, in percent of one core. */
function primaryCpuMeter() {
  let lastCpu = process.cpuUsage();
  let lastCpuAt = performance.now();
  return () => {
    const cpu = process.cpuUsage(lastCpu);
    const at = performance.now();
    const percent = ((cpu.user + cpu.system) / 1000 / Math.max(1, at - lastCpuAt)) * 100;
    lastCpu = process.cpuUsage();
    lastCpuAt = at;
    return percent;
  };
}

/**
 * @param {object} deps
 * @param {import('./config').TargetConfig} deps.cfg
 * @param {import('./recovery-store').RecoveryStore} deps.store
 * @param {import('./metrics').ClusterRates} deps.rates
 * @param {import('./supervisor').Supervisor} deps.supervisor
 * @returns {(worker: import('node:cluster').Worker, msg: any) => void} handles one message of the target's own (ipc.js)
 */
function createMessageHandler({ cfg, store, rates, supervisor }) {
  const rooms = new RoomSizes();
  const snapshots = new SnapshotCollector();
  const primaryCpu = primaryCpuMeter();
  /** @param {import('node:cluster').Worker} worker @param {any} msg */
  const answerMetrics = (worker, msg) =>
    snapshots.collect().then((snaps) => {
      const metrics = aggregate(snaps, rates, rooms.size, {
        adapter: cfg.redisUrl ? 'redis' : 'cluster',
        workersConfigured: cfg.workers,
        workerRestarts: supervisor.restarts,
        primaryCpu: primaryCpu(),
      });
      replyTo(worker, msg, { metrics });
    });

  return (worker, msg) => {
    switch (msg.t) {
      case 'listening':
        return supervisor.onListening(worker.id, msg.port);
      case 'listen-error':
        return supervisor.onListenError(msg.code, msg.message);
      case 'conns':
        return rates.setConnections(worker.id, msg.n);
      case 'bucket':
        return rates.addBucket(msg);
      case 'join':
        return replyTo(worker, msg, { counts: rooms.join(msg.rooms) });
      case 'leave':
        return rooms.leave(msg.rooms);
      case 'rooms':
        return replyTo(worker, msg, { rooms: rooms.size });
      case 'persist':
        return store.persist(msg.session);
      case 'restore':
        store.restore(msg.pid, msg.offset).then(
          (session) => replyTo(worker, msg, { session }),
          () => replyTo(worker, msg, { session: null }),
        );
        return undefined;
      case 'snapshot':
        return snapshots.add(msg.collectId, msg.snap);
      case 'metrics':
        answerMetrics(worker, msg);
        return undefined;
      default:
        return undefined;
    }
  };
}

module.exports = { createMessageHandler };
