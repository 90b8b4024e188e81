// @ts-check
'use strict';
/**
 * One worker process: HTTP routes (http-routes.js) + Socket.IO (sockets.js), protocol in docs/target.md. Holds its
 * own sockets; rooms are shared with the other workers through the Socket.IO adapter (cluster adapter via the
 * primary, or Redis). Never writes to stdout (the primary owns stdout); logs go to stderr.
 */
const http = require('node:http');
// the typings declare a default export; at run time the CommonJS module is the Cluster object itself
const cluster = /** @type {import('node:cluster').Cluster} */ (/** @type {unknown} */ (require('node:cluster')));
const { Server } = require('socket.io');
const { loadConfig } = require('./config');
const ipc = require('./ipc');
const { WorkerMetrics } = require('./metrics');
const { makeWithholdDecider, makeCookie503Decider } = require('./faults');
const { createLocalAdapter, primaryRoomCounter, createRedis } = require('./adapter');
const { createRequestHandler } = require('./http-routes');
const { attachSocketHandlers, publishTo } = require('./sockets');
const { sidFromCookie } = require('./protocol');
const { applyKeepAlive } = require('./http-timeouts');

/** Longest delay of a connection-count update to the primary. */
const CONNS_FLUSH_MS = 50;
/** How long a stopping worker waits for its sockets and adapter to close before it exits anyway. */
const STOP_GRACE_MS = 3000;

/** @param {string} msg */
function log(msg) {
  process.stderr.write(`target[worker ${cluster.worker ? cluster.worker.id : '?'} pid ${process.pid}]: ${msg}\n`);
}

/**
 * The Socket.IO adapter that shares rooms with the other workers: Redis when REDIS_URL is set, else the
 * cluster adapter through the primary (which also counts room members).
 * @param {import('./config').TargetConfig} cfg
 */
async function openAdapter(cfg) {
  if (cfg.redisUrl) return createRedis(cfg.redisUrl);
  return { adapter: createLocalAdapter(), counter: primaryRoomCounter(), close: async () => {} };
}

/**
 * Connection count → primary, for the cluster-wide peak: at most one message per CONNS_FLUSH_MS (once per
 * event-loop turn cost ~6% of a worker's CPU at a few hundred connections/s; the peak may be off by the
 * connections of one window).
 * @param {WorkerMetrics} metrics
 * @returns {() => void} call on every change of the count
 */
function connectionCountReporter(metrics) {
  let timer = /** @type {NodeJS.Timeout | undefined} */ (undefined);
  const flush = () => {
    timer = undefined;
    ipc.send({ t: 'conns', n: metrics.connections });
  };
  return () => {
    if (!timer) timer = setTimeout(flush, CONNS_FLUSH_MS);
  };
}

/**
 * Stops on the primary's `shutdown` message or SIGTERM (sockets closed, then the adapter), within STOP_GRACE_MS;
 * at once when the primary is gone.
 * @param {{ io: Server, metrics: WorkerMetrics, closeAdapter: () => Promise<void>, exit: (code: number) => never }} deps
 */
function handleStop({ io, metrics, closeAdapter, exit }) {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    metrics.close();
    const force = setTimeout(() => exit(0), STOP_GRACE_MS);
    force.unref();
    io.close(() => {
      closeAdapter().finally(() => exit(0));
    });
  };
  ipc.on('shutdown', stop);
  process.on('SIGTERM', stop);
  process.on('SIGINT', () => {}); // Ctrl-C reaches the whole process group: the primary orchestrates the stop
  process.on('disconnect', () => exit(0)); // the primary is gone: never linger as an orphan
}

/**
 * @param {{ exit: (code: number) => never }} entry how the entry point ends the process (server.js: process.exit)
 */
async function main({ exit }) {
  const cfg = loadConfig(process.env);
  const workerId = cluster.worker ? cluster.worker.id : 0;
  const metrics = new WorkerMetrics(workerId, (bucket) => ipc.send({ t: 'bucket', ...bucket }));
  const { adapter, counter, close: closeAdapter } = await openAdapter(cfg);

  // The routes are the server's first request listener: Socket.IO, attached next, answers its own paths
  // before them. `io` exists by the time anything is published.
  /** @type {Server | undefined} */
  let io;
  const publish = (/** @type {string} */ room, /** @type {unknown} */ payload) => publishTo(/** @type {Server} */ (io), cfg, room, payload);
  const cookie503 = makeCookie503Decider(cfg.seed, cfg.cookie503Fraction);
  const server = http.createServer(createRequestHandler({ cfg, metrics, cookie503, counter, publish }));
  // Idle keep-alive connections outlive the load balancer's idle timeout (http-timeouts.js).
  applyKeepAlive(server);
  io = new Server(server, {
    path: '/socket.io',
    serveClient: false,
    perMessageDeflate: false,
    httpCompression: false,
    maxHttpBufferSize: 64 * 1024,
    connectionStateRecovery: { maxDisconnectionDuration: cfg.recoveryMs, skipMiddlewares: true },
    adapter,
  });
  const isWithheld = makeWithholdDecider(cfg.seed, cfg.withholdFraction);
  attachSocketHandlers(io, { cfg, metrics, counter, isWithheld, connsChanged: connectionCountReporter(metrics), publish, log });

  ipc.on('snapshot', (msg) => ipc.send({ t: 'snapshot', reply: false, collectId: msg.collectId, snap: metrics.snapshot() }));
  handleStop({ io, metrics, closeAdapter, exit });

  server.on('error', (/** @type {NodeJS.ErrnoException} */ err) => {
    ipc.send({ t: 'listen-error', code: err.code || 'ERROR', message: err.message });
  });
  // SO_REUSEPORT: this worker's own listening socket on the port the primary claimed (see supervisor.js).
  server.listen({ port: cfg.port, host: cfg.host, reusePort: true }, () => {
    const addr = server.address();
    const port = addr && typeof addr === 'object' ? addr.port : cfg.port;
    ipc.send({ t: 'listening', port });
  });
}

module.exports = { main, sidFromCookie };
