// @ts-check
'use strict';
/**
 * Artillery's HTTP engine (the engine of every scenario without an `engine:`, the rig's own among them) runs a
 * vuser's steps one by one as `await promisify(task)(context)`. Node's `util.promisify` builds a new function and
 * copies the task's own properties every time: ~12 µs per step, ~45 µs per vuser of the connect scenario's four
 * steps, ~4% of a load thread at 800 vusers/s (measured: docs/performance.md, "Steps promisified once").
 *
 * `util.promisify` returns a function's own `util.promisify.custom` when it has one (Node's documented hook), so
 * giving each compiled task its promisified form once, when Artillery compiles the scenario (at its first
 * arrival), makes every later call a property lookup. The same task runs with the same context and settles the
 * same way: only the wrapper is built once per task instead of once per step of every vuser. A task that already
 * has its own custom form (none of Artillery's do) keeps it.
 */
const path = require('node:path');
const { promisify } = require('node:util');

const PATCHED = Symbol.for('rig.promisifyOnce');

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
  const compileWithPromisifiedTasks = function (tasks, ...rest) {
    if (Array.isArray(tasks)) {
      for (const task of tasks) {
        if (typeof task === 'function' && !Object.prototype.hasOwnProperty.call(task, promisify.custom)) {
          Object.defineProperty(task, promisify.custom, { value: promisify(task), configurable: true });
        }
      }
    }
    return compile.call(this, tasks, ...rest);
  };
  Object.defineProperty(compileWithPromisifiedTasks, PATCHED, { value: true });
  proto.compile = compileWithPromisifiedTasks;
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

module.exports = { promisifyTasksOnce, loadHttpEngine };
