// @ts-check
'use strict';
/**
 * A worker's HTTP routes (protocol in docs/target.md): GET /set-cookie, /time, /healthz, /metrics and
 * POST /publish. Socket.IO's own requests never reach them (the engine answers those first).
 */
const crypto = require('node:crypto');
const ipc = require('./ipc');
const { validRoom } = require('./protocol');

const MAX_BODY = 1024 * 1024;

/**
 * The token of an `Authorization: Bearer <token>` header.
 * @param {string | undefined} header
 */
function bearerOf(header) {
  const m = /^Bearer\s+(.+)$/i.exec(header || '');
  return m ? String(m[1]) : '';
}

/**
 * Constant-time comparison, so a wrong token's timing tells nothing.
 * @param {string} given @param {string} expected
 */
function tokenMatches(given, expected) {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 * @param {Record<string, string>} [headers]
 */
function json(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/**
 * @param {import('node:http').IncomingMessage} req
 * @returns {Promise<string>}
 */
function readBody(req) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    req.on('data', (/** @type {Buffer} */ c) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * @typedef {object} RouteDeps
 * @property {import('./config').TargetConfig} cfg
 * @property {import('./metrics').WorkerMetrics} metrics
 * @property {() => boolean} cookie503                     whether this /set-cookie gets the injected 503
 * @property {import('./adapter').RoomCounter} counter
 * @property {(room: string, payload: unknown) => void} publish
 */

/**
 * @param {RouteDeps} deps
 * @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res
 */
function setCookie({ cfg, metrics, cookie503 }, req, res) {
  if (cfg.authToken && !tokenMatches(bearerOf(req.headers.authorization), cfg.authToken)) {
    json(res, 401, { ok: false, error: 'unauthorized' });
    return;
  }
  // The rig's preflight probe (header x-rig-preflight) is exempt from faults and from the ground-truth
  // counters: the figures a test compares with describe the load only.
  const probe = req.headers['x-rig-preflight'] === '1';
  if (!probe && cookie503()) {
    metrics.cookie503++;
    json(res, 503, { ok: false, error: 'fault injection: FAULT_COOKIE_503_FRACTION' }, { 'retry-after': '1' });
    return;
  }
  if (!probe) metrics.cookiesIssued++;
  const sid = crypto.randomBytes(16).toString('hex');
  json(res, 200, { ok: true, sid }, { 'set-cookie': `sid=${sid}; Path=/; HttpOnly` });
}

/** @param {RouteDeps} deps @param {import('node:http').ServerResponse} res */
function clusterMetrics({ counter }, res) {
  Promise.all([ipc.request({ t: 'metrics' }), counter.roomCount()]).then(
    ([reply, rooms]) => json(res, 200, { ...reply.metrics, rooms }),
    (err) => json(res, 500, { ok: false, error: String(err && err.message) }),
  );
}

/**
 * @param {RouteDeps} deps
 * @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res
 */
function publishRoute({ publish }, req, res) {
  readBody(req).then(
    (text) => {
      /** @type {any} */
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        json(res, 400, { ok: false, error: 'body must be JSON: { "room": string, "payload": any }' });
        return;
      }
      if (!body || typeof body !== 'object' || !validRoom(body.room) || !('payload' in body)) {
        json(res, 400, { ok: false, error: 'body must be { "room": non-empty string, "payload": any }' });
        return;
      }
      publish(body.room, body.payload);
      json(res, 200, { ok: true });
    },
    (err) => json(res, 413, { ok: false, error: String(err.message) }),
  );
}

/**
 * The worker's request listener.
 * @param {RouteDeps} deps
 * @returns {import('node:http').RequestListener}
 */
function createRequestHandler(deps) {
  return (req, res) => {
    const url = req.url || '/';
    const q = url.indexOf('?');
    const path = q >= 0 ? url.slice(0, q) : url;
    const method = req.method || 'GET';
    if (method === 'GET' && path === '/set-cookie') setCookie(deps, req, res);
    else if (method === 'GET' && path === '/time') json(res, 200, { now: Date.now() });
    else if (method === 'GET' && path === '/healthz') json(res, 200, { ok: true });
    else if (method === 'GET' && path === '/metrics') clusterMetrics(deps, res);
    else if (method === 'POST' && path === '/publish') publishRoute(deps, req, res);
    else json(res, 404, { ok: false, error: `no route ${method} ${path}` });
  };
}

module.exports = { createRequestHandler, tokenMatches };
