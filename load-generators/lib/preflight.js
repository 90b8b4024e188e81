// @ts-check
'use strict';
/**
 * The preflight probe: before a run spends anything, one client proves it reaches the target, step by step —
 * DNS, TCP connect, TLS (https/wss), the scenario's first HTTP step, and the Socket.IO or WebSocket handshake —
 * each with a short timeout. The first failing step is named with its likely cause.
 *
 * One code path: the CLI runs it in-process for local runs (scripts/preflight.ts), and on AWS the first ready
 * generator runs this file through SSM (`node preflight.js --store s3://… `), reading `preflight/spec.json` and
 * writing `preflight/result.json` in the run store, so the probe really leaves from inside the VPC.
 */
const dns = require('node:dns');
const http = require('node:http');
const https = require('node:https');
const net = require('node:net');
const tls = require('node:tls');

/**
 * @typedef {object} ProbeSpec
 * @property {string} target                     base URL (http, https, ws or wss)
 * @property {{ method: string, path: string }} [http]  the scenario's first HTTP step, when it has one
 * @property {'socketio' | 'websocket'} [realtime]       the handshake the scenario makes, when known
 * @property {string} [realtimePath]              Socket.IO path (default /socket.io) or WebSocket path
 * @property {number} [timeoutMs]                 per step (default 5000)
 * @property {boolean} [httpStatusAdvisory]      a user's own script: the HTTP step's status is reported, not judged
 */

/**
 * @typedef {object} ProbeFailure
 * @property {'dns' | 'tcp' | 'tls' | 'http' | 'handshake' | 'spec'} step
 * @property {string} message   one line: what failed and the likely cause
 * @property {boolean} config   true when the user's configuration is the likely cause (wrong name, path, auth)
 */

/**
 * @typedef {{ ok: true, steps: string[], ms: number } | ({ ok: false, steps: string[], ms: number } & ProbeFailure)} ProbeResult
 */

/** Retries of a 5xx on the HTTP step (a target warming up, or one that sheds a share of requests). */
const HTTP_ATTEMPTS = 3;
/**
 * Sent with the probe's request and handshake, so a target can tell the probe from the load: the reference
 * target exempts it from fault injection and from its ground-truth counters (docs/target.md).
 */
const PROBE_HEADER = 'x-rig-preflight';

/**
 * Runs the probe. Never throws: every failure comes back as a result naming its step.
 * @param {ProbeSpec} spec
 * @param {{ localAddress?: string, authToken?: string }} [opts] authToken: the scenario secret the built-in connect
 *   flow sends (RIG_SECRET_AUTH_TOKEN) as `Authorization: Bearer` and Socket.IO `auth.token`; never part of the spec,
 *   which the run store keeps
 * @returns {Promise<ProbeResult>}
 */
async function probe(spec, opts = {}) {
  const started = Date.now();
  /** @type {string[]} */
  const steps = [];
  const timeoutMs = spec.timeoutMs ?? 5000;
  const fail = (/** @type {ProbeFailure['step']} */ step, /** @type {string} */ message, config = false) =>
    /** @type {ProbeResult} */ ({ ok: false, steps, ms: Date.now() - started, step, message, config });

  /** @type {URL} */
  let url;
  try {
    url = new URL(spec.target);
  } catch {
    return fail('spec', `target ${JSON.stringify(spec.target)} is not a URL; pass --target http://host:port`, true);
  }
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) return fail('spec', `target ${spec.target}: unsupported scheme ${url.protocol} (http, https, ws, wss)`, true);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (secure ? 443 : 80));

  // DNS
  let address;
  try {
    const found = net.isIP(host) ? [{ address: host }] : await withTimeout(dns.promises.lookup(host, { all: true }), timeoutMs, 'ETIMEOUT');
    address = found[0]?.address;
    if (!address) throw Object.assign(new Error('no addresses'), { code: 'ENODATA' });
    steps.push(`dns ${host} → ${found.map((a) => a.address).join(', ')}`);
  } catch (err) {
    const code = errCode(err);
    return fail('dns', `DNS: ${host} does not resolve (${code}): check the target URL (a deleted stack leaves a stale URL behind; an internal load balancer's name resolves to private addresses only)`, code !== 'ETIMEOUT' && code !== 'EAI_AGAIN');
  }

  // TCP (and TLS)
  try {
    await connectOnce(address, port, host, secure, timeoutMs, opts.localAddress);
    steps.push(`tcp ${address}:${port}${secure ? ' + tls' : ''}`);
  } catch (err) {
    const f = connectFailure(err, host, address, port, timeoutMs);
    return fail(f.step, f.message);
  }

  // The scenario's first HTTP step; its cookies go with the handshake, as a vuser's would.
  let cookie;
  if (spec.http) {
    const httpUrl = new URL(spec.http.path, `${secure ? 'https' : 'http'}://${url.host}`);
    let res;
    for (let attempt = 1; ; attempt++) {
      try {
        res = await request(spec.http.method, httpUrl, timeoutMs, opts.localAddress, opts.authToken);
      } catch (err) {
        return fail('http', `HTTP ${spec.http.method} ${httpUrl.pathname} failed (${errCode(err)}: ${oneLine(err)})`);
      }
      if (res.status < 500 || attempt >= HTTP_ATTEMPTS) break;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
    if (res.status >= 400 && spec.httpStatusAdvisory) {
      // A user's own first step: its status is the target's answer, which the load test itself measures (a script
      // may expect a 404 or a 401). Reachability is what the probe proves; the status is reported, not judged.
      steps.push(`http ${spec.http.method} ${httpUrl.pathname} ${res.status} (your script's own step: not judged)`);
    } else if (res.status >= 400) {
      const why = res.status >= 500 ? 'the target (or the load balancer: 502/503 = no healthy target) failed it' : 'check the scenario\'s URL path and any auth it needs';
      return fail('http', `HTTP ${spec.http.method} ${httpUrl.pathname} answered ${res.status}: ${why}`, res.status < 500);
    } else {
      cookie = res.cookie;
      steps.push(`http ${spec.http.method} ${httpUrl.pathname} ${res.status}`);
    }
  }

  if (spec.realtime) {
    try {
      await handshake(spec, url, cookie, timeoutMs, opts.localAddress, opts.authToken);
      steps.push(`${spec.realtime} handshake`);
    } catch (err) {
      const proto = spec.realtime === 'socketio' ? 'Socket.IO' : 'WebSocket';
      return fail('handshake', `${proto} handshake with ${url.host}${spec.realtimePath ?? (spec.realtime === 'socketio' ? '/socket.io' : url.pathname)} failed (${oneLine(err)}): the target rejected the session, the path is wrong, or a proxy drops WebSocket upgrades`, /unauthori[sz]ed|40[134]/i.test(String(oneLine(err))));
    }
  }
  return { ok: true, steps, ms: Date.now() - started };
}

/**
 * The step and one-line cause of a failed TCP/TLS connect.
 * @param {unknown} err @param {string} host @param {string} address @param {number} port @param {number} timeoutMs
 * @returns {{ step: 'tcp' | 'tls', message: string }}
 */
function connectFailure(err, host, address, port, timeoutMs) {
  const code = errCode(err);
  if (/** @type {any} */ (err).tls) return { step: 'tls', message: `TLS to ${host}:${port} failed (${code}: ${oneLine(err)}): certificate, SNI name, or a plain-HTTP port behind an https:// URL` };
  const at = `TCP connect to ${address}:${port}`;
  // What drops SYNs silently in a VPC: a security group (no matching rule), a network ACL, or a missing route.
  if (code === 'ETIMEDOUT') return { step: 'tcp', message: `${at} timed out after ${timeoutMs} ms: a security group, network ACL or route drops the traffic (an internet-facing load balancer that admits clients only by security group does exactly this)` };
  if (code === 'ECONNREFUSED') return { step: 'tcp', message: `${at} refused: nothing listens there (target stopped, or the wrong port in the URL)` };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return { step: 'tcp', message: `${at}: no route (${code}): check the subnet's route table and network ACL` };
  return { step: 'tcp', message: `${at} failed (${code}: ${oneLine(err)})` };
}

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
 * @returns {Promise<void>}
 */
function connectOnce(address, port, servername, secure, timeoutMs, localAddress) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port, ...(localAddress ? { localAddress } : {}) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`no answer in ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.once('connect', () => {
      if (!secure) {
        clearTimeout(timer);
        socket.end();
        return resolve();
      }
      const secured = tls.connect({ socket, servername: net.isIP(servername) ? undefined : servername });
      secured.once('secureConnect', () => {
        clearTimeout(timer);
        secured.end();
        resolve();
      });
      secured.once('error', (err) => {
        clearTimeout(timer);
        socket.destroy();
        reject(Object.assign(err, { tls: true }));
      });
    });
  });
}

/**
 * @param {string} method @param {URL} url @param {number} timeoutMs @param {string | undefined} localAddress
 * @param {string | undefined} authToken
 * @returns {Promise<{ status: number, cookie: string | undefined }>}
 */
function request(method, url, timeoutMs, localAddress, authToken) {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, { method, timeout: timeoutMs, agent: false, headers: { [PROBE_HEADER]: '1', ...(authToken ? { authorization: `Bearer ${authToken}` } : {}) }, ...(localAddress ? { localAddress } : {}) }, (res) => {
      res.resume();
      const cookie = (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).filter(Boolean).join('; ') || undefined;
      res.on('end', () => resolve({ status: res.statusCode ?? 0, cookie }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer in ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end();
  });
}

/**
 * @param {ProbeSpec} spec @param {URL} url @param {string | undefined} cookie @param {number} timeoutMs
 * @param {string | undefined} localAddress @param {string | undefined} authToken
 * @returns {Promise<void>}
 */
function handshake(spec, url, cookie, timeoutMs, localAddress, authToken) {
  /** @type {Record<string, string>} */
  const headers = { [PROBE_HEADER]: '1', ...(cookie ? { cookie } : {}) };
  const agent = localAddress ? new (url.protocol === 'https:' || url.protocol === 'wss:' ? https : http).Agent({ localAddress }) : undefined;
  if (spec.realtime === 'socketio') {
    const { io } = require('socket.io-client');
    const base = `${url.protocol.replace(/^ws/, 'http')}//${url.host}`;
    return new Promise((resolve, reject) => {
      const socket = io(base, {
        path: spec.realtimePath ?? '/socket.io',
        transports: ['websocket'],
        forceNew: true,
        reconnection: false,
        timeout: timeoutMs,
        extraHeaders: headers,
        ...(authToken ? { auth: { token: authToken } } : {}),
        ...(agent ? { agent: /** @type {any} */ (agent) } : {}),
      });
      socket.once('connect', () => {
        socket.disconnect();
        resolve();
      });
      socket.once('connect_error', (/** @type {Error} */ err) => {
        socket.close();
        reject(err);
      });
    });
  }
  const WebSocket = require('ws');
  const wsUrl = new URL(spec.realtimePath ?? url.pathname, `${url.protocol.replace(/^http/, 'ws')}//${url.host}`);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, { headers, handshakeTimeout: timeoutMs, ...(agent ? { agent } : {}) });
    ws.once('open', () => {
      ws.close();
      resolve();
    });
    ws.once('unexpected-response', (_req, res) => {
      ws.terminate();
      reject(new Error(`upgrade answered ${res.statusCode}`));
    });
    ws.once('error', reject);
  });
}

/** Store keys of the probe's input and output. */
const { CONTROL } = require('./run-protocol');

const SPEC_KEY = CONTROL.preflightSpec;
const RESULT_KEY = CONTROL.preflightResult;

/**
 * CLI on a generator: `node preflight.js --store <s3://bucket/runs/id | folder>`: reads the spec from the run
 * store, probes, writes the result back; exit 0 when it ran (whatever the verdict), 3 when it could not.
 */
/** @param {string[]} argv */
async function main(argv) {
  const i = argv.indexOf('--store');
  const location = i >= 0 ? argv[i + 1] : undefined;
  if (!location) {
    process.stderr.write('usage: preflight.js --store <run store>\n');
    return 2;
  }
  const { openStore } = require('./run-store');
  const store = openStore(location);
  const text = await store.get(SPEC_KEY);
  if (!text) {
    process.stderr.write(`preflight: no ${SPEC_KEY} in ${store.location}\n`);
    return 3;
  }
  // The same scenario secrets the agent hands its load processes (a target that demands the token refuses a probe
  // without it); a path that cannot be read is the agent's to report, the probe then goes without.
  let authToken = process.env.RIG_SECRET_AUTH_TOKEN;
  if (!authToken && process.env.RIG_SECRETS_SSM_PATH) {
    const { loadSsmSecrets } = require('./secrets');
    authToken = await loadSsmSecrets(process.env.RIG_SECRETS_SSM_PATH).then((s) => s.env.RIG_SECRET_AUTH_TOKEN, () => undefined);
  }
  const result = await probe(JSON.parse(text), authToken ? { authToken } : {});
  await store.put(RESULT_KEY, JSON.stringify(result));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (err) => {
      process.stderr.write(`preflight: ${err && err.stack ? err.stack : err}\n`);
      process.exitCode = 3;
    },
  );
}

module.exports = { probe, connectFailure, SPEC_KEY, RESULT_KEY, PROBE_HEADER };
