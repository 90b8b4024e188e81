// @ts-check
'use strict';
/**
 * Per-vuser wrappers Artillery's HTTP engine builds and throws away, built once instead. The HTTP engine runs every
 * scenario without an `engine:` (the rig's own among them) and its `function` steps. Measured in a load thread's
 * profile at 800 vusers/s (connect scenario: three async processor functions and a think, ~1.1 ms of CPU per
 * vuser; docs/performance.md, "Steps wrapped once"):
 *
 *  - each step runs as `await promisify(task)(context)`, and `util.promisify` builds a new function and copies the
 *    task's own properties every time (~32 µs per vuser). `util.promisify` returns a function's own
 *    `util.promisify.custom` when it has one (Node's documented hook): each task gets its promisified form once,
 *    when Artillery compiles the scenario (at its first arrival);
 *  - a `function` step whose processor function is async runs `callbackify(fn)(context, ee, cb)`, a new wrapper per
 *    step of every vuser. `callbackify`'s wrapper keeps no state, so one per processor function does the same.
 *
 * What runs does not change: the same task or processor function, looked up when Artillery looks it up, with the
 * same arguments, settling the vuser the same way; only the wrappers are built once. Everything else (requests,
 * loops, hooks, a function that is not async) goes through Artillery's own code untouched.
 */
const path = require('node:path');
const { callbackify, promisify } = require('node:util');

const PATCHED = Symbol.for('rig.engineStepsOnce');

/**
 * Marks `fn` as this module's wrapper (so a second call changes nothing). @param {Function} fn
 */
const mark = (fn) => Object.defineProperty(fn, PATCHED, { value: true });

/**
 * Wraps `Engine.prototype.compile(tasks, …)` so every task function gets its promisified form first.
 * Idempotent (a second call changes nothing).
 * @param {{ prototype: any }} Engine
 * @returns {boolean} whether it was wrapped by this call
 */
function promisifyTasksOnce(Engine) {
  const proto = Engine.prototype;
  if (typeof proto.compile !== 'function' || proto.compile[PATCHED]) return false;
  const compile = proto.compile;
  /** @this {unknown} @param {unknown} tasks @param {unknown[]} rest */
  function compileWithPromisifiedTasks(tasks, ...rest) {
    if (Array.isArray(tasks)) {
      for (const task of tasks) {
        if (typeof task === 'function' && !Object.prototype.hasOwnProperty.call(task, promisify.custom)) {
          Object.defineProperty(task, promisify.custom, { value: promisify(task), configurable: true });
        }
      }
    }
    return compile.call(this, tasks, ...rest);
  }
  proto.compile = mark(compileWithPromisifiedTasks);
  return true;
}

/**
 * A step Artillery's HTTP engine runs as a `function` step: its `step()` tests loop, parallel, think and log first.
 * @param {any} spec
 */
const isFunctionStep = (spec) =>
  !!spec && typeof spec === 'object' && !spec.loop && !spec.parallel && spec.think === undefined && spec.log === undefined && !!spec.function;

/**
 * Wraps `Engine.prototype.step(spec, ee, opts)`: a `function` step whose processor function is async (not a plain
 * `Function`, Artillery's own test) calls one callbackified wrapper per processor function instead of a new one per
 * call; any other step, or a function step whose function is missing or callback-style, runs Artillery's own task.
 * Idempotent.
 * @param {{ prototype: any }} Engine
 * @returns {boolean} whether it was wrapped by this call
 */
function callbackifyFunctionsOnce(Engine) {
  const proto = Engine.prototype;
  if (typeof proto.step !== 'function' || proto.step[PATCHED]) return false;
  const step = proto.step;
  /** @type {WeakMap<Function, Function>} */
  const callbackified = new WeakMap();
  /** @param {Function} fn */
  const once = (fn) => {
    let cb = callbackified.get(fn);
    if (!cb) callbackified.set(fn, (cb = callbackify(/** @type {() => Promise<unknown>} */ (fn))));
    return cb;
  };
  /** @this {any} @param {any} spec @param {any} ee @param {unknown[]} rest */
  function stepWithFunctionsOnce(spec, ee, ...rest) {
    const task = step.call(this, spec, ee, ...rest);
    if (!isFunctionStep(spec) || typeof task !== 'function') return task;
    const engine = this;
    /** @param {any} context @param {(err: unknown, context: any) => void} callback */
    return function functionStep(context, callback) {
      const fn = engine.config?.processor?.[spec.function];
      if (typeof fn !== 'function' || fn.constructor.name === 'Function') return task(context, callback);
      return once(fn)(context, ee, (/** @type {unknown} */ hookErr) => callback(hookErr, context));
    };
  }
  proto.step = mark(stepWithFunctionsOnce);
  return true;
}

/**
 * Artillery's HttpEngine class: the same module instance its runner uses (loaded by file, since the package's
 * `exports` do not name it; an ES module, required as Node ≥ 22.12 allows).
 * @param {string} [artilleryDir] the artillery package's folder
 * @returns {{ prototype: any }}
 */
function loadHttpEngine(artilleryDir = path.dirname(require.resolve('artillery/package.json'))) {
  return require(path.join(artilleryDir, 'dist', 'lib', 'core', 'engine_http.js')).default;
}

/**
 * Both wrappers on the HTTP engine. @param {{ prototype: any }} Engine
 */
function wrapStepsOnce(Engine) {
  promisifyTasksOnce(Engine);
  callbackifyFunctionsOnce(Engine);
}

module.exports = { promisifyTasksOnce, callbackifyFunctionsOnce, wrapStepsOnce, loadHttpEngine };
