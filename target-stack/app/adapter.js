// @ts-check
'use strict';
/**
 * Worker-side Socket.IO adapters and room-membership counters.
 *
 * - local (default): @socket.io/cluster-adapter's NodeClusterAdapter, extended with connection state recovery backed
 *   by the primary (see recovery-store.js); room sizes are counted exactly by the primary.
 * - REDIS_URL: @socket.io/redis-adapter (pub/sub) for several instances; room sizes are counted exactly in a Redis
 *   hash (HINCRBY). The redis adapter 8.3 does not implement connection state recovery (restoreSession() is the base
 *   no-op), so with REDIS_URL a reconnect is a fresh connection (socket.recovered === false).
 */
const { NodeClusterAdapter } = require('@socket.io/cluster-adapter');
const ipc = require('./ipc');

/** socket.io-adapter MessageType.BROADCAST (socket.io-adapter 2.5.x, as used by socket.io 4.8.4) */
const BROADCAST = 3;

/** @type {Map<number, (offset: string) => void>} */
const offsetWaiters = new Map();
let nextSeqReq = 0;
ipc.on('offset', (msg) => {
  const resolve = offsetWaiters.get(msg.seqReq);
  if (resolve) {
    offsetWaiters.delete(msg.seqReq);
    resolve(String(msg.offset));
  }
});

class RecoveringClusterAdapter extends NodeClusterAdapter {
  /** @override @param {any} message */
  doPublish(message) {
    if (message.type === BROADCAST && message.data && message.data.requestId === undefined) {
      const seqReq = ++nextSeqReq;
      message.seqReq = seqReq; // the primary assigns the offset, relays the message with it and answers us
      /** @type {Promise<string>} */
      const p = new Promise((resolve) => offsetWaiters.set(seqReq, resolve));
      super.doPublish(message);
      return p;
    }
    return super.doPublish(message);
  }

  /**
   * @override
   * @param {any} message
   * @param {string} [offset]
   */
  onMessage(message, offset) {
    return super.onMessage(message, offset ?? (message && message.offset));
  }

  /** @override @param {any} session */
  persistSession(session) {
    ipc.send({ t: 'persist', session });
  }

  /**
   * The session (from the primary's store), or null when it cannot be recovered: Socket.IO then starts a new one.
   * @override
   * @param {string} pid
   * @param {string} offset
   * @returns {Promise<any>}
   */
  async restoreSession(pid, offset) {
    const reply = await ipc.request({ t: 'restore', pid, offset });
    return reply.session || null;
  }
}

/** @returns {(nsp: any) => any} */
function createLocalAdapter() {
  // a plain function: Socket.IO calls it with `new`
  return function (/** @type {any} */ nsp) {
    return new RecoveringClusterAdapter(nsp);
  };
}

/**
 * @typedef {object} RoomCounter
 * @property {(rooms: string[]) => Promise<number[]>} join   sizes after the join, in order
 * @property {(rooms: string[]) => void} leave
 * @property {() => Promise<number>} roomCount               rooms with at least one member
 * @property {() => Promise<void>} close
 */

/** @returns {RoomCounter} */
function primaryRoomCounter() {
  return {
    async join(rooms) {
      const reply = await ipc.request({ t: 'join', rooms });
      return reply.counts;
    },
    leave(rooms) {
      ipc.send({ t: 'leave', rooms });
    },
    async roomCount() {
      const reply = await ipc.request({ t: 'rooms' });
      return reply.rooms;
    },
    async close() {},
  };
}

/**
 * @param {string} url
 * @returns {Promise<{ adapter: (nsp: any) => any, counter: RoomCounter, close: () => Promise<void> }>}
 */
async function createRedis(url) {
  const { createClient } = require('redis');
  const { createAdapter } = require('@socket.io/redis-adapter');
  const pub = createClient({ url });
  const sub = pub.duplicate();
  const cmd = pub.duplicate();
  for (const c of [pub, sub, cmd]) c.on('error', (err) => process.stderr.write(`target: redis: ${err.message}\n`));
  await Promise.all([pub.connect(), sub.connect(), cmd.connect()]);
  const KEY = 'target:room-sizes';
  /** @type {RoomCounter} */
  const counter = {
    async join(rooms) {
      const m = cmd.multi();
      for (const r of rooms) m.hIncrBy(KEY, r, 1);
      const res = await m.exec();
      return res.map((v) => Number(v));
    },
    leave(rooms) {
      if (rooms.length === 0) return;
      // decrement, then drop fields that reached zero (atomic per room)
      const script = "local v = redis.call('HINCRBY', KEYS[1], ARGV[1], -1) if v <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end return v";
      for (const r of rooms) cmd.eval(script, { keys: [KEY], arguments: [r] }).catch(() => {});
    },
    async roomCount() {
      return Number(await cmd.hLen(KEY));
    },
    async close() {},
  };
  return {
    adapter: createAdapter(pub, sub),
    counter,
    close: async () => {
      await Promise.allSettled([pub.quit(), sub.quit(), cmd.quit()]);
    },
  };
}

module.exports = { RecoveringClusterAdapter, createLocalAdapter, primaryRoomCounter, createRedis };
