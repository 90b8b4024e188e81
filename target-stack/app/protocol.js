// @ts-check
'use strict';
/**
 * What the target accepts from its clients, shared by the HTTP routes and the Socket.IO handlers.
 */
const { WITHHELD_ROOM } = require('./faults');

/**
 * A room a client may name: a non-empty string of at most 256 characters, never the withheld sockets' room.
 * @param {unknown} room @returns {room is string}
 */
function validRoom(room) {
  return typeof room === 'string' && room.length > 0 && room.length <= 256 && room !== WITHHELD_ROOM;
}

/** The session id of a `Cookie` header (set by GET /set-cookie). @param {string | undefined} header */
function sidFromCookie(header) {
  if (!header) return undefined;
  const m = /(?:^|;\s*)sid=([^;]*)/.exec(header);
  return m && m[1] && m[1].trim() !== '' ? m[1].trim() : undefined;
}

module.exports = { validRoom, sidFromCookie };
