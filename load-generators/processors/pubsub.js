// @ts-check
'use strict';
/**
 * pubsub — Twine phase 2 (seeds 000/001). Every vuser runs the connect flow, subscribes to one of
 * `rooms` rooms and listens for `hold` seconds; a publisher in the duty process POSTs `/publish` to
 * every room at `publishRate` messages/s per room for `publishSeconds` (default: phases + hold + 2 s).
 *
 * Emits: pubsub.messages_sent (publisher), pubsub.messages_received, pubsub.messages_expected,
 * pubsub.vusers_zero_messages, pubsub.gaps, pubsub.duplicates, pubsub.delivery_latency (ms, corrected
 * by both ends' clock offsets), clock.offset_ms.
 */
const { syncClock, targetOf, numVar, strVar, isDutyProcess, phaseSeconds } = require('./clock');
const { Receiver, startPublisher, expectMessages } = require('./shared');
const { fetchCookie, openSocket, closeSocket } = require('./connect');

/**
 * Starts the run's publisher (duty process only, once).
 * @param {any} context @param {import('node:events').EventEmitter} events
 */
async function pubsubPublisher(context, events) {
  if (!isDutyProcess()) return;
  const rooms = Math.max(1, Math.floor(numVar(context, 'rooms', 10)));
  const prefix = strVar(context, 'roomPrefix', 'pubsub-');
  const seconds = numVar(context, 'publishSeconds', (phaseSeconds(context) ?? 60) + numVar(context, 'hold', 10) + 2);
  startPublisher({
    target: targetOf(context),
    rooms: Array.from({ length: rooms }, (_, i) => `${prefix}${i}`),
    ratePerRoom: numVar(context, 'publishRate', 1),
    seconds,
    clockOffset: Number(context.vars.clockOffset) || 0,
    events,
    sentMetric: 'pubsub.messages_sent',
    id: `${process.env.RIG_GENERATOR_ID || 'local'}-${process.pid}`,
  });
}

/**
 * Subscribes to a random one of `rooms` rooms and starts counting.
 * @param {any} context @param {import('node:events').EventEmitter} events
 */
async function pubsubSubscribe(context, events) {
  const socket = context.rigSocket.socket;
  const rooms = Math.max(1, Math.floor(numVar(context, 'rooms', 10)));
  const room = `${strVar(context, 'roomPrefix', 'pubsub-')}${Math.floor(Math.random() * rooms)}`;
  const rx = new Receiver(events, Number(context.vars.clockOffset) || 0, 'pubsub.delivery_latency', 'pubsub.messages_received');
  socket.on('message', (/** @type {any} */ msg) => rx.onMessage(msg));
  const ack = await socket.timeout(10_000).emitWithAck('subscribe', room).catch(() => undefined);
  if (!ack || !ack.ok) {
    events.emit('counter', 'pubsub.subscribe_failed', 1);
    throw Object.assign(new Error(`subscribe ${room} failed`), { code: 'SUBSCRIBE_FAILED' });
  }
  const expected = expectMessages(events, 'pubsub.messages_expected');
  // A dropped socket expects nothing more from the moment it is gone.
  socket.once('disconnect', () => expected.end());
  context.rigPubsub = { rx, expected };
}

/**
 * Ends this vuser's receipt (call before closeSocket): received and expected messages were booked as
 * they arrived; what is left is expected messages beyond the process's ticks (this vuser received more
 * than the process saw published), gaps, duplicates, and the zero-message count, in the period it ends.
 * @param {any} context @param {import('node:events').EventEmitter} events
 */
async function pubsubReport(context, events) {
  const st = context.rigPubsub;
  if (!st) return;
  delete context.rigPubsub;
  const { rx } = st;
  const booked = st.expected.end();
  const expected = Math.max(booked, rx.received - rx.duplicates);
  if (expected > booked) events.emit('counter', 'pubsub.messages_expected', expected - booked);
  if (rx.gaps) events.emit('counter', 'pubsub.gaps', rx.gaps);
  if (rx.duplicates) events.emit('counter', 'pubsub.duplicates', rx.duplicates);
  if (rx.received === 0) events.emit('counter', 'pubsub.vusers_zero_messages', 1);
}

module.exports = { fetchCookie, openSocket, closeSocket, syncClock, pubsubPublisher, pubsubSubscribe, pubsubReport };
