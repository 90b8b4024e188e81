// @ts-check
'use strict';
/**
 * rooms — Relaybox (seed 004). Authenticated connect (cookie flow), join one of `rooms` rooms at random,
 * subscribe, publish `messages` messages `gap` s apart (socket emit `publish`), stay `linger` s more
 * receiving, disconnect.
 *
 * Emits: pubsub.messages_sent, pubsub.messages_received (as each arrives), pubsub.delivery_latency (ms, clock-corrected),
 * and per-second counters that merge exactly across generators:
 *   rooms.sent_per_s.<epoch s>   messages published in that second (average / peak send rate)
 *   rooms.conn_open.<epoch s>, rooms.conn_close.<epoch s>  connections opened / closed (peak concurrent)
 */
const { syncClock, numVar, strVar, sleep, epochSecond } = require('./clock');
const { Receiver } = require('./shared');
const { fetchCookie, openSocket, closeSocket } = require('./connect');

let vuserSeq = 0;

/** @param {any} context @param {import('node:events').EventEmitter} events */
async function roomsJoin(context, events) {
  events.emit('counter', `rooms.conn_open.${epochSecond()}`, 1);
  const socket = context.rigSocket.socket;
  const rooms = Math.max(1, Math.floor(numVar(context, 'rooms', 100)));
  const room = `${strVar(context, 'roomPrefix', 'room-')}${Math.floor(Math.random() * rooms)}`;
  const rx = new Receiver(events, Number(context.vars.clockOffset) || 0, 'pubsub.delivery_latency', 'pubsub.messages_received');
  socket.on('message', (/** @type {any} */ msg) => rx.onMessage(msg));
  context.rigRooms = { room, rx };
  const ack = await socket.timeout(10_000).emitWithAck('subscribe', room).catch(() => undefined);
  if (!ack || !ack.ok) throw Object.assign(new Error(`subscribe ${room} failed`), { code: 'SUBSCRIBE_FAILED' });
}

/** @param {any} context @param {import('node:events').EventEmitter} events */
async function roomsPublish(context, events) {
  const { room } = context.rigRooms;
  const socket = context.rigSocket.socket;
  const count = Math.max(0, Math.floor(numVar(context, 'messages', 10)));
  const gapMs = numVar(context, 'gap', 2) * 1000;
  const publisher = `${process.env.RIG_GENERATOR_ID || 'local'}-${process.pid}-${++vuserSeq}`;
  const offsetMs = Number(context.vars.clockOffset) || 0;
  for (let seq = 1; seq <= count; seq++) {
    if (!socket.connected) break;
    socket.emit('publish', { room, payload: { sentAt: Date.now(), offsetMs, publisher, seq } });
    events.emit('counter', 'pubsub.messages_sent', 1);
    events.emit('counter', `rooms.sent_per_s.${epochSecond()}`, 1);
    if (seq < count) await sleep(gapMs);
  }
}

/** @param {any} context @param {import('node:events').EventEmitter} events */
async function roomsReport(context, events) {
  const st = context.rigRooms;
  if (!st) return;
  delete context.rigRooms;
  events.emit('counter', `rooms.conn_close.${epochSecond()}`, 1);
}

module.exports = { fetchCookie, openSocket, closeSocket, syncClock, roomsJoin, roomsPublish, roomsReport };
