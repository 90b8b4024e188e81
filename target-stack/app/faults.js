// @ts-check
'use strict';
/**
 * Fault injection, deterministic so that tests (and a run's verdict) can compare against exact ground truth.
 *
 * - withhold: a socket is withheld when fnv1a(FAULT_SEED + ':' + socket.id) / 2^32 < FAULT_WITHHOLD_FRACTION.
 *   Withheld sockets join WITHHELD_ROOM, and every `message`/`presence` broadcast excludes that room.
 * - cookie 503: the n-th `/set-cookie` request of a worker (n = 1, 2, …) is answered 503 when
 *   floor(n·R) > floor((n−1)·R), so after n requests exactly floor(n·R) were refused (per worker).
 *   FAULT_SEED shifts the phase (n is offset by fnv1a(seed) mod 1000 when a seed is given).
 * - delivery delay: every `message` broadcast is sent FAULT_DELIVERY_DELAY_MS later (one timer per message).
 */

/** Room that withheld sockets join; never announced, never counted as a room. */
const WITHHELD_ROOM = '__target_withheld__';

/**
 * 32-bit FNV-1a.
 * @param {string} s
 */
function fnv1a(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * @param {string} seed
 * @param {number} fraction
 * @returns {(socketId: string) => boolean}
 */
function makeWithholdDecider(seed, fraction) {
  if (fraction <= 0) return () => false;
  if (fraction >= 1) return () => true;
  return (socketId) => fnv1a(`${seed}:${socketId}`) / 4294967296 < fraction;
}

/**
 * @param {string} seed
 * @param {number} fraction
 * @returns {() => boolean} call once per request; true = answer 503
 */
function makeCookie503Decider(seed, fraction) {
  if (fraction <= 0) return () => false;
  const phase = seed === '' ? 0 : fnv1a(seed) % 1000;
  let n = phase;
  return () => {
    n += 1;
    return Math.floor(n * fraction) > Math.floor((n - 1) * fraction);
  };
}

module.exports = { WITHHELD_ROOM, fnv1a, makeWithholdDecider, makeCookie503Decider };
