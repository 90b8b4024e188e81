// @ts-check
'use strict';
/**
 * broadcast — TechRacers (seed 002). Vusers connect (cookie flow), join one room and hold; a publisher in
 * the duty process POSTs a `payloadSize`-character string to that room every `interval` seconds. The
 * target stamps `serverAt` on every `message`.
 *
 * Emits: broadcast.latency (ms, one-way: receipt + this process's clock offset − serverAt),
 * broadcast.echo_half_rtt (ms, round trip of an `echo` emit with ack, halved — TechRacers' method),
 * broadcast.messages_received, broadcast.messages_sent (publisher), clock.offset_ms.
 */
const { syncClock, targetOf, numVar, strVar, boolVar, isDutyProcess, phaseSeconds } = require('./clock');
const { startPublisher } = require('./shared');
const { fetchCookie, openSocket, closeSocket } = require('./connect');

/** @param {any} context @param {import('node:events').EventEmitter} events */
async function broadcastPublisher(context, events) {
  if (!isDutyProcess()) return;
  // At least 1 ms (the publisher's timer resolution; scripts/builtin-variables.ts refuses less, was clamped to 10 ms unsaid).
  const interval = Math.max(0.001, numVar(context, 'interval', 1));
  startPublisher({
    target: targetOf(context),
    rooms: [strVar(context, 'room', 'broadcast')],
    ratePerRoom: 1 / interval,
    seconds: numVar(context, 'publishSeconds', (phaseSeconds(context) ?? 60) + numVar(context, 'hold', 60) + 2),
    clockOffset: Number(context.vars.clockOffset) || 0,
    events,
    filler: 'x'.repeat(Math.max(0, Math.floor(numVar(context, 'payloadSize', 1000)))),
    sentMetric: 'broadcast.messages_sent',
    id: `${process.env.RIG_GENERATOR_ID || 'local'}-${process.pid}`,
  });
}

/** @param {any} context @param {import('node:events').EventEmitter} events */
async function broadcastJoin(context, events) {
  const socket = context.rigSocket.socket;
  const offset = Number(context.vars.clockOffset) || 0;
  // `--var echo=0` is off too (was on: only the text 'false' turned it off).
  const echo = boolVar(context, 'echo', true);
  socket.on('message', (/** @type {any} */ msg) => {
    const now = Date.now();
    events.emit('counter', 'broadcast.messages_received', 1);
    const serverAt = Number(msg && msg.serverAt);
    if (Number.isFinite(serverAt)) {
      const latency = now + offset - serverAt;
      if (latency >= 0) events.emit('histogram', 'broadcast.latency', latency);
      else events.emit('counter', 'broadcast.latency_negative', 1);
    }
    if (echo && socket.connected) {
      const t0 = performance.now();
      socket.timeout(10_000).emit('echo', { seq: msg && msg.payload && msg.payload.seq }, (/** @type {any} */ err) => {
        if (!err) events.emit('histogram', 'broadcast.echo_half_rtt', (performance.now() - t0) / 2);
      });
    }
  });
  const ack = await socket.timeout(10_000).emitWithAck('subscribe', strVar(context, 'room', 'broadcast')).catch(() => undefined);
  if (!ack || !ack.ok) throw Object.assign(new Error('subscribe failed'), { code: 'SUBSCRIBE_FAILED' });
}

module.exports = { fetchCookie, openSocket, closeSocket, syncClock, broadcastPublisher, broadcastJoin };
