// @ts-check
'use strict';
/**
 * Artillery 2.0.34's ws engine can call a step's callback twice, and Artillery's load thread then dies of async's
 * `Error: Callback was already called.` (plain `artillery run` exits 11 and the run is lost). A `send` (or `wait`)
 * with `capture`/`match` arms a timer of `config.timeout` (else `config.ws.timeout`, else 10 s) that calls back with
 * `response timeout` unless an answer came first, and the send's own callback calls back with the send's error: a
 * send on a connection the target has closed (`WebSocket is not open: readyState 3 (CLOSED)`) calls back twice, one
 * second apart, and so does an answer that comes after the timer. A target that closes or slows connections under
 * load, what a load test is for finding, ended the run.
 *
 * The wrapper hands every step of the ws engine a callback that runs once: the vuser ends on the first call, as the
 * engine meant; a later one is dropped. The engine's counters are untouched: the timer still counts its
 * `response timeout` for a vuser that already failed on its send (the count plain Artillery gives up to the crash).
 */
const path = require('node:path');

const PATCHED = Symbol.for('rig.wsStepCallbackOnce');

/**
 * `callback`, callable once; later calls do nothing.
 * @template {(...args: any[]) => unknown} F
 * @param {F} callback
 * @returns {(...args: Parameters<F>) => void}
 */
function once(callback) {
  let called = false;
  return (...args) => {
    if (called) return;
    called = true;
    callback(...args);
  };
}

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
  Object.defineProperty(stepCallingBackOnce, PATCHED, { value: true });
  proto.step = stepCallingBackOnce;
  return true;
}

/**
 * Artillery's WSEngine class: the module instance its runner uses (loaded by file, as engine-steps.js loads the HTTP
 * engine). @param {string} [artilleryDir] the artillery package's folder @returns {{ prototype: any }}
 */
function loadWsEngine(artilleryDir = path.dirname(require.resolve('artillery/package.json'))) {
  return require(path.join(artilleryDir, 'dist', 'lib', 'core', 'engine_ws.js')).default;
}

module.exports = { stepCallbackOnce, loadWsEngine };
