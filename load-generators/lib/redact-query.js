// @ts-check
'use strict';
/**
 * How a URL's query is shown wherever the rig prints or stores a URL: every value hidden, keys kept (`?a=***&b=***`);
 * a segment without `=` may be the token itself (`ws://h/feed?SECRET`), so it is hidden whole. One rule for the
 * orchestrator's redaction (scripts/core/redact.ts) and the probe's lines (./preflight.js), which runs on generators
 * and imports nothing of the orchestrator. Pure.
 */

/**
 * `?a=1&b` → `?a=***&***`.
 * @param {string} query a URL's search part, `?` included (or '')
 * @returns {string}
 */
function redactQuery(query) {
  return query.replace(/([?&;])([^&;#]+)/g, (_m, /** @type {string} */ sep, /** @type {string} */ seg) => (seg.includes('=') ? `${sep}${seg.slice(0, seg.indexOf('=') + 1)}***` : `${sep}***`));
}

module.exports = { redactQuery };
