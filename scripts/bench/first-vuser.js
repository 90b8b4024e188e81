// @ts-check
'use strict';
/**
 * The bench's processor: the connect scenario's own functions, unchanged, plus the instant the trial's first
 * vuser started, written once to RIG_BENCH_FIRST_VUSER_FILE (create-only: with several load processes the
 * first to get there wins). Plain Artillery and the rig load the same file, so start-up ("command → first
 * vuser") is measured the same way for both, and neither pays more than a boolean test per vuser.
 */
const fs = require('node:fs');
const connect = require('../../load-generators/processors/connect');

const FILE = process.env.RIG_BENCH_FIRST_VUSER_FILE;
let seen = !FILE;

/**
 * Async like the original: Artillery awaits an AsyncFunction and hands any other function a callback.
 * @param {any} context @param {import('node:events').EventEmitter} events
 */
async function fetchCookie(context, events) {
  if (!seen) {
    seen = true;
    try {
      fs.writeFileSync(/** @type {string} */ (FILE), String(Date.now()), { flag: 'wx' });
    } catch {
      /* another load process was first */
    }
  }
  return connect.fetchCookie(context, events);
}

module.exports = { ...connect, fetchCookie };
