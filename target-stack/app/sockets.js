// @ts-check
'use strict';
/**
 * A worker's Socket.IO side (protocol in docs/target.md): the handshake check, subscribe (with presence
 * announcements), publish, echo, and the connection counts and withheld sockets that /metrics reports.
 */
const { WITHHELD_ROOM } = require('./faults');
const { tokenMatches } = require('./http-routes');
const { sidFromCookie, validRoom } = require('./protocol');

/** server-side event used as a delivery barrier between workers (see announce) */
const BARRIER = 'target:presence-barrier';

/**
 * @typedef {object} SocketDeps
 * @property {import('./config').TargetConfig} cfg
 * @property {import('./metrics').WorkerMetrics} metrics
 * @property {import('./adapter').RoomCounter} counter
 * @property {(socketId: string) => boolean} isWithheld     whether this socket gets no deliveries (a fault)
 * @property {() => void} connsChanged                      the worker's connection count changed
 * @property {(room: string, payload: unknown) => void} publish
 * @property {(msg: string) => void} log
 */

/**
 * Sends `payload` to every member of `room` (but the withheld sockets), after FAULT_DELIVERY_DELAY_MS.
 * @param {import('socket.io').Server} io
 * @param {import('./config').TargetConfig} cfg
 * @param {string} room
 * @param {unknown} payload
 */
function publishTo(io, cfg, room, payload) {
  const send = () => io.to(room).except(WITHHELD_ROOM).emit('message', { room, payload, serverAt: Date.now() });
  if (cfg.deliveryDelayMs > 0) setTimeout(send, cfg.deliveryDelayMs);
  else send();
}

/**
 * Announce a join to the other members of a presence room. Goes to the adapter directly (what
 * `socket.to(room).emit()` does) to await its local delivery: the subscribe ack follows the announcement, so a
 * client that subscribes after receiving that ack is not yet a member when the announcement is delivered.
 * @param {import('socket.io').Server} io
 * @param {string} room
 * @param {string} member
 * @param {number} count
 */
async function announce(io, room, member, count) {
  const packet = { type: 2, data: ['presence', { room, member, count }], nsp: '/' };
  const opts = { rooms: new Set([room]), except: new Set([member, WITHHELD_ROOM]), flags: {} };
  await Promise.resolve(/** @type {unknown} */ (io.of('/').adapter.broadcast(packet, opts)));
  // Barrier: the other workers answer this after the relayed announcement (same ordered channel), so when the
  // joiner's ack leaves, every worker has delivered the announcement to the members it had.
  await io.serverSideEmitWithAck(BARRIER).catch(() => {}); // bounded by the adapter's requestsTimeout (5 s)
}

/**
 * The `subscribe` handler of one socket: joins the room, counts it cluster-wide, announces a presence join.
 * @param {import('socket.io').Server} io
 * @param {import('socket.io').Socket} socket
 * @param {SocketDeps} deps
 * @returns {(room: unknown, ack: unknown) => void}
 */
function subscribeHandler(io, socket, { counter, log }) {
  return (room, ack) => {
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
          await announce(io, room, socket.id, /** @type {number} */ (count)).catch((err) => log(`presence: ${err.message}`));
        }
        reply({ ok: true });
      },
      (err) => {
        log(`room count: ${err.message}`);
        reply({ ok: true });
      },
    );
  };
}

/**
 * @param {import('socket.io').Server} io
 * @param {import('socket.io').Socket} socket
 * @param {SocketDeps} deps
 */
function onConnection(io, socket, deps) {
  const { metrics, counter, log } = deps;
  metrics.connected();
  deps.connsChanged();
  socket.onAnyOutgoing(metrics.countOutgoing);
  const withheld = socket.handshake.headers['x-rig-preflight'] !== '1' && deps.isWithheld(socket.id);
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

  socket.on('subscribe', subscribeHandler(io, socket, deps));
  socket.on('publish', (msg, ack) => {
    const ok = msg && typeof msg === 'object' && validRoom(msg.room);
    if (ok) deps.publish(msg.room, msg.payload);
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
    deps.connsChanged();
  });
}

/**
 * Wires the worker's Socket.IO server: the barrier answer, the handshake check (token when AUTH_TOKEN is set,
 * and the session cookie), and every connection's handlers.
 * @param {import('socket.io').Server} io
 * @param {SocketDeps} deps
 */
function attachSocketHandlers(io, deps) {
  const { cfg } = deps;
  io.on(BARRIER, (/** @type {(x: number) => void} */ ack) => ack(1));
  io.use((socket, next) => {
    const tokenOk = !cfg.authToken || tokenMatches(String((socket.handshake.auth || {}).token || ''), cfg.authToken);
    if (tokenOk && sidFromCookie(socket.handshake.headers.cookie)) next();
    else next(new Error('unauthorized'));
  });
  io.on('connection', (socket) => onConnection(io, socket, deps));
}

module.exports = { attachSocketHandlers, publishTo };
