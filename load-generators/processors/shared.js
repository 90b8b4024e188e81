// @ts-check
'use strict';
/**
 * Pieces the pub/sub-style scenarios share:
 *
 *  - the process-level publisher (one per run: it runs only in the duty process, started by the first
 *    vuser there): POSTs `/publish` to each room at a fixed rate for a fixed time, every payload
 *    `{ sentAt, offsetMs, publisher, seq, [filler] }` — `seq` is the tick number (the same for every room
 *    in one tick), `offsetMs` the publisher's clock offset. Counters are emitted on Artillery's shared
 *    scenario emitter, which stays live after the vuser that started the loop has ended.
 *  - the receiver tracker: messages received, gaps and duplicates from the last seq per publisher (no
 *    per-message allocation), and corrected delivery latency.
 *  - the process-wide latest tick per publisher, from which a receiver estimates how many messages it
 *    should have seen while subscribed (the target's fan-out to other sockets of this process tells the
 *    time, so the estimate needs no clock and works against any target).
 *
 * Messages are booked when they arrive, in the reporting period they arrive in: each received message
 * is one `received` counter at once, and each new tick books one `expected` message per receiver
 * subscribed at that moment. A vuser's end only books what arrival could not (its zero-message count,
 * and expected messages beyond the ticks, when it received more than the process saw published).
 */
const { requestJson, sleep } = require('./clock');

/** Latest seq seen by any receiver of this process, per publisher. */
/** @type {Map<string, number>} */
const latestSeq = new Map();

/** The first seq this process learned of, per publisher (a receiver that subscribed before knows nothing earlier). */
/** @type {Map<string, number>} */
const firstSeq = new Map();

/**
 * The ticks published (acked by the target, or seen delivered by any socket of this process) between two snapshots,
 * per publisher, as seq ranges (from, to]. A publisher unknown at `since` counts from just before the first seq the
 * process learned of it.
 * @param {Map<string, number>} since @param {Map<string, number>} until
 * @returns {Array<{ publisher: string, from: number, to: number }>}
 */
function ticksBetween(since, until) {
  return [...until].map(([publisher, to]) => ({ publisher, from: since.get(publisher) ?? (firstSeq.get(publisher) ?? to + 1) - 1, to }));
}

/** @returns {Map<string, number>} a snapshot (a publisher or two: tiny) */
function snapshotLatest() {
  return new Map(latestSeq);
}

/**
 * Ticks published (per publisher) since `since` was taken.
 * @param {Map<string, number>} since
 */
function ticksSince(since) {
  let n = 0;
  for (const [p, s] of latestSeq) n += Math.max(0, s - (since.get(p) ?? 0));
  return n;
}

/**
 * Receivers whose expected messages are booked per tick: how many are subscribed now, and the emitter
 * (Artillery's shared scenario emitter) and counter to book them on.
 * @type {{ subscribers: number, events: import('node:events').EventEmitter | undefined, metric: string }}
 */
const expectedBook = { subscribers: 0, events: undefined, metric: 'pubsub.messages_expected' };

/**
 * Books `ticks` new ticks of one publisher: one expected message per subscribed receiver.
 * @param {number} ticks
 */
function bookTicks(ticks) {
  if (ticks > 0 && expectedBook.subscribers > 0 && expectedBook.events) {
    expectedBook.events.emit('counter', expectedBook.metric, ticks * expectedBook.subscribers);
  }
}

/**
 * Starts booking expected messages for one receiver; returns its handle. Call `end()` once it stops
 * listening (report or disconnect, whichever comes first; later calls are no-ops).
 * @param {import('node:events').EventEmitter} events
 * @param {string} metric expected-messages counter
 * @returns {{ since: Map<string, number>, end: () => number, booked: () => number }}
 */
function expectMessages(events, metric) {
  expectedBook.subscribers++;
  expectedBook.events = events;
  expectedBook.metric = metric;
  const since = snapshotLatest();
  /** @type {number | undefined} */
  let bookedAtEnd;
  return {
    since,
    /** Stops booking; returns the ticks booked for this receiver. */
    end() {
      if (bookedAtEnd === undefined) {
        bookedAtEnd = ticksSince(since);
        expectedBook.subscribers = Math.max(0, expectedBook.subscribers - 1);
      }
      return bookedAtEnd;
    },
    booked: () => (bookedAtEnd === undefined ? ticksSince(since) : bookedAtEnd),
  };
}

class Receiver {
  /**
   * @param {import('node:events').EventEmitter} events
   * @param {number} clockOffset this process's offset (ms)
   * @param {string} latencyMetric histogram name
   * @param {string} receivedMetric counter booked once per message, when it arrives
   */
  constructor(events, clockOffset, latencyMetric, receivedMetric) {
    this.events = events;
    this.clockOffset = clockOffset;
    this.latencyMetric = latencyMetric;
    this.receivedMetric = receivedMetric;
    this.received = 0;
    this.gaps = 0;
    this.duplicates = 0;
    /** @type {Map<string, number>} */
    this.lastSeq = new Map();
  }

  /**
   * Records one `message` event `{ room, payload, serverAt }`; returns the payload when it is one of ours.
   * @param {any} msg
   */
  onMessage(msg) {
    this.received++;
    this.events.emit('counter', this.receivedMetric, 1);
    const p = msg && msg.payload;
    if (!p || typeof p !== 'object') return undefined;
    const pub = String(p.publisher);
    const seq = Number(p.seq);
    if (Number.isFinite(seq)) {
      const last = this.lastSeq.get(pub);
      if (last === undefined || seq > last) {
        if (last !== undefined && seq > last + 1) this.gaps += seq - last - 1;
        this.lastSeq.set(pub, seq);
      } else {
        this.duplicates++;
      }
      markPublished(pub, seq);
    }
    const sentAt = Number(p.sentAt);
    if (Number.isFinite(sentAt)) {
      const latency = Date.now() + this.clockOffset - (sentAt + (Number(p.offsetMs) || 0));
      if (latency >= 0) this.events.emit('histogram', this.latencyMetric, latency);
      else this.events.emit('counter', `${this.latencyMetric}_negative`, 1);
    }
    return p;
  }
}

/**
 * A tick this process's own publisher published: the target acked it (200) for every room. It counts as seen, as
 * a received message does, so this process's receivers expect it even when the target delivers nothing (before,
 * only a delivered message told them a tick had been published: a target that acked and never delivered read as
 * nothing expected, nothing lost).
 * @param {string} pub publisher id @param {number} seq
 */
function markPublished(pub, seq) {
  if (!firstSeq.has(pub)) firstSeq.set(pub, seq);
  const l = latestSeq.get(pub);
  if (l === undefined || seq > l) {
    latestSeq.set(pub, seq);
    bookTicks(seq - (l ?? 0));
  }
}

/**
 * A publish the target did not take: `publish.failed`, and what it answered as `publish.failed_reason.<http_413|ECONNRESET…>`.
 * @param {import('node:events').EventEmitter} events @param {string} reason
 */
function publishFailed(events, reason) {
  events.emit('counter', 'publish.failed', 1);
  events.emit('counter', `publish.failed_reason.${reason}`, 1);
}

/** @type {{ running: boolean } | undefined} */
let publisher;

/**
 * Starts this process's publisher once (later calls are no-ops).
 * @param {{ target: string, rooms: string[], ratePerRoom: number, seconds: number, clockOffset: number,
 *           events: import('node:events').EventEmitter, filler?: string, sentMetric: string, id: string }} o
 */
function startPublisher(o) {
  if (publisher) return;
  publisher = { running: true };
  const state = publisher;
  const intervalMs = 1000 / o.ratePerRoom;
  const startedAt = Date.now();
  const endAt = startedAt + o.seconds * 1000;
  void (async () => {
    for (let tick = 1; state.running; tick++) {
      const due = startedAt + (tick - 1) * intervalMs;
      if (due >= endAt) break;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      const sentAt = Date.now();
      const payload = { sentAt, offsetMs: o.clockOffset, publisher: o.id, seq: tick, ...(o.filler ? { filler: o.filler } : {}) };
      const acked = await Promise.all(
        o.rooms.map(async (room) => {
          try {
            const { status } = await requestJson('POST', `${o.target}/publish`, { room, payload }, { keepAlive: true });
            if (status === 200) o.events.emit('counter', o.sentMetric, 1);
            else publishFailed(o.events, `http_${status}`);
            return status === 200;
          } catch (err) {
            publishFailed(o.events, String(/** @type {any} */ (err).code || 'network'));
            return false;
          }
        }),
      );
      if (acked.every(Boolean)) markPublished(o.id, tick);
    }
    state.running = false;
  })();
}

module.exports = { Receiver, startPublisher, snapshotLatest, ticksSince, ticksBetween, expectMessages };
