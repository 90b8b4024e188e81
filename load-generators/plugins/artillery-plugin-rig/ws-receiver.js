// @ts-check
'use strict';
/**
 * A closing WebSocket without the errors nobody sees. When a connection closes, `ws` ends its frame parser (its
 * `Receiver`, a Writable) from both the socket's `'end'` and its `'close'` listener, so the second `end()` lands on
 * a parser already ended. Node's `Writable.prototype.end()` then builds an `ERR_STREAM_ALREADY_FINISHED` (or
 * `ERR_STREAM_DESTROYED`) error, stack trace and all, and, with no callback given, drops it. In a load thread's
 * profile at 800 vusers/s (connect scenario, pinned as in docs/performance.md) those errors took ~430 ms of the
 * 15,000-vuser window, ~36 µs of a ~1.1 ms vuser.
 *
 * The wrapper returns at once from an `end()` with no arguments on a parser already ending and not corked: a case
 * where Node's `end()` (Node 22, lib/internal/streams/writable.js) changes nothing and at most builds that error and
 * drops it. Every other call (a chunk, a callback, the first `end()`, a parser errored before it ended) runs Node's
 * own `end()`.
 */
const path = require('node:path');

const PATCHED = Symbol.for('rig.wsReceiverQuietEnd');

/**
 * Wraps `Receiver.prototype.end` as above. Idempotent (a second call changes nothing).
 * @param {{ prototype: any }} Receiver ws's Receiver class (a Writable)
 * @returns {boolean} whether it was wrapped by this call
 */
function quietSecondEnd(Receiver) {
  const proto = Receiver.prototype;
  if (typeof proto.end !== 'function' || proto.end[PATCHED]) return false;
  const end = proto.end;
  /** @this {any} @param {unknown[]} args */
  function endUnlessEnded(...args) {
    const state = this._writableState;
    if (args.length === 0 && state && state.ending && !state.corked) return this;
    return end.apply(this, args);
  }
  Object.defineProperty(endUnlessEnded, PATCHED, { value: true });
  proto.end = endUnlessEnded;
  return true;
}

/**
 * The Receiver class of every `ws` copy a Socket.IO or WebSocket vuser uses: the one under socket.io-client's
 * engine.io-client (the rig's processors and Artillery's socketio engine) and the one Artillery's `ws` engine
 * loads. Copies that are not installed are skipped; none found is an error.
 * @param {(id: string, opts?: { paths?: string[] }) => string} [resolve]
 * @returns {Array<{ prototype: any }>}
 */
function wsReceivers(resolve = require.resolve) {
  /** @type {Set<string>} */
  const dirs = new Set();
  /** @param {string} id @param {string} from */
  const dirOf = (id, from) => {
    try {
      return path.dirname(resolve(`${id}/package.json`, { paths: [from] }));
    } catch {
      return undefined;
    }
  };
  const sioc = dirOf('socket.io-client', __dirname);
  const eioc = sioc && dirOf('engine.io-client', sioc);
  const fromEio = eioc && dirOf('ws', eioc);
  if (fromEio) dirs.add(fromEio);
  const artillery = dirOf('artillery', __dirname);
  const fromArtillery = artillery && dirOf('ws', artillery);
  if (fromArtillery) dirs.add(fromArtillery);
  if (dirs.size === 0) throw new Error('no ws package found beside socket.io-client or artillery');
  return [...dirs].map((d) => require(path.join(d, 'index.js')).Receiver).filter((R) => typeof R === 'function');
}

module.exports = { quietSecondEnd, wsReceivers };
