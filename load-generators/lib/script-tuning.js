// @ts-check
'use strict';
/**
 * Per-vuser overhead the rig removes from a script before it runs it, without changing what the vusers
 * do. Artillery's HTTP engine (the default engine, which also runs `function` steps) gives EVERY vuser
 * two keep-alive HTTP agents of its own unless `config.http.pool` is set (lib/core/engine_http
 * setInitialContext), and keeps them for the whole session — a held Socket.IO vuser carries them through
 * its hold. When no scenario makes an Artillery HTTP request (the built-in Socket.IO scenarios do their
 * HTTP in processors), those agents are never used: the rig sets `http.pool` so one shared pair serves
 * every vuser. Scripts that do make Artillery HTTP requests are left exactly as written (pooling would
 * change their connection behaviour).
 */

const HTTP_STEPS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

/**
 * @param {any[]} flow
 * @returns {boolean}
 */
function flowMakesHttpRequests(flow) {
  return (flow || []).some((step) => {
    if (!step || typeof step !== 'object') return false;
    if (HTTP_STEPS.some((k) => k in step)) return true;
    if (Array.isArray(step.loop) && flowMakesHttpRequests(step.loop)) return true;
    if (Array.isArray(step.parallel) && flowMakesHttpRequests(step.parallel)) return true;
    return false;
  });
}

/**
 * True when some scenario makes Artillery HTTP requests, on any engine (Artillery's socketio engine
 * runs its HTTP steps through the HTTP engine too).
 * @param {any} script
 */
function usesArtilleryHttp(script) {
  return (script.scenarios || []).some((/** @type {any} */ s) => flowMakesHttpRequests(s && s.flow));
}

/**
 * Sets `config.http.pool` when no scenario makes Artillery HTTP requests and the script did not set it.
 * Mutates and returns the script; `changed` tells the agent what it did (logged).
 * @param {any} script
 * @returns {{ script: any, changed: string[] }}
 */
function tuneScript(script) {
  /** @type {string[]} */
  const changed = [];
  const config = script.config || (script.config = {});
  if (!usesArtilleryHttp(script) && (config.http === undefined || config.http.pool === undefined)) {
    config.http = { ...(config.http || {}), pool: 1 };
    changed.push('config.http.pool=1 (no Artillery HTTP requests: one shared agent pair instead of two per vuser)');
  }
  return { script, changed };
}

module.exports = { tuneScript, usesArtilleryHttp };
