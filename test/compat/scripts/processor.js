'use strict';
/**
 * Processor of the compatibility scripts: hooks, function steps and a ws connect function, each leaving
 * a counter so the suite can compare that they ran exactly as often under the rig as under plain Artillery.
 */

/** beforeScenario hook. */
function markStart(context, events, done) {
  events.emit('counter', 'compat.before_scenario', 1);
  return done();
}

/** afterScenario hook. */
function markEnd(context, events, done) {
  events.emit('counter', 'compat.after_scenario', 1);
  return done();
}

/** A function step: one counter per payload row used (which rows a run reads, and how often). */
function countRow(context, events, done) {
  events.emit('counter', `compat.row.${context.vars.user}`, 1);
  events.emit('histogram', 'compat.item_id', Number(context.vars.itemId));
  return done();
}

/** An async function step (Artillery awaits the promise). */
async function asyncStep(context, events) {
  events.emit('counter', 'compat.async_step', 1);
  context.vars.asyncDone = 'yes';
}

/** An async function step that rejects for some rows (itemId a multiple of 28: u4, u8): the vuser fails with its error. */
async function rejectSome(context, events) {
  events.emit('counter', 'compat.reject_step', 1);
  if (Number(context.vars.itemId) % 28 === 0) throw Object.assign(new Error('compat: rejected'), { code: 'COMPAT_REJECTED' });
}

/** afterResponse hook on a request. */
function checkToken(req, res, context, events, done) {
  if (context.vars.token === `tok-${context.vars.user}`) events.emit('counter', 'compat.token_ok', 1);
  return done();
}

/** beforeRequest hook on a request. */
function countRequest(req, context, events, done) {
  events.emit('counter', 'compat.before_request', 1);
  return done();
}

/** ws engine connect function: keeps the script's target (and its /ws path), adds a header. */
function wsConnect(params, context, next) {
  params.options = { ...(params.options || {}), headers: { 'x-compat': '1' } };
  return next();
}

module.exports = { markStart, markEnd, countRow, asyncStep, rejectSome, checkToken, countRequest, wsConnect };
