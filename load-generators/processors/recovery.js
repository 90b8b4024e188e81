// @ts-check
'use strict';
/**
 * recovery — Twine's next step (seed 000): Socket.IO connection state recovery. Vusers connect (cookie
 * flow), subscribe to one of `rooms` rooms fed by the run's publisher (`publishRate`/s per room), after
 * `dropAfter` s drop their transport (`socket.io.engine.close()`), reconnect after `away` s and listen
 * until `hold` s in total.
 *
 * Emits: recovery.messages_recovered (received after the reconnect, published before it), recovery.messages_lost
 * (published to the vuser's room while it was subscribed — the target acked the publisher's POST, or another socket
 * of this process got it — and never received), recovery.sessions_recovered / recovery.sessions_not_recovered,
 * recovery.reconnect_failed, recovery.delivery_latency (ms), pubsub.messages_sent (publisher).
 */
const { syncClock, targetOf, numVar, strVar, isDutyProcess, phaseSeconds, sleep } = require('./clock');
const { Receiver, startPublisher, snapshotLatest, ticksBetween } = require('./shared');
const { fetchCookie, openSocket, closeSocket } = require('./connect');

/** @param {any} context @param {import('node:events').EventEmitter} events */
async function recoveryPublisher(context, events) {
  if (!isDutyProcess()) return;
  const rooms = Math.max(1, Math.floor(numVar(context, 'rooms', 10)));
  const prefix = strVar(context, 'roomPrefix', 'recovery-');
  startPublisher({
    target: targetOf(context),
    rooms: Array.from({ length: rooms }, (_, i) => `${prefix}${i}`),
    ratePerRoom: numVar(context, 'publishRate', 5),
    seconds: numVar(context, 'publishSeconds', (phaseSeconds(context) ?? 60) + numVar(context, 'hold', 10) + 2),
    clockOffset: Number(context.vars.clockOffset) || 0,
    events,
    sentMetric: 'pubsub.messages_sent',
    id: `${process.env.RIG_GENERATOR_ID || 'local'}-${process.pid}`,
  });
}

/** @param {any} context @param {import('node:events').EventEmitter} events */
async function recoveryRun(context, events) {
  const state = context.rigSocket;
  const socket = state.socket;
  const started = Date.now();
  const offset = Number(context.vars.clockOffset) || 0;
  const rooms = Math.max(1, Math.floor(numVar(context, 'rooms', 10)));
  const room = `${strVar(context, 'roomPrefix', 'recovery-')}${Math.floor(Math.random() * rooms)}`;
  const rx = new Receiver(events, offset, 'recovery.delivery_latency', 'pubsub.messages_received');
  /** set at the drop; server-frame instant of the reconnect (0 until the `connect` listener ran) */
  let dropped = false;
  let reconnectedAt = 0;
  let recovered = 0;
  /** @type {Map<string, Set<number>>} the seqs received, per publisher */
  const got = new Map();
  socket.on('message', (/** @type {any} */ msg) => {
    const p = rx.onMessage(msg);
    if (p && Number.isFinite(Number(p.seq))) got.set(String(p.publisher), (got.get(String(p.publisher)) ?? new Set()).add(Number(p.seq)));
    if (dropped && p && (!reconnectedAt || Number(p.sentAt) + (Number(p.offsetMs) || 0) < reconnectedAt)) recovered++;
  });
  const ack = await socket.timeout(10_000).emitWithAck('subscribe', room).catch(() => undefined);
  if (!ack || !ack.ok) throw Object.assign(new Error(`subscribe ${room} failed`), { code: 'SUBSCRIBE_FAILED' });
  const since = snapshotLatest();

  await sleep(numVar(context, 'dropAfter', 3) * 1000);
  const awayMs = numVar(context, 'away', 1) * 1000;
  state.closing = true; // an intended drop: connect.js must not count it as ws.dropped
  socket.io.reconnection(true).reconnectionDelay(awayMs).reconnectionDelayMax(awayMs).randomizationFactor(0).reconnectionAttempts(3);
  const reconnected = new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), awayMs + 15_000);
    socket.once('connect', () => {
      reconnectedAt = Date.now() + offset;
      clearTimeout(timer);
      resolve(true);
    });
  });
  dropped = true;
  socket.io.engine.close();
  const ok = await reconnected;
  socket.io.reconnection(false);
  state.closing = false;
  if (!ok) {
    events.emit('counter', 'recovery.reconnect_failed', 1);
    throw Object.assign(new Error('reconnect failed'), { code: 'RECONNECT_FAILED' });
  }
  events.emit('counter', socket.recovered ? 'recovery.sessions_recovered' : 'recovery.sessions_not_recovered', 1);

  await sleep(Math.max(0, started + numVar(context, 'hold', 10) * 1000 - Date.now()));
  events.emit('counter', 'recovery.messages_recovered', recovered);
  events.emit('counter', 'recovery.messages_lost', await missing(since, got));
}

/** How long a vuser's end waits for messages published just before it (acked, maybe still on their way). */
const IN_FLIGHT_MS = 1000;

/**
 * The ticks published to the room since `since` (the subscribe ack) that were never received: counted at the end,
 * after up to {@link IN_FLIGHT_MS} for those still on their way. Before, only gaps between received seqs counted,
 * so a target that delivered nothing at all read as 0 lost.
 * @param {Map<string, number>} since @param {Map<string, Set<number>>} got
 */
async function missing(since, got) {
  const ranges = ticksBetween(since, snapshotLatest());
  const count = () => ranges.reduce((n, r) => {
    const seen = got.get(r.publisher);
    for (let seq = r.from + 1; seq <= r.to; seq++) if (!seen || !seen.has(seq)) n++;
    return n;
  }, 0);
  const until = Date.now() + IN_FLIGHT_MS;
  while (count() > 0 && Date.now() < until) await sleep(50);
  return count();
}

module.exports = { fetchCookie, openSocket, closeSocket, syncClock, recoveryPublisher, recoveryRun };
