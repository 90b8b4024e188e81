// @ts-check
'use strict';
/**
 * The Twine connect flow (seeds 000/001) as Artillery processor functions, so both steps run in
 * ONE vuser, in sequence: Artillery's built-in socketio engine would connect before the first step
 * and could not fetch the cookie first.
 *
 *   fetchCookie  GET /set-cookie, retried up to 3 times (exponential backoff with full jitter) on a
 *                network error or a 5xx           → cookie.ok | cookie.retry (+ cookie.retry_reason.<http_503|ECONNRESET…>) | cookie.failed
 *   openSocket   Socket.IO over websocket carrying the cookie, namespace /, at the target's path prefix + socketPath
 *                                                  → ws.connected | ws.connect_failed (+ ws.connect_failed_reason.<ECONNREFUSED|EMFILE|unauthorized…>), ws.connect_time (ms)
 *   (think)      hold for {{ hold }} seconds;      a loss during the hold → ws.dropped
 *   closeSocket  clean disconnect
 *
 * A vuser fails (vusers.failed) when it never gets a cookie or never connects.
 * Connections leave from RIG_SOURCE_ADDRESS when the rig sets it (a loopback alias per load process
 * locally, a secondary private IP on AWS), so generators never share an ephemeral port range.
 */
const http = require('node:http');
const https = require('node:https');
const { io } = require('socket.io-client');
const { parseSourceAddresses } = require('../lib/source-addresses');
const { boundAgent, createPortPool, ephemeralRange } = require('../lib/bound-ports');
const { requestWithin } = require('../lib/http-deadline');

const MAX_RETRIES = 3;
const BASE_BACKOFF_MS = 200;
/** How long one cookie request may take, its headers all in (lib/http-deadline.js). */
const REQUEST_TIMEOUT_MS = 10_000;
/** How much of a cookie answer's body is drained (never read) before the connection is cut instead. */
const COOKIE_BODY_DRAIN_BYTES = 64 * 1024;
const CONNECT_TIMEOUT_MS = 20_000;

/**
 * The target's auth token, a secret: it comes from the environment (locally the user's shell; on AWS the agent
 * reads it from SSM Parameter Store SecureString) and is never put in a script, a variable or the run folder.
 */
const AUTH_TOKEN = process.env.RIG_SECRET_AUTH_TOKEN || '';
/**
 * Where connections leave from; read once at load (process edge), none = the OS's choice. A list (an AWS
 * generator with more private IPs than load processes) is used round-robin, one address per vuser.
 */
const SOURCE_ADDRESSES = parseSourceAddresses(process.env.RIG_SOURCE_ADDRESS);
let nextSource = 0;
/** @returns {string | undefined} */
function pickSourceAddress() {
  if (SOURCE_ADDRESSES.length <= 1) return SOURCE_ADDRESSES[0];
  const address = SOURCE_ADDRESSES[nextSource];
  nextSource = (nextSource + 1) % SOURCE_ADDRESSES.length;
  return address;
}

/**
 * One agent per process, without keep-alive: every cookie request still opens its own connection and sends
 * `Connection: close` (as `agent: false` did), but no Agent is built and thrown away per request.
 */
const HTTP_AGENT = new http.Agent({ keepAlive: false });
const HTTPS_AGENT = new https.Agent({ keepAlive: false });
/**
 * Connections from a source address name their port (lib/bound-ports.js): `localAddress` alone makes the
 * kernel search for a free port at bind time, which costs milliseconds per connect at tens of thousands held.
 */
const PORTS = createPortPool(ephemeralRange());
/**
 * One bound agent per source address, for http and for https. Looked up twice per vuser: keyed by the address
 * string itself (its hash is computed once), not by a string built per lookup (~3 µs a call in a load thread's profile).
 * @type {{ http: Map<string, http.Agent>, https: Map<string, http.Agent> }}
 */
const BOUND_AGENTS = { http: new Map(), https: new Map() };

/**
 * The agent for connections leaving from `localAddress` (the process's shared agent when none is set).
 * @param {string | undefined} localAddress
 * @param {boolean} tls
 * @returns {http.Agent}
 */
function agentFor(localAddress, tls) {
  if (!localAddress) return tls ? HTTPS_AGENT : HTTP_AGENT;
  const agents = tls ? BOUND_AGENTS.https : BOUND_AGENTS.http;
  let agent = agents.get(localAddress);
  if (!agent) agents.set(localAddress, (agent = boundAgent(PORTS, localAddress, tls)));
  return agent;
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Full-jitter exponential backoff: uniform in [0, base * 2^attempt).
 * @param {number} attempt
 */
function backoffMs(attempt) {
  return Math.floor(Math.random() * BASE_BACKOFF_MS * 2 ** attempt);
}

/** @param {any} context */
function targetOf(context) {
  const t = String(context.vars.target);
  return t.endsWith('/') ? t.replace(/\/+$/, '') : t;
}

/**
 * Where the Socket.IO connection goes: the target's origin, namespace `/`, at the target's path prefix + `socketPath`
 * (both appended as text, as `/set-cookie` is: docs/scenarios.md). Before, `io(target)` read a prefix as a
 * namespace (`http://host/base` asked for `/base`: every vuser failed, "Invalid namespace").
 * @param {any} context
 */
function socketTarget(context) {
  const url = new URL(targetOf(context));
  return { origin: url.origin, path: `${url.pathname.replace(/\/+$/, '')}${context.vars.socketPath || '/socket.io'}` };
}

/**
 * The reason a connect failed, as a counter suffix: the network error's code (ECONNREFUSED is the target's,
 * EMFILE or EADDRNOTAVAIL this generator's own, which the rig's verdict counts as such), else the message the
 * server or the transport gave (`unauthorized`, `Invalid_namespace`, `timeout`, `websocket_error`).
 * @param {any} err
 * @returns {string | undefined}
 */
function connectFailedReason(err) {
  const cause = err?.description?.error?.code;
  if (typeof cause === 'string' && /^E[A-Z]+$/.test(cause)) return cause;
  const slug = String(err?.message || '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 40);
  return slug || undefined;
}

/** The vuser's source address, chosen once so its cookie request and its socket leave from the same one. @param {any} context */
function sourceOf(context) {
  if (context.rigSource === undefined) context.rigSource = pickSourceAddress() || '';
  return context.rigSource || undefined;
}

/**
 * One GET; resolves with status and the `sid` cookie pair once the answer's headers are in (all a vuser needs of it),
 * rejects on a network error, or with ETIMEDOUT when its headers are not all in within `deadlineMs` of the call, the
 * connect included (lib/http-deadline.js: a socket timeout, which every chunk restarted, let a target trickling its
 * answer hold the vuser for ever). The body is not read, only drained, and within the same deadline: a short one ends
 * at once, as before (with `Connection: close` the target closes first, and its side keeps the TIME_WAIT, not the
 * generator's named ports); one still coming then, or longer than {@link COOKIE_BODY_DRAIN_BYTES}, is cut off.
 * @param {string} url
 * @param {string | undefined} localAddress
 * @param {number} [deadlineMs]
 * @returns {Promise<{ status: number, cookie: string | undefined }>}
 */
function getCookieOnce(url, localAddress, deadlineMs = REQUEST_TIMEOUT_MS) {
  const tls = url.startsWith('https:');
  const client = tls ? https : http;
  const headers = AUTH_TOKEN ? { authorization: `Bearer ${AUTH_TOKEN}` } : undefined;
  return requestWithin(
    deadlineMs,
    // `timeout` still bounds the connect of a source address's agent (lib/bound-ports.js), which a destroy() made
    // before the socket comes does not stop; the deadline settles the vuser either way.
    (onResponse) => client.get(url, { headers, agent: agentFor(localAddress, tls), timeout: deadlineMs }, onResponse),
    (res, done) => {
      const setCookie = res.headers['set-cookie'] || [];
      const sid = setCookie.map((c) => c.split(';')[0]).find((c) => c && c.startsWith('sid='));
      let drained = 0;
      res.on('data', (/** @type {Buffer} */ chunk) => {
        if ((drained += chunk.length) > COOKIE_BODY_DRAIN_BYTES) res.destroy();
      });
      done({ status: res.statusCode || 0, cookie: sid });
    },
  );
}

/**
 * Artillery's processor function (async: Artillery hands a plain function a callback and waits for it).
 * @param {any} context @param {import('node:events').EventEmitter} events
 */
async function fetchCookie(context, events) {
  return fetchCookieWithin(context, events, REQUEST_TIMEOUT_MS);
}

/**
 * fetchCookie with each request's deadline given (a test's short one).
 * @param {any} context @param {import('node:events').EventEmitter} events @param {number} deadlineMs
 */
async function fetchCookieWithin(context, events, deadlineMs) {
  const url = `${targetOf(context)}/set-cookie`;
  for (let attempt = 0; ; attempt++) {
    /** what the retry is for: `http_<status>` or the network error's code */
    let cause;
    try {
      const { status, cookie } = await getCookieOnce(url, sourceOf(context), deadlineMs);
      if (status === 200 && cookie) {
        context.vars.cookie = cookie;
        events.emit('counter', 'cookie.ok', 1);
        return;
      }
      cause = `http_${status}`;
      if (status < 500) {
        events.emit('counter', 'cookie.failed', 1);
        throw Object.assign(new Error(`set-cookie answered ${status}`), { code: `COOKIE_HTTP_${status}` });
      }
    } catch (err) {
      if (/** @type {any} */ (err).code && String(/** @type {any} */ (err).code).startsWith('COOKIE_HTTP_')) throw err;
      cause = String(/** @type {any} */ (err).code || 'network');
    }
    if (attempt >= MAX_RETRIES) {
      events.emit('counter', 'cookie.failed', 1);
      throw Object.assign(new Error('set-cookie failed after retries'), { code: 'COOKIE_FAILED' });
    }
    events.emit('counter', 'cookie.retry', 1);
    // The status (or network error) behind each retry: the report names what the target answered.
    events.emit('counter', `cookie.retry_reason.${cause}`, 1);
    await sleep(backoffMs(attempt));
  }
}

/** @param {any} context @param {import('node:events').EventEmitter} events */
async function openSocket(context, events) {
  return openSocketWithin(context, events, CONNECT_TIMEOUT_MS);
}

/**
 * {@link openSocket} with its deadline: socket.io-client's `timeout` bounds only the Engine.IO session's opening, so a
 * target that opened the session and then never answered the Socket.IO CONNECT (or closed the session before it
 * answered: a 'disconnect' with no 'connect_error') held the vuser for ever. The whole connect is bounded here.
 * @param {any} context @param {import('node:events').EventEmitter} events @param {number} timeoutMs
 */
async function openSocketWithin(context, events, timeoutMs) {
  const startedAt = Date.now();
  const localAddress = sourceOf(context);
  const { origin, path } = socketTarget(context);
  const socket = io(origin, {
    path,
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    timeout: timeoutMs,
    extraHeaders: context.vars.cookie ? { cookie: context.vars.cookie } : {},
    ...(AUTH_TOKEN ? { auth: { token: AUTH_TOKEN } } : {}),
    // engine.io-client hands the agent to `ws`: the upgrade leaves from the source address on a named port.
    ...(localAddress ? { agent: /** @type {any} */ (agentFor(localAddress, origin.startsWith('https:'))) } : {}),
  });
  // Listening for a drop from the CONNECT's answer on: a DISCONNECT that came in the same read as it is emitted before
  // this function resumes after the wait, and a listener added then missed it (a target dropping every connection at
  // once read as 0 dropped, each vuser holding a dead socket).
  const state = { socket, closing: false, dropped: false, connected: false };
  socket.on('disconnect', (reason) => {
    if (!state.connected || state.closing || state.dropped) return;
    state.dropped = true;
    events.emit('counter', 'ws.dropped', 1);
    events.emit('counter', `ws.dropped.${String(reason).replace(/\s+/g, '_')}`, 1);
  });
  try {
    await new Promise((resolve, reject) => {
      const settle = (/** @type {Error | undefined} */ err) => {
        clearTimeout(timer);
        socket.off('connect', onConnect).off('connect_error', settle).off('disconnect', onDisconnect);
        if (err) reject(err);
        else resolve(undefined);
      };
      const onConnect = () => {
        state.connected = true;
        settle(undefined);
      };
      // Closed before the CONNECT was answered: the reason ('transport close', 'io server disconnect') is the failure.
      const onDisconnect = (/** @type {string} */ reason) => settle(new Error(String(reason)));
      const timer = setTimeout(() => settle(new Error('timeout')), timeoutMs);
      socket.once('connect', onConnect);
      socket.once('connect_error', settle);
      socket.once('disconnect', onDisconnect);
    });
  } catch (err) {
    socket.close();
    events.emit('counter', 'ws.connect_failed', 1);
    const reason = connectFailedReason(err);
    if (reason) events.emit('counter', `ws.connect_failed_reason.${reason}`, 1);
    const message = /** @type {Error} */ (err).message || 'connect_error';
    throw Object.assign(new Error(`socket.io connect failed: ${message}`), { code: `WS_CONNECT_FAILED` });
  }
  events.emit('counter', 'ws.connected', 1);
  events.emit('histogram', 'ws.connect_time', Date.now() - startedAt);
  context.rigSocket = state;
}

/** @param {any} context @param {import('node:events').EventEmitter} _events */
async function closeSocket(context, _events) {
  const state = context.rigSocket;
  if (!state) return;
  state.closing = true;
  state.socket.disconnect();
  delete context.rigSocket;
}

module.exports = { fetchCookie, fetchCookieWithin, openSocket, openSocketWithin, closeSocket, backoffMs, boundPorts: PORTS };
