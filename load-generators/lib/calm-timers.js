// @ts-check
'use strict';
/**
 * Preloaded into every Artillery load process (`NODE_OPTIONS=--require …`, so also into its worker
 * threads) by the agent. Artillery 2.0.34 paces `arrivalRate` and `arrivalCount` phases with the
 * `arrivals` package, which uses `nanotimer`; nanotimer's setInterval busy-waits on setImmediate for any
 * interval up to 25 ms (every rate of 40 arrivals/s or more) and for the last 25 ms of longer ones. The
 * load thread then shows ~60–85% of a core while it creates a few vusers per second, and on a machine
 * the target shares (or any 2-vCPU generator) that spin takes the CPU from the target and from the
 * other load process — the rig's CPU saturation check trips on it.
 *
 * This replaces nanotimer's setInterval with the same drift-free schedule (tick k is due at
 * start + k × interval, measured with the monotonic clock; late ticks run one per event-loop turn, as
 * nanotimer does), but sleeps with setTimeout until each tick is due instead of spinning. Ticks come
 * ≤ 1 ms late (timer granularity) instead of µs late; the number of arrivals is unchanged (the
 * `arrivals` package counts them). nanotimer's own clearInterval still works (same fields).
 */
const path = require('node:path');

/** @param {string} s nanotimer duration: integer + s | m | u | n @returns {number} nanoseconds */
function toNs(s) {
  const unit = s[s.length - 1];
  const n = Number(s.slice(0, -1));
  return unit === 's' ? n * 1e9 : unit === 'm' ? n * 1e6 : unit === 'u' ? n * 1e3 : n;
}

/**
 * @param {any} NanoTimer the nanotimer constructor
 */
function calm(NanoTimer) {
  if (!NanoTimer || !NanoTimer.prototype || NanoTimer.prototype.__rigCalm) return false;
  /**
   * @this {any}
   * @param {Function} task @param {any} args @param {string} interval @param {Function} [callback]
   */
  NanoTimer.prototype.setInterval = function setInterval(task, args, interval, callback) {
    if (typeof task !== 'function') throw new TypeError('nanotimer setInterval: task must be a function');
    const ns = toNs(String(interval));
    if (typeof callback === 'function') this.intervalCallbackRef = callback;
    const start = process.hrtime.bigint();
    this.intervalT1 = process.hrtime();
    this.intervalCount = 1;
    const self = this;
    const elapsedNs = () => Number(process.hrtime.bigint() - start);
    const tick = () => {
      self.deferredIntervalRef = null;
      self.intervalImmediateRef = null;
      if (self.intervalT1 == null) return; // cleared
      if (ns <= 0 || elapsedNs() >= ns * self.intervalCount) {
        if (args) task.apply(null, args);
        else task();
        if (self.intervalT1 == null) return; // the task cleared the interval
        self.intervalCount++;
      }
      const waitMs = (ns * self.intervalCount - elapsedNs()) / 1e6;
      if (waitMs <= 0) self.intervalImmediateRef = setImmediate(tick);
      else self.deferredIntervalRef = setTimeout(tick, Math.ceil(waitMs));
    };
    const first = ns / 1e6;
    if (first <= 0) this.intervalImmediateRef = setImmediate(tick);
    else this.deferredIntervalRef = setTimeout(tick, Math.ceil(first));
  };
  Object.defineProperty(NanoTimer.prototype, '__rigCalm', { value: true });
  return true;
}

/** Finds the nanotimer that Artillery's `arrivals` package loads, from this install or the agent's. */
function install() {
  const roots = [process.cwd(), __dirname, path.dirname(require.resolve('artillery/package.json', { paths: [__dirname, process.cwd()] }))];
  try {
    const arrivalsDir = path.dirname(require.resolve('arrivals/package.json', { paths: roots }));
    return calm(require(require.resolve('nanotimer', { paths: [arrivalsDir] })));
  } catch {
    return false; // no Artillery here (or a different layout): leave timers as they are
  }
}

/** Whether RIG_CALM_TIMERS turns the fix off: `0` as documented, and the other ways people write "off". @param {string | undefined} value */
const turnedOff = (value) => /^\s*(0|false|off|no)\s*$/i.test(value ?? '');

if (!turnedOff(process.env.RIG_CALM_TIMERS)) install();

module.exports = { calm, install, toNs, turnedOff };
