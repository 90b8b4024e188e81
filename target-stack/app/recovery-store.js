// @ts-check
'use strict';
/**
 * Connection state recovery for the node:cluster adapter, kept in the PRIMARY.
 *
 * @socket.io/cluster-adapter 0.3.0 (NodeClusterAdapter, a ClusterAdapterWithHeartbeat) does not support connection
 * state recovery: its doPublish() returns an empty offset and it inherits the no-op persistSession()/restoreSession()
 * of the base adapter. A reconnecting client may also land on another worker than the one it left. So the primary —
 * which relays every adapter message anyway (setupPrimary) — acts as the sequencer and the session store:
 *
 * - every non-volatile, ack-less BROADCAST gets a cluster-wide increasing offset (a decimal string), stored in a
 *   per-room log for `maxDisconnectionDuration`; the offset is written into the relayed message (so other workers
 *   append it to the packet) and sent back to the emitting worker (which appends it before its local delivery);
 * - persistSession() sends the session here; restoreSession(pid, offset) asks here and gets the session back with the
 *   packets it missed (those addressed to one of its rooms, not excluded, with an offset above the client's).
 *
 * Cost: one index lookup per room of the session on restore (binary search), no per-socket timers.
 */

/**
 * @typedef {{ seq: number, at: number, except: string[], data: unknown[] }} LogEntry
 * @typedef {{ sid: string, pid: string, rooms: string[], data: unknown, disconnectedAt: number }} StoredSession
 */

const ALL = ''; // log key for broadcasts without rooms (to everyone)

class RecoveryStore {
  /** @param {number} maxDisconnectionDuration */
  constructor(maxDisconnectionDuration) {
    this.maxMs = maxDisconnectionDuration;
    this.seq = 0;
    /** lowest offset still retained in full: a client whose offset is below minSeq-1 may have lost packets */
    this.minSeq = 1;
    /** @type {Map<string, LogEntry[]>} */
    this.logs = new Map();
    /** @type {Map<string, StoredSession>} */
    this.sessions = new Map();
    /** @type {Map<string, Array<(s: StoredSession | undefined) => void>>} restores that arrived before the persist */
    this.waiting = new Map();
    this.timer = setInterval(() => this.prune(Date.now()), 10_000);
    this.timer.unref();
  }

  /**
   * Record a broadcast, return its offset.
   * @param {{ rooms?: string[], except?: string[], flags?: { volatile?: boolean } }} opts
   * @param {{ type: number, id?: number, data: unknown[] }} packet
   * @returns {string}
   */
  record(opts, packet) {
    const seq = ++this.seq;
    const offset = String(seq);
    const storable = packet.type === 2 && packet.id === undefined && !(opts.flags && opts.flags.volatile);
    if (storable) {
      /** @type {LogEntry} */
      const entry = { seq, at: Date.now(), except: opts.except || [], data: [...packet.data, offset] };
      const rooms = opts.rooms && opts.rooms.length > 0 ? opts.rooms : [ALL];
      for (const room of rooms) {
        let log = this.logs.get(room);
        if (!log) this.logs.set(room, (log = []));
        log.push(entry);
      }
    }
    return offset;
  }

  /** @param {Omit<StoredSession, 'disconnectedAt'>} session */
  persist(session) {
    const stored = { ...session, disconnectedAt: Date.now() };
    this.sessions.set(session.pid, stored);
    const waiters = this.waiting.get(session.pid);
    if (waiters) {
      this.waiting.delete(session.pid);
      for (const w of waiters) w(stored);
    }
  }

  /**
   * @param {string} pid
   * @param {string} offset
   * @param {number} waitMs how long to wait for a persist that may still be on its way from the old worker
   * @returns {Promise<(StoredSession & { missedPackets: unknown[][] }) | null>}
   */
  async restore(pid, offset, waitMs = 1000) {
    let session = this.sessions.get(pid);
    if (!session) {
      session = await new Promise((resolve) => {
        let list = this.waiting.get(pid);
        if (!list) this.waiting.set(pid, (list = []));
        const waiter = /** @param {StoredSession | undefined} s */ (s) => {
          clearTimeout(t);
          resolve(s);
        };
        const t = setTimeout(() => {
          const l = this.waiting.get(pid);
          if (l) {
            const i = l.indexOf(waiter);
            if (i >= 0) l.splice(i, 1);
            if (l.length === 0) this.waiting.delete(pid);
          }
          resolve(undefined);
        }, waitMs);
        list.push(waiter);
      });
      if (!session) return null;
    }
    this.sessions.delete(pid);
    if (session.disconnectedAt + this.maxMs < Date.now()) return null;
    const from = Number(offset);
    if (!Number.isInteger(from) || from > this.seq || from < this.minSeq - 1) return null;
    /** @type {Map<number, LogEntry>} */
    const picked = new Map();
    for (const room of [...session.rooms, ALL]) {
      const log = this.logs.get(room);
      if (!log) continue;
      for (let i = firstAbove(log, from); i < log.length; i++) {
        const e = /** @type {LogEntry} */ (log[i]);
        if (!picked.has(e.seq) && !e.except.some((r) => session.rooms.includes(r))) picked.set(e.seq, e);
      }
    }
    const missedPackets = [...picked.values()].sort((a, b) => a.seq - b.seq).map((e) => e.data);
    const { disconnectedAt, ...rest } = session;
    return { ...rest, disconnectedAt, missedPackets };
  }

  /** @param {number} now */
  prune(now) {
    const threshold = now - this.maxMs;
    for (const [pid, s] of this.sessions) if (s.disconnectedAt < threshold) this.sessions.delete(pid);
    for (const [room, log] of this.logs) {
      let n = 0;
      while (n < log.length && /** @type {LogEntry} */ (log[n]).at < threshold) {
        this.minSeq = Math.max(this.minSeq, /** @type {LogEntry} */ (log[n]).seq + 1);
        n++;
      }
      if (n === log.length) this.logs.delete(room);
      else if (n > 0) log.splice(0, n);
    }
  }

  close() {
    clearInterval(this.timer);
  }
}

/**
 * Index of the first entry with seq > from (entries are in increasing seq order).
 * @param {LogEntry[]} log
 * @param {number} from
 */
function firstAbove(log, from) {
  let lo = 0;
  let hi = log.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (/** @type {LogEntry} */ (log[mid]).seq <= from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

module.exports = { RecoveryStore };
