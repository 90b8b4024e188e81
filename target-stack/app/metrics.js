// @ts-check
'use strict';
/**
 * Counters kept by each worker (O(1) per event, no iteration over sockets) and the primary-side aggregation.
 *
 * Send-rate buckets are aligned on epoch seconds: a worker timer fires at each second boundary and hands the count of
 * the second that just ended to the primary, which sums the buckets of all workers per second and keeps the peak.
 */
const { monitorEventLoopDelay } = require('node:perf_hooks');

/** the histogram's samples include its own timer period; it is subtracted from the reported lag */
const LOOP_RESOLUTION_MS = 10;

/**
 * @typedef {object} WorkerSnapshot
 * @property {number} worker            cluster worker id
 * @property {number} pid
 * @property {number} connections
 * @property {number} peakConnections
 * @property {number} connectionsTotal
 * @property {number} messagesOut
 * @property {number} presenceOut
 * @property {number} peakSendRatePerSec
 * @property {number} cpu               % of one core over the last interval
 * @property {number} rss
 * @property {number} eventLoopLagMs    p99 over the last 1-s interval
 * @property {number} eventLoopLagMaxMs max over the last 1-s interval
 * @property {number} withheldSocketsConnected
 * @property {number} withheldSocketsCurrent
 * @property {number} cookie503
 * @property {number} cookiesIssued
 */

class WorkerMetrics {
  /**
   * @param {number} workerId
   * @param {(bucket: { second: number, count: number }) => void} onBucket called once per completed second
   */
  constructor(workerId, onBucket) {
    this.workerId = workerId;
    this.connections = 0;
    this.peakConnections = 0;
    this.connectionsTotal = 0;
    this.messagesOut = 0;
    this.presenceOut = 0;
    this.bucket = 0;
    this.peakSendRatePerSec = 0;
    this.withheldSocketsConnected = 0;
    this.withheldSocketsCurrent = 0;
    this.cookie503 = 0;
    this.cookiesIssued = 0;
    this.cpu = 0;
    this.lagP99 = 0;
    this.lagMax = 0;
    this.lastCpu = process.cpuUsage();
    this.lastAt = performance.now();
    this.loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    this.loop.enable();
    this.onBucket = onBucket;
    /** @type {NodeJS.Timeout | undefined} */
    this.timer = undefined;
    this.arm();
    /** Counts one outgoing event per recipient; shared by every socket (socket.onAnyOutgoing). */
    this.countOutgoing = (/** @type {string} */ event) => {
      if (event === 'message') {
        this.messagesOut++;
        this.bucket++;
      } else if (event === 'presence') {
        this.messagesOut++;
        this.presenceOut++;
        this.bucket++;
      }
    };
  }

  arm() {
    const now = Date.now();
    this.timer = setTimeout(() => this.tick(), 1000 - (now % 1000) + 1);
    this.timer.unref();
  }

  tick() {
    const second = Math.floor(Date.now() / 1000) - 1;
    const count = this.bucket;
    this.bucket = 0;
    if (count > this.peakSendRatePerSec) this.peakSendRatePerSec = count;
    if (count > 0) this.onBucket({ second, count });
    const cpu = process.cpuUsage(this.lastCpu);
    const at = performance.now();
    this.cpu = ((cpu.user + cpu.system) / 1000 / Math.max(1, at - this.lastAt)) * 100;
    this.lastCpu = process.cpuUsage();
    this.lastAt = at;
    this.lagP99 = Math.max(0, this.loop.percentile(99) / 1e6 - LOOP_RESOLUTION_MS);
    this.lagMax = Math.max(0, this.loop.max / 1e6 - LOOP_RESOLUTION_MS);
    this.loop.reset();
    this.arm();
  }

  connected() {
    this.connections++;
    this.connectionsTotal++;
    if (this.connections > this.peakConnections) this.peakConnections = this.connections;
  }

  disconnected() {
    this.connections--;
  }

  /** @returns {WorkerSnapshot} */
  snapshot() {
    return {
      worker: this.workerId,
      pid: process.pid,
      connections: this.connections,
      peakConnections: this.peakConnections,
      connectionsTotal: this.connectionsTotal,
      messagesOut: this.messagesOut,
      presenceOut: this.presenceOut,
      peakSendRatePerSec: this.peakSendRatePerSec,
      cpu: round(this.cpu),
      rss: process.memoryUsage.rss(),
      eventLoopLagMs: round(this.lagP99),
      eventLoopLagMaxMs: round(this.lagMax),
      withheldSocketsConnected: this.withheldSocketsConnected,
      withheldSocketsCurrent: this.withheldSocketsCurrent,
      cookie503: this.cookie503,
      cookiesIssued: this.cookiesIssued,
    };
  }

  close() {
    if (this.timer) clearTimeout(this.timer);
    this.loop.disable();
  }
}

/** @param {number} x */
function round(x) {
  return Math.round(x * 100) / 100;
}

/** Primary side: per-second sums of the workers' buckets, and peak of the summed connection counts. */
class ClusterRates {
  constructor() {
    /** @type {Map<number, number>} */
    this.buckets = new Map();
    this.peakSendRatePerSec = 0;
    /** @type {Map<number, number>} latest connection count per worker id */
    this.conns = new Map();
    this.peakConnections = 0;
  }

  /** @param {{ second: number, count: number }} b */
  addBucket(b) {
    const v = (this.buckets.get(b.second) ?? 0) + b.count;
    this.buckets.set(b.second, v);
    if (v > this.peakSendRatePerSec) this.peakSendRatePerSec = v;
    if (this.buckets.size > 120) {
      const oldest = b.second - 60;
      for (const s of this.buckets.keys()) if (s < oldest) this.buckets.delete(s);
    }
  }

  /**
   * @param {number} workerId
   * @param {number} connections
   */
  setConnections(workerId, connections) {
    this.conns.set(workerId, connections);
    let sum = 0;
    for (const c of this.conns.values()) sum += c;
    if (sum > this.peakConnections) this.peakConnections = sum;
  }
}

/**
 * @param {WorkerSnapshot[]} snaps
 * @param {ClusterRates} rates
 * @param {number} rooms
 * @param {{ adapter: string, workersConfigured: number, workerRestarts: number, primaryCpu: number }} extra
 */
function aggregate(snaps, rates, rooms, extra) {
  /** @param {(s: WorkerSnapshot) => number} f */
  const sum = (f) => snaps.reduce((a, s) => a + f(s), 0);
  /** @param {(s: WorkerSnapshot) => number} f */
  const max = (f) => snaps.reduce((a, s) => Math.max(a, f(s)), 0);
  const primaryRss = process.memoryUsage.rss();
  const connections = sum((s) => s.connections);
  return {
    at: Date.now(),
    workers: snaps.length,
    workersConfigured: extra.workersConfigured,
    workerRestarts: extra.workerRestarts,
    adapter: extra.adapter,
    connections,
    peakConnections: Math.max(rates.peakConnections, connections, max((s) => s.peakConnections)),
    connectionsTotal: sum((s) => s.connectionsTotal),
    rooms,
    messagesOut: sum((s) => s.messagesOut),
    presenceOut: sum((s) => s.presenceOut),
    peakSendRatePerSec: Math.max(rates.peakSendRatePerSec, max((s) => s.peakSendRatePerSec)),
    cpu: round(sum((s) => s.cpu) + extra.primaryCpu),
    memory: { rss: sum((s) => s.rss) + primaryRss, primaryRss, perWorker: snaps.map((s) => ({ worker: s.worker, rss: s.rss })) },
    eventLoopLagMs: max((s) => s.eventLoopLagMs),
    eventLoopLagMaxMs: max((s) => s.eventLoopLagMaxMs),
    withheldSocketsConnected: sum((s) => s.withheldSocketsConnected),
    withheldSocketsCurrent: sum((s) => s.withheldSocketsCurrent),
    cookie503: sum((s) => s.cookie503),
    cookiesIssued: sum((s) => s.cookiesIssued),
    perWorker: snaps,
  };
}

module.exports = { WorkerMetrics, ClusterRates, aggregate };
