// @ts-check
'use strict';
/**
 * The preflight probe's network steps (./preflight.js runs them in order): a TCP connect with TLS when the URL
 * asks for it, one HTTP request, the Socket.IO or WebSocket handshake, each bounded by a timeout, and the
 * one-line cause of a failed connect. Each takes an optional AbortSignal: once it aborts (the CLI's Ctrl-C during the
 * local preflight), the step closes what it opened and rejects at once with {@link abortError}, instead of running on
 * to its timeout with nobody listening.
 */
const http = require('node:http');
const https = require('node:https');
const net = require('node:net');
const tls = require('node:tls');

/**
 * Sent with the probe's request and handshake, so a target can tell the probe from the load: the reference
 * target exempts it from fault injection and from its ground-truth counters (docs/target.md).
 */
const PROBE_HEADER = 'x-rig-preflight';

/** Node's codes for a certificate it cannot verify (self-signed, a private CA, expired, another name). */
const UNTRUSTED_CERT = /SELF_SIGNED|UNABLE_TO_(VERIFY|GET)|CERT_(HAS_EXPIRED|NOT_YET_VALID|UNTRUSTED|REJECTED)|ALTNAME_INVALID/;
/**
 * What to do about it: your own script's TLS setting, as with Artillery (the probes honour it too); the built-in
 * scenarios refuse -k (their client checks the certificate), but Node trusts what NODE_EXTRA_CA_CERTS names.
 */
const UNTRUSTED_CERT_FIX = "the target's certificate is not trusted here; for your own script use -k (or set config.tls.rejectUnauthorized: false in it), as with artillery run; for the built-in scenarios, which check it, trust it with NODE_EXTRA_CA_CERTS=cert.pem (the self-signed certificate or your CA, PEM)";

/** What TLS to a plain-HTTP port fails with (OpenSSL reads the server's HTTP answer as a TLS record). */
const PLAIN_BEHIND_TLS = /EPROTO|WRONG_VERSION_NUMBER|wrong version number|packet length too long|http request/i;

/** The same words wherever a server accepts the connection and answers nothing: the target's failure (exit 3). @param {number} timeoutMs */
const noAnswer = (timeoutMs) => `accepted the connection but sent no HTTP answer within ${timeoutMs / 1000} s; check that an HTTP server listens there and is not stalled`;

/**
 * A wrong scheme, when the failure shows it: TLS to a plain-HTTP port (EPROTO, "wrong version number"), or, on
 * http:// or ws://, a failure without an HTTP answer where the same port completes a TLS handshake (one more
 * connection, made only after a failure). Undefined otherwise.
 * @param {unknown} err @param {URL} url @param {number} timeoutMs @param {string | undefined} localAddress
 * @param {AbortSignal} [signal] aborts the extra connection (then undefined)
 * @returns {Promise<string | undefined>}
 */
async function schemeMismatch(err, url, timeoutMs, localAddress, signal) {
  const ws = url.protocol === 'ws:' || url.protocol === 'wss:';
  if (url.protocol === 'https:' || url.protocol === 'wss:') {
    return PLAIN_BEHIND_TLS.test(`${errCode(err)} ${oneLine(err)}`) ? `the target speaks plain HTTP there: use ${ws ? 'ws://' : 'http://'}` : undefined;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  try {
    await connectOnce(host, Number(url.port || 80), host, true, Math.min(timeoutMs, 2000), localAddress, true, signal);
  } catch {
    return undefined;
  }
  return `the target speaks TLS there: use ${ws ? 'wss://' : 'https://'}`;
}

/**
 * The step, one-line cause and kind of a failed TCP/TLS connect: config when the URL or the trust settings are the
 * likely cause (a plain-HTTP port behind https://, an untrusted certificate).
 * @param {unknown} err @param {string} host @param {string} address @param {number} port @param {number} timeoutMs
 * @returns {{ step: 'tcp' | 'tls', message: string, config: boolean }}
 */
function connectFailure(err, host, address, port, timeoutMs) {
  const f = connectCause(err, host, address, port, timeoutMs);
  return { ...f, config: f.step === 'tls' && (UNTRUSTED_CERT.test(errCode(err)) || PLAIN_BEHIND_TLS.test(`${errCode(err)} ${oneLine(err)}`)) };
}

/**
 * @param {unknown} err @param {string} host @param {string} address @param {number} port @param {number} timeoutMs
 * @returns {{ step: 'tcp' | 'tls', message: string }}
 */
function connectCause(err, host, address, port, timeoutMs) {
  const code = errCode(err);
  if (/** @type {any} */ (err).tls) {
    const plain = PLAIN_BEHIND_TLS.test(`${code} ${oneLine(err)}`);
    const why = UNTRUSTED_CERT.test(code) ? UNTRUSTED_CERT_FIX : plain ? 'the target speaks plain HTTP there: use http:// (ws:// for a WebSocket)' : 'certificate, SNI name, or a plain-HTTP port behind an https:// URL';
    return { step: 'tls', message: `TLS to ${hostPort(host, port)} failed (${code}${plain ? '' : `: ${oneLine(err)}`}): ${why}` };
  }
  const at = `TCP connect to ${hostPort(address, port)}`;
  // What drops SYNs silently in a VPC: a security group (no matching rule), a network ACL, or a missing route.
  if (code === 'ETIMEDOUT') return { step: 'tcp', message: `${at} timed out after ${timeoutMs} ms: a security group, network ACL or route drops the traffic (an internet-facing load balancer that admits clients only by security group does exactly this)` };
  if (code === 'ECONNREFUSED') return { step: 'tcp', message: `${at} refused: nothing listens there (target stopped, or the wrong port in the URL)` };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return { step: 'tcp', message: `${at}: no route (${code}): check the subnet's route table and network ACL` };
  return { step: 'tcp', message: `${at} failed (${code}: ${oneLine(err)})` };
}

/** `host:port`, an IPv6 address in brackets (`[::1]:4116`). @param {string} host @param {number} port */
const hostPort = (host, port) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * @template T
 * @param {Promise<T>} p @param {number} ms @param {string} code
 * @returns {Promise<T>}
 */
function withTimeout(p, ms, code) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const t = new Promise((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`timed out after ${ms} ms`), { code })), ms);
  });
  return /** @type {Promise<T>} */ (Promise.race([p, t]).finally(() => clearTimeout(timer)));
}

/**
 * What an aborted step (and the probe) rejects with: an AbortError (name and code as Node's own aborted calls give
 * them), the signal's reason as its cause.
 * @param {AbortSignal | undefined} signal
 */
function abortError(signal) {
  return Object.assign(new Error('the preflight was aborted', { cause: signal?.reason }), { name: 'AbortError', code: 'ABORT_ERR' });
}

/**
 * Calls `stop` once when `signal` aborts (at once when it already has); returns the listener's removal, for a step
 * that settled first.
 * @param {AbortSignal | undefined} signal @param {() => void} stop
 * @returns {() => void}
 */
function whenAborted(signal, stop) {
  if (!signal) return () => undefined;
  if (signal.aborted) {
    stop();
    return () => undefined;
  }
  signal.addEventListener('abort', stop, { once: true });
  return () => signal.removeEventListener('abort', stop);
}

/**
 * `p`'s outcome, or {@link abortError} as soon as `signal` aborts: for work that has no way to be aborted itself (a
 * DNS lookup), which then ends on its own, unheard.
 * @template T
 * @param {Promise<T>} p @param {AbortSignal | undefined} signal
 * @returns {Promise<T>}
 */
function unlessAborted(p, signal) {
  if (!signal) return p;
  return new Promise((resolve, reject) => {
    const removed = whenAborted(signal, () => reject(abortError(signal)));
    p.then(
      (v) => {
        removed();
        resolve(v);
      },
      (err) => {
        removed();
        reject(err);
      },
    );
  });
}

/** @param {unknown} err */
function errCode(err) {
  return String(/** @type {any} */ (err)?.code ?? /** @type {any} */ (err)?.name ?? 'error');
}

/** @param {unknown} err */
function oneLine(err) {
  return String(/** @type {any} */ (err)?.message ?? err).split('\n')[0] ?? '';
}

/**
 * @param {string} address @param {number} port @param {string} servername @param {boolean} secure
 * @param {number} timeoutMs @param {string | undefined} localAddress
 * @param {boolean} [insecure] the script's config.tls.rejectUnauthorized is false: accept any certificate
 * @param {AbortSignal} [signal] closes the connection and rejects with {@link abortError}
 * @returns {Promise<void>}
 */
function connectOnce(address, port, servername, secure, timeoutMs, localAddress, insecure = false, signal = undefined) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const socket = net.connect({ host: address, port, ...(localAddress ? { localAddress } : {}) });
    /** @type {import('node:tls').TLSSocket | undefined} */
    let secured;
    /** @param {unknown} [err] */
    const settle = (err) => {
      clearTimeout(timer);
      removed();
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => {
      socket.destroy();
      settle(Object.assign(new Error(`no answer in ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    const removed = whenAborted(signal, () => {
      secured?.destroy();
      socket.destroy();
      settle(abortError(signal));
    });
    socket.once('error', (err) => settle(err));
    socket.once('connect', () => {
      if (!secure) {
        socket.end();
        return settle();
      }
      secured = tls.connect({ socket, servername: net.isIP(servername) ? undefined : servername, ...(insecure ? { rejectUnauthorized: false } : {}) });
      secured.once('secureConnect', () => {
        secured?.end();
        settle();
      });
      secured.once('error', (err) => {
        socket.destroy();
        settle(Object.assign(err, { tls: true }));
      });
    });
  });
}

/** How much of an answer's body the probe reads (what its callers read as `head`). */
const HEAD_CHARS = 200;

/**
 * One request, settled once the answer's status, headers and body's first 200 characters are in (or its whole body,
 * if shorter); the answer is then closed. The whole request, the connect included, is bounded by `timeoutMs`: one
 * that has its status by then settles with what it has (a stream whose first characters come slowly), one that has
 * none fails with ETIMEDOUT. It used to wait for the answer's end, with a socket timeout that every chunk reset: a
 * first step at a server-sent event stream kept the probe, and the run, waiting forever.
 * @param {string} method @param {URL} url @param {number} timeoutMs @param {string | undefined} localAddress
 * @param {string | undefined} authToken @param {boolean} [insecure] accept any certificate (config.tls.rejectUnauthorized: false)
 * @param {AbortSignal} [signal] destroys the request (its connection, and an answer being read) and rejects with
 *   {@link abortError}
 * @returns {Promise<{ status: number, cookie: string | undefined, head: string, type: string, location?: string }>} head: the body's first 200 characters
 */
function request(method, url, timeoutMs, localAddress, authToken, insecure = false, signal = undefined) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const client = url.protocol === 'https:' ? https : http;
    /** @type {(() => void) | undefined} settles with the answer read so far, once its headers are in */
    let answered;
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    /** @type {() => void} */
    let removed = () => undefined;
    /** @param {unknown} err */
    const fail = (err) => {
      clearTimeout(timer);
      removed();
      req?.destroy();
      reject(err);
    };
    /** @type {import('node:http').ClientRequest | undefined} */
    let req;
    try {
      req = makeRequest();
    } catch (err) {
      // Refused before any connection (a header value Node will not send, e.g. a token ending in a newline).
      reject(err);
      return;
    }
    timer = setTimeout(() => {
      if (answered) answered();
      else req?.destroy(Object.assign(new Error(`no answer in ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    removed = whenAborted(signal, () => fail(abortError(signal)));
    req.on('error', fail);
    req.end();

    function makeRequest() {
      return client.request(url, { method, agent: false, headers: { [PROBE_HEADER]: '1', ...(authToken ? { authorization: `Bearer ${authToken}` } : {}) }, ...(localAddress ? { localAddress } : {}), ...(insecure ? { rejectUnauthorized: false } : {}) }, (res) => {
        let head = '';
        const cookie = (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).filter(Boolean).join('; ') || undefined;
        const location = res.headers.location;
        answered = () => {
          clearTimeout(timer);
          removed();
          res.destroy();
          resolve({ status: res.statusCode ?? 0, cookie, head, type: String(res.headers['content-type'] ?? ''), ...(location ? { location } : {}) });
        };
        res.setEncoding('utf8');
        res.on('data', (/** @type {string} */ d) => {
          if (head.length < HEAD_CHARS) head += d.slice(0, HEAD_CHARS - head.length);
          if (head.length >= HEAD_CHARS) answered?.();
        });
        res.on('end', () => answered?.());
        // Cut off before its end (and before the characters the probe reads): an error, as a vuser's request gets.
        res.on('error', fail);
        res.on('close', () => {
          if (!res.complete) fail(Object.assign(new Error('the connection closed before the answer ended'), { code: 'ECONNRESET' }));
        });
      });
    }
  });
}

/**
 * @param {{ realtime?: 'socketio' | 'websocket', realtimePath?: string, realtimeAtOrigin?: boolean, realtimeOptions?: { headers?: Record<string, string>, query?: Record<string, string>, auth?: Record<string, unknown>, transports?: string[], subprotocols?: string[], url?: string } }} spec
 *   the probe's handshake (its ProbeSpec), with what the script's engine sends @param {URL} url @param {string | undefined} cookie @param {number} timeoutMs
 * @param {string | undefined} localAddress @param {string | undefined} authToken
 * @param {boolean} [insecure] accept any certificate (config.tls.rejectUnauthorized: false)
 * @param {AbortSignal} [signal] closes the client and every connection it opened, and rejects with {@link abortError}
 * @returns {Promise<void>}
 */
function handshake(spec, url, cookie, timeoutMs, localAddress, authToken, insecure = false, signal = undefined) {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const extra = spec.realtimeOptions ?? {};
  /** @type {Record<string, string>} */
  const headers = { ...(extra.headers ?? {}), [PROBE_HEADER]: '1', ...(cookie ? { cookie } : {}) };
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  const agentOpts = { ...(localAddress ? { localAddress } : {}), ...(insecure ? { rejectUnauthorized: false } : {}) };
  const tlsOpts = insecure ? { rejectUnauthorized: false } : {};
  if (spec.realtime === 'socketio') {
    // With a signal, an agent of its own, which an abort destroys: closing the client mid-handshake ends a WebSocket
    // transport's upgrade, but leaves a polling transport's request in flight (engine.io-client closes polling only
    // once it is open).
    const agent = localAddress || signal ? new (secure ? https : http).Agent(agentOpts) : undefined;
    return socketIoHandshake(spec, url, { headers, agent, tlsOpts, timeoutMs, authToken, signal });
  }
  const agent = localAddress ? new (secure ? https : http).Agent(agentOpts) : undefined;
  const WebSocket = require('ws');
  // The target as it is (credentials, path, query), as Artillery's ws engine opens it, unless a connect step names another.
  const wsUrl = new URL(extra.url ?? url.href.replace(/^http/, 'ws'));
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, extra.subprotocols ?? [], { headers, handshakeTimeout: timeoutMs, ...(agent ? { agent } : {}), ...tlsOpts });
    /** @type {() => void} */
    let removed = () => undefined;
    // `handshakeTimeout` is the upgrade request's socket timeout, which every chunk restarts: an answer whose headers
    // came a line at a time held the probe for ever. Bounded as a whole here, failing in ws's own words.
    const timer = setTimeout(() => {
      settle(new Error('Opening handshake has timed out'));
      ws.terminate();
    }, timeoutMs);
    /** @param {Error} [err] */
    const settle = (err) => {
      clearTimeout(timer);
      removed();
      if (err) reject(err);
      else resolve();
    };
    // terminate() during the upgrade destroys its request and connection (and fails the socket: 'error', heard below).
    removed = whenAborted(signal, () => {
      settle(abortError(signal));
      ws.terminate();
    });
    ws.once('open', () => {
      ws.close();
      settle();
    });
    ws.once('unexpected-response', (_req, res) => {
      // Named first: terminate() fails the socket with "closed before the connection was established", which hid the status.
      settle(new Error(`upgrade answered ${res.statusCode}`));
      ws.terminate();
    });
    ws.on('error', settle);
  });
}

/**
 * The Socket.IO handshake of {@link handshake}.
 * @param {Parameters<typeof handshake>[0]} spec @param {URL} url
 * @param {{ headers: Record<string, string>, agent: import('node:http').Agent | undefined, tlsOpts: { rejectUnauthorized?: boolean }, timeoutMs: number, authToken: string | undefined, signal: AbortSignal | undefined }} o
 * @returns {Promise<void>}
 */
function socketIoHandshake(spec, url, { headers, agent, tlsOpts, timeoutMs, authToken, signal }) {
  const extra = spec.realtimeOptions ?? {};
  const { io } = require('socket.io-client');
  // A user's script: the whole target, as Artillery's engine passes it (its path is the namespace, its query goes
  // with the handshake). The built-ins: the origin, their path prefix already in realtimePath (namespace /, connect.js).
  const base = spec.realtimeAtOrigin ? url.origin.replace(/^ws/, 'http') : url.href.replace(/^ws/, 'http');
  return new Promise((resolve, reject) => {
    const socket = io(base, {
      path: spec.realtimePath ?? '/socket.io',
      transports: extra.transports ?? ['websocket'],
      forceNew: true,
      reconnection: false,
      timeout: timeoutMs,
      extraHeaders: headers,
      ...(extra.query ? { query: extra.query } : {}),
      ...(authToken ? { auth: { ...(extra.auth ?? {}), token: authToken } } : extra.auth ? { auth: extra.auth } : {}),
      ...(agent ? { agent: /** @type {any} */ (agent) } : {}),
      ...tlsOpts,
    });
    /** @type {() => void} */
    let removed = () => undefined;
    // Settled once, by whichever comes first. A server that closes the session on Socket.IO's CONNECT packet (one
    // built with another parser, e.g. socket.io-msgpack-parser, cannot read it) gives neither 'connect' nor
    // 'connect_error', only the transport's close: without it the probe waited with nothing left to wait for, and
    // Node ended the run with exit 0.
    // The session opened and CONNECT went unanswered (a middleware that never calls next()): not "no answer".
    const timer = setTimeout(() => settle(new Error(socket.io.engine?.readyState === 'open' ? `${UNANSWERED_CONNECT} within ${(timeoutMs + 1000) / 1000} s` : 'timed out')), timeoutMs + 1000);
    let settled = false;
    /** @param {Error} [err] */
    const settle = (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      removed();
      socket.off('connect', onConnect).off('connect_error', onConnectError);
      socket.io.off('close', onClose);
      socket.close();
      if (err) reject(err);
      else resolve();
    };
    const onConnect = () => settle();
    // Socket.IO's own answer (a CONNECT_ERROR: a middleware's next(err), "Invalid namespace"): socket.io-client sets
    // its `data`. A transport's error, Engine.IO's "server error" (a polling body that is not Engine.IO's: a 2.x
    // server, a page) and the client's timeout have none.
    const onConnectError = (/** @type {Error} */ err) => settle(err && 'data' in err ? Object.assign(err, { serverAnswer: true }) : err);
    // The manager's close settles after the events of the same packet: a CONNECT_ERROR closes it ('forced close',
    // the client's own) just before 'connect_error', which then gives the answer. A DISCONNECT before the CONNECT
    // was answered closes it so too, with no 'connect_error' after it.
    const onClose = (/** @type {string} */ reason) =>
      setImmediate(() => settle(new Error(reason === 'forced close' ? ENDED_AT_CONNECT : `${CLOSED_AT_CONNECT} (${reason})`)));
    socket.once('connect', onConnect);
    socket.once('connect_error', onConnectError);
    socket.io.once('close', onClose);
    // Aborted: the client closed (its manager with it: forceNew) and every connection it opened destroyed.
    removed = whenAborted(signal, () => {
      settle(abortError(signal));
      agent?.destroy();
    });
  });
}

/**
 * Why a Socket.IO handshake over WebSocket failed, asked over plain HTTP: Engine.IO's long-polling handshake at the
 * same path. Socket.IO's own answer (`0{"sid":…`) means the server is there and the upgrade is what fails; a 404 or
 * any other answer means nothing speaks Socket.IO at that path. Undefined when the question gets no answer.
 * @param {URL} url the target @param {string} path Socket.IO's path @param {number} timeoutMs
 * @param {string | undefined} localAddress @param {boolean} insecure @param {AbortSignal} [signal] aborts the question (then undefined)
 * @returns {Promise<{ why: string, config: boolean, socketIo?: boolean } | undefined>} config: the target URL or path is the likely cause;
 *   socketIo: Socket.IO answered there
 */
async function socketIoDiagnosis(url, path, timeoutMs, localAddress, insecure, signal = undefined) {
  // The target's credentials and query go along, as with the handshake.
  const polling = new URL(url.href.replace(/^ws/, 'http'));
  polling.pathname = `${path.replace(/\/+$/, '')}/`;
  polling.search = `${url.search ? `${url.search}&` : '?'}EIO=4&transport=polling`;
  let res;
  try {
    res = await request('GET', polling, timeoutMs, localAddress, undefined, insecure, signal);
  } catch {
    return undefined;
  }
  if (res.status === 200 && /^0\{"sid"/.test(res.head)) {
    return { why: 'Socket.IO answers over HTTP long-polling at that path, so the WebSocket upgrade is what fails: a proxy or load balancer that drops upgrades, or a server that allows only polling', config: false, socketIo: true };
  }
  // Engine.IO 3 (Socket.IO 2.x) frames its polling packets with their length (`97:0{"sid"…`), and answers EIO=4 so too.
  if (res.status === 200 && /^\d+:0\{"sid"/.test(res.head)) {
    return { why: `Socket.IO 2.x answers at ${path}/ (Engine.IO 3's length-prefixed handshake "${res.head.split('{')[0]}{…"), and Artillery's Socket.IO client (4.x) cannot connect to it (plain artillery run fails every vuser alike): upgrade the server to Socket.IO 3 or later (allowEIO3: true keeps its 2.x clients)`, config: true };
  }
  if (res.status === 404) return { why: `nothing answers at ${path}/ (HTTP 404): the target is not a Socket.IO server, or it serves Socket.IO under another path (--var socketPath=/path)`, config: true };
  if (res.status >= 200 && res.status < 300) {
    const body = JSON.stringify(res.head.slice(0, 40));
    return { why: `${path}/ answered HTTP ${res.status}${res.type ? ` (${res.type.split(';')[0]})` : ''} ${body}, not Socket.IO's handshake: the target is not a Socket.IO server (the built-in scenarios need one), or the path is wrong`, config: true };
  }
  return undefined;
}

/**
 * How to make a polling-first script connect by websocket, said by the polling warnings (AWS, local) and the probe: a
 * scenario's own `socketio:` options are spread over `config.socketio` for every vuser (scripts/preflight.ts
 * socketioOptions), so a fix in config alone leaves the run polling when a scenario names its own transports.
 */
/** The handshake's error when the server closed the session before answering Socket.IO's CONNECT packet. */
const CLOSED_AT_CONNECT = 'the server closed the session before answering CONNECT';
/** ... when it ended the namespace's session (a DISCONNECT packet) instead of answering CONNECT. */
const ENDED_AT_CONNECT = 'the server sent DISCONNECT instead of answering CONNECT';
/** ... when the session opened and CONNECT got no answer at all. */
const UNANSWERED_CONNECT = 'the Engine.IO session opened, and CONNECT got no answer';
const POLLING_FIX = 'Set transports: ["websocket"] under config.socketio, and under every scenario\'s (and a before/after section\'s) own socketio: that names transports';

module.exports = { abortError, unlessAborted, CLOSED_AT_CONNECT, ENDED_AT_CONNECT, UNANSWERED_CONNECT, POLLING_FIX, socketIoDiagnosis, PROBE_HEADER, UNTRUSTED_CERT, UNTRUSTED_CERT_FIX, connectFailure, schemeMismatch, noAnswer, hostPort, withTimeout, errCode, oneLine, connectOnce, request, handshake };
