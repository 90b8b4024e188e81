// @ts-check
'use strict';
/**
 * One worker process: HTTP routes + Socket.IO (protocol in README.md). Holds its own sockets; rooms
 * are shared with the other workers through the Socket.IO adapter (cluster adapter via the primary, or Redis).
 * Never writes to stdout (the primary owns stdout); logs go to stderr.
 */
const http = require('node:http');
const crypto = require('node:crypto');
// the typings declare a default export; at run time the CommonJS module is the Cluster object itself
const cluster = /** @type {import('node:cluster').Cluster} */ (/** @type {unknown} */ (require('node:cluster')));
const { Server } = require('socket.io');
const { loadConfig } = require('./config');

/**
 * The token of an `Authorization: Bearer <token>` header.
 * @param {string | undefined} header
 */
function bearerOf(header) {
  const m = /^Bearer\s+(.+)$/i.exec(header || '');
  return m ? String(m[1]) : '';
}

/**
 * Constant-time comparison, so a wrong token's timing tells nothing.
 * @param {string} given @param {string} expected
 */
function tokenMatches(given, expected) {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && require('node:crypto').timingSafeEqual(a, b);
}
const ipc = require('./ipc');
const { WorkerMetrics } = require('./metrics');
const { WITHHELD_ROOM, makeWithholdDecider, makeCookie503Decider } = require('./faults');
const { createLocalAdapter, primaryRoomCounter, createRedis } = require('./adapter');

const MAX_BODY = 1024 * 1024;
/** Longest delay of a connection-count update to the primary. */
const CONNS_FLUSH_MS = 50;
/** server-side event used as a delivery barrier between workers (see announce) */
const BARRIER = 'target:presence-barrier';

/** @param {string} msg */
function log(msg) {
  process.stderr.write(`target[worker ${cluster.worker ? cluster.worker.id : '?'} pid ${process.pid}]: ${msg}\n`);
}

/**
 * @param {http.ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 * @param {Record<string, string>} [headers]
 */
function json(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/**
 * @param {http.IncomingMessage} req
 * @returns {Promise<string>}
 */
function readBody(req) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    req.on('data', (/** @type {Buffer} */ c) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** @param {string | undefined} header */
function sidFromCookie(header) {
  if (!header) return undefined;
  const m = /(?:^|;\s*)sid=([^;]*)/.exec(header);
  return m && m[1] && m[1].trim() !== '' ? m[1].trim() : undefined;
}

/** @param {unknown} room */
function validRoom(room) {
  return typeof room === 'string' && room.length > 0 && room.length <= 256 && room !== WITHHELD_ROOM;
}

/**
 * @param {{ exit: (code: number) => never }} entry how the entry point ends the process (server.js: process.exit)
 */
async function main({ exit }) {
  const cfg = loadConfig(process.env);
  const workerId = cluster.worker ? cluster.worker.id : 0;
  const metrics = new WorkerMetrics(workerId, (bucket) => ipc.send({ t: 'bucket', ...bucket }));
  const isWithheld = makeWithholdDecider(cfg.seed, cfg.withholdFraction);
  const cookie503 = makeCookie503Decider(cfg.seed, cfg.cookie503Fraction);

  let adapter;
  let counter;
  /** @type {() => Promise<void>} */
  let closeAdapter = async () => {};
  if (cfg.redisUrl) {
    const r = await createRedis(cfg.redisUrl);
    adapter = r.adapter;
    counter = r.counter;
    closeAdapter = r.close;
  } else {
    adapter = createLocalAdapter();
    counter = primaryRoomCounter();
  }

  // Connection count → primary, for the cluster-wide peak: at most one message per CONNS_FLUSH_MS (once per
  // event-loop turn cost ~6% of a worker's CPU at a few hundred connections/s; the peak may be off by the
  // connections of one window).
  let connsTimer = /** @type {NodeJS.Timeout | undefined} */ (undefined);
  const flushConns = () => {
    connsTimer = undefined;
    ipc.send({ t: 'conns', n: metrics.connections });
  };
  const connsChanged = () => {
    if (!connsTimer) connsTimer = setTimeout(flushConns, CONNS_FLUSH_MS);
  };

  /** @type {Server} */
  let io;

  /**
   * @param {string} room
   * @param {unknown} payload
   */
  function publish(room, payload) {
    const send = () => io.to(room).except(WITHHELD_ROOM).emit('message', { room, payload, serverAt: Date.now() });
    if (cfg.deliveryDelayMs > 0) setTimeout(send, cfg.deliveryDelayMs);
    else send();
  }

  /**
   * Announce a join to the other members of a presence room. Goes to the adapter directly (what
   * `socket.to(room).emit()` does) to await its local delivery: the subscribe ack follows the announcement, so a
   * client that subscribes after receiving that ack is not yet a member when the announcement is delivered.
   * @param {string} room
   * @param {string} member
   * @param {number} count
   */
  async function announce(room, member, count) {
    const packet = { type: 2, data: ['presence', { room, member, count }], nsp: '/' };
    const opts = { rooms: new Set([room]), except: new Set([member, WITHHELD_ROOM]), flags: {} };
    await Promise.resolve(/** @type {unknown} */ (io.of('/').adapter.broadcast(packet, opts)));
    // Barrier: the other workers answer this after the relayed announcement (same ordered channel), so when the
    // joiner's ack leaves, every worker has delivered the announcement to the members it had.
    await io.serverSideEmitWithAck(BARRIER).catch(() => {}); // bounded by the adapter's requestsTimeout (5 s)
  }

  const server = http.createServer((req, res) => {
    const url = req.url || '/';
    const q = url.indexOf('?');
    const path = q >= 0 ? url.slice(0, q) : url;
    const method = req.method || 'GET';
    if (method === 'GET' && path === '/set-cookie') {
      if (cfg.authToken && !tokenMatches(bearerOf(req.headers.authorization), cfg.authToken)) {
        json(res, 401, { ok: false, error: 'unauthorized' });
        return;
      }
      // The rig's preflight probe (header x-rig-preflight) is exempt from faults and from the ground-truth
      // counters: the figures a test compares with describe the load only.
      const probe = req.headers['x-rig-preflight'] === '1';
      if (!probe && cookie503()) {
        metrics.cookie503++;
        json(res, 503, { ok: false, error: 'fault injection: FAULT_COOKIE_503_FRACTION' }, { 'retry-after': '1' });
        return;
      }
      if (!probe) metrics.cookiesIssued++;
      const sid = crypto.randomBytes(16).toString('hex');
      json(res, 200, { ok: true, sid }, { 'set-cookie': `sid=${sid}; Path=/; HttpOnly` });
    } else if (method === 'GET' && path === '/time') {
      json(res, 200, { now: Date.now() });
    } else if (method === 'GET' && path === '/healthz') {
      json(res, 200, { ok: true });
    } else if (method === 'GET' && path === '/metrics') {
      Promise.all([ipc.request({ t: 'metrics' }), counter.roomCount()]).then(
        ([reply, rooms]) => json(res, 200, { ...reply.metrics, rooms }),
        (err) => json(res, 500, { ok: false, error: String(err && err.message) }),
      );
    } else if (method === 'POST' && path === '/publish') {
      readBody(req).then(
        (text) => {
          /** @type {any} */
          let body;
          try {
            body = JSON.parse(text);
          } catch {
            json(res, 400, { ok: false, error: 'body must be JSON: { "room": string, "payload": any }' });
            return;
          }
          if (!body || typeof body !== 'object' || !validRoom(body.room) || !('payload' in body)) {
            json(res, 400, { ok: false, error: 'body must be { "room": non-empty string, "payload": any }' });
            return;
          }
          publish(body.room, body.payload);
          json(res, 200, { ok: true });
        },
        (err) => json(res, 413, { ok: false, error: String(err.message) }),
      );
    } else {
      json(res, 404, { ok: false, error: `no route ${method} ${path}` });
    }
  });

  io = new Server(server, {
    path: '/socket.io',
    serveClient: false,
    perMessageDeflate: false,
    httpCompression: false,
    maxHttpBufferSize: 64 * 1024,
    connectionStateRecovery: { maxDisconnectionDuration: cfg.recoveryMs, skipMiddlewares: true },
    adapter,
  });

  io.on(BARRIER, (/** @type {(x: number) => void} */ ack) => ack(1));

  io.use((socket, next) => {
    const tokenOk = !cfg.authToken || tokenMatches(String((socket.handshake.auth || {}).token || ''), cfg.authToken);
    if (tokenOk && sidFromCookie(socket.handshake.headers.cookie)) next();
    else next(new Error('unauthorized'));
  });

  io.on('connection', (socket) => {
    metrics.connected();
    connsChanged();
    socket.onAnyOutgoing(metrics.countOutgoing);
    const withheld = socket.handshake.headers['x-rig-preflight'] !== '1' && isWithheld(socket.id);
    if (withheld) {
      metrics.withheldSocketsCurrent++;
      if (!socket.recovered) {
        metrics.withheldSocketsConnected++;
        socket.join(WITHHELD_ROOM);
      }
    }
    if (socket.recovered) {
      // rooms were restored by Socket.IO; restore their member counts (no presence announcement)
      const rooms = [...socket.rooms].filter((r) => r !== socket.id && r !== WITHHELD_ROOM);
      if (rooms.length > 0) counter.join(rooms).catch((err) => log(`room count: ${err.message}`));
    }

    socket.on('subscribe', (room, ack) => {
      const reply = typeof ack === 'function' ? ack : () => {};
      if (!validRoom(room)) {
        reply({ ok: false, error: 'room must be a non-empty string' });
        return;
      }
      if (socket.rooms.has(room)) {
        reply({ ok: true });
        return;
      }
      socket.join(room);
      counter.join([room]).then(
        async ([count]) => {
          if (room.startsWith('presence-') && socket.connected) {
            await announce(room, socket.id, /** @type {number} */ (count)).catch((err) => log(`presence: ${err.message}`));
          }
          reply({ ok: true });
        },
        (err) => {
          log(`room count: ${err.message}`);
          reply({ ok: true });
        },
      );
    });

    socket.on('publish', (msg, ack) => {
      const ok = msg && typeof msg === 'object' && validRoom(msg.room);
      if (ok) publish(msg.room, msg.payload);
      if (typeof ack === 'function') ack(ok ? { ok: true } : { ok: false, error: 'expected { room, payload }' });
    });

    socket.on('echo', (data, ack) => {
      if (typeof ack === 'function') ack(data);
    });

    socket.on('disconnecting', () => {
      const rooms = [...socket.rooms].filter((r) => r !== socket.id && r !== WITHHELD_ROOM);
      if (rooms.length > 0) counter.leave(rooms);
      if (withheld) metrics.withheldSocketsCurrent--;
      metrics.disconnected();
      connsChanged();
    });
  });

  ipc.on('snapshot', (msg) => ipc.send({ t: 'snapshot', reply: false, collectId: msg.collectId, snap: metrics.snapshot() }));

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    metrics.close();
    const force = setTimeout(() => exit(0), 3000);
    force.unref();
    io.close(() => {
      closeAdapter().finally(() => exit(0));
    });
  };
  ipc.on('shutdown', stop);
  process.on('SIGTERM', stop);
  process.on('SIGINT', () => {}); // Ctrl-C reaches the whole process group: the primary orchestrates the stop
  process.on('disconnect', () => exit(0)); // the primary is gone: never linger as an orphan

  server.on('error', (/** @type {NodeJS.ErrnoException} */ err) => {
    ipc.send({ t: 'listen-error', code: err.code || 'ERROR', message: err.message });
  });
  // SO_REUSEPORT: this worker's own listening socket on the port the primary claimed (see primary.js).
  server.listen({ port: cfg.port, host: cfg.host, reusePort: true }, () => {
    const addr = server.address();
    const port = addr && typeof addr === 'object' ? addr.port : cfg.port;
    ipc.send({ t: 'listening', port });
  });
}

module.exports = { main, sidFromCookie };
