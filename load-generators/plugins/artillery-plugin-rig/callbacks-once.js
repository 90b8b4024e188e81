// @ts-check
'use strict';
/**
 * Artillery 2.0.34's ws and socketio engines call some callbacks twice when the target closes, breaks or drops a
 * connection, and Artillery's load thread then dies of async's `Error: Callback was already called.` (plain
 * `artillery run` exits 11 and the run is lost). A target that closes or drops connections under load, what a load
 * test is for finding, ended the run. Three places (engine_ws.js, engine_socketio.js):
 *
 *  - a ws `send` or `wait` with `capture`/`match` sets the connection's `onmessage` and, for a send, calls back with
 *    the send's error; its timer of `config.timeout` (else `config.ws.timeout`, else 10 s) calls back with `response
 *    timeout` unless a message came, and every message while `onmessage` is still that step's calls back again: a
 *    send on a connection the target closed (`WebSocket is not open: readyState 3 (CLOSED)`, then the timer), or a
 *    second message arriving during a later `think` or function step;
 *  - the ws connect step keeps its `once('error')` listener after the connection opened: an error the connection
 *    raises later (`Invalid WebSocket frame: …`, `Max payload size exceeded`) calls the connect step back again;
 *  - the socketio engine keeps its `once('connect_error')` listener after the connection succeeded: a target that
 *    drops a connected vuser makes Socket.IO's reconnection fail, and `connect_error` calls the connect step back.
 *
 * Each gets a callback that runs once. The vuser goes on as the first call said; what a later call would have
 * counted is counted as plain Artillery counts it up to its crash: the ws step's timer and the ws connect listener
 * count their error before calling back, and a dropped Socket.IO connection's failed reconnect is counted as the
 * engine counts a failed connection (`Error: xhr poll error`, or the message alone for a namespace's).
 */
const path = require('node:path');

const PATCHED = Symbol.for('rig.callbacksOnce');
/** Where a socketio engine instance keeps its scenarios' event emitter (one per run: runner.js scenarioEvents). */
const EVENTS = Symbol('rig.scenarioEvents');
const ALREADY_CALLED = 'Callback was already called.';

/**
 * `callback` for its first call; later calls go to `later` (default: dropped).
 * @param {(...args: any[]) => unknown} callback @param {(...args: any[]) => void} [later]
 * @returns {(...args: any[]) => unknown}
 */
function once(callback, later) {
  let called = false;
  return (...args) => {
    if (!called) {
      called = true;
      return callback(...args);
    }
    if (later) later(...args);
    return undefined;
  };
}

/** Marks `fn` as this module's wrapper. @param {Function} fn */
const mark = (fn) => Object.defineProperty(fn, PATCHED, { value: true });

/**
 * Wraps `Engine.prototype.step(spec, ee)` so the task it returns calls its callback at most once. Idempotent.
 * @param {{ prototype: any }} Engine Artillery's WSEngine
 * @returns {boolean} whether it was wrapped by this call
 */
function stepCallbackOnce(Engine) {
  const proto = Engine.prototype;
  if (typeof proto.step !== 'function' || proto.step[PATCHED]) return false;
  const step = proto.step;
  /** @this {unknown} @param {unknown[]} args */
  function stepCallingBackOnce(...args) {
    const task = step.apply(this, args);
    if (typeof task !== 'function') return task;
    /** @param {unknown} context @param {(...a: unknown[]) => unknown} callback */
    return (context, callback) => task(context, typeof callback === 'function' ? once(callback) : callback);
  }
  proto.step = mark(stepCallingBackOnce);
  return true;
}

/**
 * Replaces the ws engine's WebSocket class (its `_deps.WebSocket`, the module's own hook) with a subclass whose
 * `once('error', listener)` survives the listener's second call of the connect step's callback: the error is counted
 * by the listener first, then async refuses the call (`Callback was already called.`), which is dropped here.
 * Idempotent.
 * @param {{ WebSocket?: any }} deps engine_ws.js's `_deps`
 * @returns {boolean} whether it was replaced by this call
 */
function errorsAfterOpen(deps) {
  const Base = deps.WebSocket;
  if (typeof Base !== 'function' || Base[PATCHED]) return false;
  class WebSocketErrorsAfterOpen extends Base {
    /** @param {string | symbol} event @param {(...a: any[]) => unknown} listener */
    once(event, listener) {
      if (event !== 'error' || typeof listener !== 'function') return super.once(event, listener);
      /** @this {unknown} @param {unknown[]} args */
      function countedOnce(...args) {
        try {
          return listener.apply(this, args);
        } catch (err) {
          if (!(err instanceof Error && err.message === ALREADY_CALLED)) throw err;
          return undefined;
        }
      }
      return super.once(event, countedOnce);
    }
  }
  mark(WebSocketErrorsAfterOpen);
  deps.WebSocket = WebSocketErrorsAfterOpen;
  return true;
}

/**
 * Wraps the socketio engine's `loadContextSocket(namespace, context, cb)` so `cb` runs once; a later failure of that
 * connection (its `connect_error` after a drop) is counted instead, as the engine counts a failed connection. Keeps
 * the run's scenario event emitter from `createScenario(spec, ee)` to count with. Idempotent.
 * @param {{ prototype: any }} Engine Artillery's SocketIoEngine
 * @returns {boolean} whether it was wrapped by this call
 */
function socketConnectOnce(Engine) {
  const proto = Engine.prototype;
  if (typeof proto.loadContextSocket !== 'function' || typeof proto.createScenario !== 'function' || proto.loadContextSocket[PATCHED]) return false;
  const { createScenario, loadContextSocket } = proto;
  /** @this {any} @param {unknown} spec @param {unknown} ee @param {unknown[]} rest */
  function createScenarioKeepingEvents(spec, ee, ...rest) {
    this[EVENTS] = ee;
    return createScenario.call(this, spec, ee, ...rest);
  }
  /** @this {any} @param {string} namespace @param {any} context @param {(...a: unknown[]) => unknown} cb */
  function loadContextSocketOnce(namespace, context, cb) {
    if (typeof cb !== 'function') return loadContextSocket.call(this, namespace, context, cb);
    const ee = this[EVENTS];
    const counted = (/** @type {unknown} */ err) => {
      if (err && ee) ee.emit('error', namespace === '' ? err : /** @type {Error} */ (err).message ?? err);
    };
    const opened = Boolean(context?.sockets?.[namespace]);
    // The bound below ends as soon as the step is called back, by whoever: Artillery's own 'connect' listener runs
    // first, and a flow that goes on synchronously may disconnect within that same emit (review: its 'disconnect' was
    // then counted as a failure of a vuser that had connected).
    let called = false;
    /** @type {() => void} */
    let disarm = () => undefined;
    const first = once((...args) => {
      called = true;
      disarm();
      return cb(...args);
    }, counted);
    const result = loadContextSocket.call(this, namespace, context, first);
    const socket = opened ? undefined : context?.sockets?.[namespace];
    if (socket && !socket.connected && !called) disarm = connectWithin(socket, first);
    return result;
  }
  proto.createScenario = mark(createScenarioKeepingEvents);
  proto.loadContextSocket = mark(loadContextSocketOnce);
  return true;
}

/**
 * Bounds a new connection's wait for Socket.IO's answer to its CONNECT. socket.io-client's `timeout` (20 s unless the
 * script's config.socketio says otherwise) bounds only each opening of the Engine.IO session: a target that opened the
 * session and then never answered the CONNECT (a middleware that never calls next(), a server under a load it cannot
 * serve), or closed it first with reconnection off, held the vuser for ever, and the run ended only at the rig's
 * overrun stop (exit 3, blamed on the script). Each time the session opens, the CONNECT's answer gets that same
 * `timeout`, then the connection fails with `timeout`, as the client's own does; a session closed before the answer
 * fails it at once with the close's reason when reconnection is off (with it on, the client opens a session again,
 * and its wait starts again). The target's failure, counted as the engine counts a failed connection.
 * @param {any} socket a socket.io-client Socket, not yet connected @param {(err?: unknown) => unknown} cb the connect step's (once)
 * @returns {() => void} ends the bound (the step was called back)
 */
function connectWithin(socket, cb) {
  const manager = socket.io;
  const ms = Number(typeof manager?.timeout === 'function' ? manager.timeout() : 20_000);
  if (!(ms > 0) || typeof manager?.on !== 'function') return () => undefined; // `timeout: false`: the script asked for no bound
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const done = () => {
    clearTimeout(timer);
    socket.off('connect', done).off('connect_error', done).off('disconnect', onDisconnect);
    manager.off('open', onOpen);
  };
  const onOpen = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      done();
      cb(new Error('timeout'));
    }, ms);
  };
  const onDisconnect = (/** @type {string} */ reason) => {
    clearTimeout(timer);
    // With reconnection on, the client opens a session again (and may connect): its wait starts at that 'open'. Not
    // after the server's DISCONNECT of the namespace (`io server disconnect`): the client destroyed the socket, and
    // no 'open' comes for it (socket.active false).
    if (typeof manager.reconnection === 'function' && manager.reconnection() && socket.active) return;
    done();
    cb(new Error(String(reason)));
  };
  socket.once('connect', done);
  socket.once('connect_error', done);
  socket.on('disconnect', onDisconnect);
  manager.on('open', onOpen);
  if (manager._readyState === 'open') onOpen();
  return done;
}

/** Artillery's package folder. */
const artilleryDir = () => path.dirname(require.resolve('artillery/package.json'));

/**
 * Artillery's ws and socketio engine modules: the instances its runner uses (loaded by file, as engine-steps.js
 * loads the HTTP engine). @param {string} [dir] the artillery package's folder
 * @returns {{ ws: { default: { prototype: any }, _deps: { WebSocket?: any } }, socketio: { default: { prototype: any } } }}
 */
function loadEngines(dir = artilleryDir()) {
  const core = path.join(dir, 'dist', 'lib', 'core');
  return { ws: require(path.join(core, 'engine_ws.js')), socketio: require(path.join(core, 'engine_socketio.js')) };
}

/**
 * All three on the engines given (default: Artillery's own). Throws where one cannot be found.
 * @param {ReturnType<typeof loadEngines>} [engines]
 */
function callbacksOnce(engines = loadEngines()) {
  stepCallbackOnce(engines.ws.default);
  errorsAfterOpen(engines.ws._deps);
  socketConnectOnce(engines.socketio.default);
  // Each wrapper changes nothing where its hook is missing (a later Artillery): said, not reported as done.
  const missing = [
    [engines.ws.default?.prototype?.step, "the ws engine's step()"],
    [engines.ws._deps?.WebSocket, "the ws engine's _deps.WebSocket"],
    [engines.socketio.default?.prototype?.loadContextSocket, "the socketio engine's loadContextSocket()"],
  ].filter(([fn]) => !(typeof fn === 'function' && fn[PATCHED]));
  if (missing.length) throw new Error(`not found: ${missing.map(([, what]) => what).join(', ')}`);
}

module.exports = { stepCallbackOnce, errorsAfterOpen, socketConnectOnce, loadEngines, callbacksOnce };
