// @ts-check
'use strict';
/**
 * presence — River (seed 003). Each vuser connects (cookie flow), subscribes to a `presence-` room, holds
 * `hold` s, subscribes to a second `presence-` room, stays `linger` s, disconnects. The target announces
 * every join to the room's other members (`presence` events).
 *
 * Emits: presence.announcements_received (every `presence` event a vuser got), presence.joins.
 * Ground truth when the target has the reference target's `GET /metrics` (off with --var targetMetrics=false):
 * the first vuser of the duty process samples /metrics before its join and again once the run is over
 * (it stays in the run, disconnected, until phases + hold + linger + 3 s), and emits
 *   presence.target_announcements_sent  presenceOut difference (the target's own count: the expected figure)
 *   target.peak_send_rate_per_sec       histogram, the target's peakSendRatePerSec (since it started)
 */
const { syncClock, targetOf, numVar, strVar, boolVar, isDutyProcess, phaseSeconds, requestJson, sleep } = require('./clock');
const { fetchCookie, openSocket, closeSocket } = require('./connect');

/** @type {{ baseline: number, startedAt: number } | undefined | null} */
let monitor; // undefined: not claimed yet; null: claimed but /metrics unavailable

/** @param {any} context @param {number} i */
function roomName(context, i) {
  const n = Math.max(1, Math.floor(numVar(context, 'presenceRooms', 1)));
  return `${strVar(context, `room${i}Prefix`, i === 1 ? 'presence-first-' : 'presence-second-')}${Math.floor(Math.random() * n)}`;
}

/** Claims the ground-truth monitor for this vuser (duty process, first vuser) and takes the baseline. */
/** @param {any} context @param {import('node:events').EventEmitter} _events */
async function presenceBaseline(context, _events) {
  if (monitor !== undefined || !isDutyProcess() || !boolVar(context, 'targetMetrics', true)) return;
  monitor = null;
  const startedAt = Date.now();
  try {
    const { status, body } = await requestJson('GET', `${targetOf(context)}/metrics`);
    if (status === 200 && body && Number.isFinite(Number(body.presenceOut))) {
      monitor = { baseline: Number(body.presenceOut), startedAt };
      context.rigPresenceMonitor = true;
    }
  } catch {
    /* not the reference target: no ground truth */
  }
}

/** @param {any} context @param {import('node:events').EventEmitter} events @param {string} room */
async function join(context, events, room) {
  const socket = context.rigSocket.socket;
  const ack = await socket.timeout(10_000).emitWithAck('subscribe', room).catch(() => undefined);
  if (!ack || !ack.ok) throw Object.assign(new Error(`subscribe ${room} failed`), { code: 'SUBSCRIBE_FAILED' });
  events.emit('counter', 'presence.joins', 1);
}

/** @param {any} context @param {import('node:events').EventEmitter} events */
async function presenceJoinFirst(context, events) {
  context.rigSocket.socket.on('presence', () => events.emit('counter', 'presence.announcements_received', 1));
  await join(context, events, roomName(context, 1));
}

/** @param {any} context @param {import('node:events').EventEmitter} events */
async function presenceJoinSecond(context, events) {
  await join(context, events, roomName(context, 2));
}

/** The monitor vuser waits for the run to end, then reads the target's counters. */
/** @param {any} context @param {import('node:events').EventEmitter} events */
async function presenceGroundTruth(context, events) {
  if (!context.rigPresenceMonitor || !monitor) return;
  const endAt = monitor.startedAt + 1000 * ((phaseSeconds(context) ?? 0) + numVar(context, 'hold', 10) + numVar(context, 'linger', 1) + 3);
  await sleep(Math.max(0, endAt - Date.now()));
  try {
    const { status, body } = await requestJson('GET', `${targetOf(context)}/metrics`);
    if (status !== 200 || !body) return;
    events.emit('counter', 'presence.target_announcements_sent', Number(body.presenceOut) - monitor.baseline);
    if (Number.isFinite(Number(body.peakSendRatePerSec))) events.emit('histogram', 'target.peak_send_rate_per_sec', Number(body.peakSendRatePerSec));
  } catch {
    /* target gone */
  }
}

module.exports = { fetchCookie, openSocket, closeSocket, syncClock, presenceBaseline, presenceJoinFirst, presenceJoinSecond, presenceGroundTruth };
