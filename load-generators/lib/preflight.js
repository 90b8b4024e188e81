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
const net = require('node:net');
const { setTimeout: sleep } = require('node:timers/promises');
const { redactQuery } = require('./redact-query');
const { CLOSED_AT_CONNECT, ENDED_AT_CONNECT, UNANSWERED_CONNECT, POLLING_FIX, PROBE_HEADER, UNTRUSTED_CERT_FIX, abortError, unlessAborted, connectFailure, withTimeout, errCode, oneLine, connectOnce, request, handshake, socketIoDiagnosis, schemeMismatch, noAnswer, hostPort } = require('./probe-steps');

/**
 * @typedef {object} ProbeSpec
 * @property {string} target                     base URL (http, https, ws or wss)
 * @property {{ method: string, path: string }} [http]  the scenario's first HTTP step, when it has one
 * @property {'socketio' | 'websocket'} [realtime]       the handshake the scenario makes, when known
 * @property {string} [realtimePath]              Socket.IO path (default /socket.io); a WebSocket opens the target itself
 * @property {boolean} [realtimeAtOrigin]        the built-ins: Socket.IO at the target's origin (namespace /), its path prefix in realtimePath
 * @property {number} [timeoutMs]                 per step (default 5000)
 * @property {boolean} [httpStatusAdvisory]      a user's own script: the HTTP step's status is reported, not judged
 * @property {boolean} [insecureTls]             the script's config.tls.rejectUnauthorized is false: any certificate is accepted, as Artillery does
 * @property {string} [untrustedCertFix]         the fix an untrusted certificate's line names instead of -k (config.ws keeps the checks on: scripts/preflight.ts)
 * @property {{ headers?: Record<string, string>, query?: Record<string, string>, auth?: Record<string, unknown>, transports?: string[], subprotocols?: string[], url?: string }} [realtimeOptions]
 *   what the script's engine sends with its handshake (scripts/preflight.ts)
 * @property {string} [realtimeUnknown]           why the handshake is not probed (templated per vuser, a connect function)
 * @property {string} [connectUrlOfTarget]        a ws connect URL made from `{{ target }}` (for another region's target; not read here)
 * @property {string} [httpNotProbed]             the first HTTP step, when it is not probed (a user's POST, PUT, PATCH or DELETE)
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
 * @typedef {object} ProbeOptions
 * @property {string} [localAddress]
 * @property {string} [authToken] the scenario secret the built-in connect flow sends (RIG_SECRET_AUTH_TOKEN) as
 *   `Authorization: Bearer` and Socket.IO `auth.token`; never part of the spec, which the run store keeps
 * @property {AbortSignal} [signal] the CLI's Ctrl-C during the local preflight (the generator's own probe has none)
 */

/**
 * Runs the probe. Never throws but when aborted: every failure comes back as a result naming its step. Once `signal`
 * aborts, the step in progress closes what it opened and the probe rejects at once with an AbortError (probe-steps.js
 * abortError), nothing asked after it: no diagnosis, and no result for what had passed. Its `lookupInFlight` is true
 * when a DNS lookup was still running: Node cannot cancel one (getaddrinfo, in libuv's thread pool), and it keeps the
 * process alive until the system resolver answers or gives up.
 * @param {ProbeSpec} spec
 * @param {ProbeOptions} [opts]
 * @returns {Promise<ProbeResult>}
 */
async function probe(spec, opts = {}) {
  const { signal } = opts;
  const stopIfAborted = () => {
    if (signal?.aborted) throw abortError(signal);
  };
  stopIfAborted();
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
  let lookupInFlight = false;
  try {
    const found = net.isIP(host) ? [{ address: host }] : await withTimeout(unlessAborted(lookup(host, (running) => (lookupInFlight = running)), signal), timeoutMs, 'ETIMEOUT');
    address = found[0]?.address;
    if (!address) throw Object.assign(new Error('no addresses'), { code: 'ENODATA' });
    steps.push(`dns ${host} → ${found.map((a) => a.address).join(', ')}`);
  } catch (err) {
    if (signal?.aborted) throw Object.assign(abortError(signal), { lookupInFlight });
    const code = errCode(err);
    return fail('dns', `DNS: ${host} does not resolve (${code}): check the target URL (a deleted stack leaves a stale URL behind; an internal load balancer's name resolves to private addresses only)`, code !== 'ETIMEOUT' && code !== 'EAI_AGAIN');
  }

  // TCP (and TLS)
  try {
    await connectOnce(address, port, host, secure, timeoutMs, opts.localAddress, spec.insecureTls === true, signal);
    steps.push(`tcp ${hostPort(address, port)}${secure ? ' + tls' : ''}`);
  } catch (err) {
    stopIfAborted();
    const f = connectFailure(err, host, address, port, timeoutMs);
    return fail(f.step, spec.untrustedCertFix ? f.message.replace(UNTRUSTED_CERT_FIX, spec.untrustedCertFix) : f.message, f.config);
  }

  // The scenario's first HTTP step; its cookies go with the handshake, as a vuser's would.
  let cookie;
  if (spec.http) {
    const answer = await httpStep(spec, spec.http, timeoutMs, opts);
    stopIfAborted();
    if ('message' in answer) return fail('http', answer.message, answer.config);
    steps.push(answer.line);
    cookie = answer.cookie;
  }

  if (spec.httpNotProbed) steps.push(`http ${spec.httpNotProbed} not probed (sent only by the run, with its body and headers)`);

  if (spec.realtime && spec.realtimeUnknown) {
    steps.push(`${spec.realtime} handshake not probed (${spec.realtimeUnknown})`);
  } else if (spec.realtime) {
    try {
      await handshake(spec, url, cookie, timeoutMs, opts.localAddress, opts.authToken, spec.insecureTls === true, signal);
      steps.push(`${spec.realtime} handshake`);
    } catch (err) {
      stopIfAborted();
      const f = await handshakeFailure(spec, url, err, cookie, timeoutMs, opts.localAddress, signal);
      stopIfAborted();
      return fail('handshake', f.message, f.config);
    }
  }
  // An answer that came with the abort is not given: the run has stopped, and says so.
  stopIfAborted();
  return { ok: true, steps, ms: Date.now() - started };
}

/**
 * The addresses of `host` (every one), telling `running` when the lookup starts and ends: an abort does not end it.
 * @param {string} host @param {(running: boolean) => void} running
 */
function lookup(host, running) {
  running(true);
  const found = dns.promises.lookup(host, { all: true });
  found.then(() => running(false), () => running(false));
  return found;
}


/**
 * The URL of an HTTP step as the run requests it: a path starting with `/` is appended to the whole target as text
 * (Artillery's maybePrependBase, the built-in fetchCookie's `${target}/set-cookie`), so its credentials, path and
 * query all go with it (`http://u:p@host/?token=1` + `/` is `http://u:p@host/?token=1/`); any other is absolute.
 * @param {string} target @param {string} path
 */
function stepUrl(target, path) {
  const base = target.replace(/^ws(s?):/i, 'http$1:');
  if (!path.startsWith('/')) return new URL(path, base);
  // The built-in flow strips a trailing slash from a target without a query (targetOf); a user's http target has none.
  return new URL(`${base.includes('?') ? base : base.replace(/\/+$/, '')}${path}`);
}

/** A step's URL as the probe's lines show it: path, and the query's keys (its values may be secrets). @param {URL} u */
const shownPath = (u) => `${u.pathname}${redactQuery(u.search)}`;

/** What a 401/403 on the built-in cookie step asks for: the token they send. @param {string | undefined} token */
const authHint = (token) =>
  token
    ? 'the target refused the token in RIG_SECRET_AUTH_TOKEN (sent as Authorization: Bearer); check its value'
    : 'the target wants authentication: the built-in scenarios send RIG_SECRET_AUTH_TOKEN, when set, as Authorization: Bearer; export it (on AWS: /loadtest-rig/secrets/auth-token; docs/reliability.md, Secrets)';

/**
 * Why the handshake failed, in one line: no answer at all (the target's), a wrong scheme, a Socket.IO server behind
 * a ws-engine script, or Socket.IO's own answer over HTTP; config when the URL or the script is the likely cause.
 * @param {ProbeSpec} spec @param {URL} url @param {unknown} err @param {string | undefined} cookie @param {number} timeoutMs
 * @param {string | undefined} localAddress @param {AbortSignal} [signal] aborts the questions asked after the failure
 * @returns {Promise<{ message: string, config: boolean }>}
 */
async function handshakeFailure(spec, url, err, cookie, timeoutMs, localAddress, signal) {
  const sio = spec.realtime === 'socketio';
  const path = spec.realtimePath ?? (sio ? '/socket.io' : url.pathname);
  const head = `${sio ? 'Socket.IO' : 'WebSocket'} handshake with ${url.host}${path} failed (${oneLine(err)})`;
  const said = oneLine(err);
  const refused = /unauthori[sz]ed|40[134]/i.test(said);
  if (/timed out|^timeout$/i.test(said)) return { message: `${head}: the target ${noAnswer(timeoutMs)}`, config: false };
  // Engine.IO's session opened, then the server closed it on the CONNECT packet instead of answering it, or sent
  // packets the default parser cannot read ('parse error').
  if (said.includes(CLOSED_AT_CONNECT) && /transport close|parse error/.test(said)) {
    return {
      message: `${head}: the server opened the Engine.IO session and ${/parse error/.test(said) ? 'sent packets the default Socket.IO parser cannot read' : "closed it on Socket.IO's CONNECT packet without answering"}: most likely a server built with another parser (socket.io-msgpack-parser or a custom one), which cannot talk to the default parser of Artillery's Socket.IO engine (plain artillery run waits on every vuser forever), or a server or proxy that ends every new session; give the server the default parser, or connect with its parser from a processor function of your own`,
      config: true,
    };
  }
  if (said.includes(ENDED_AT_CONNECT)) {
    return { message: `${head}: the server disconnected the new socket instead of connecting it (its connection handler or middleware ends new sessions): check the auth, headers or query it expects`, config: true };
  }
  if (said.includes(UNANSWERED_CONNECT)) {
    return { message: `${head}: the target accepted the session but its Socket.IO server never answered the CONNECT packet (a middleware that never calls next(), or a server too busy to answer)`, config: false };
  }
  // Socket.IO's own answer to CONNECT (a CONNECT_ERROR): the server was reached over the transport.
  const answer = /** @type {{ serverAnswer?: boolean }} */ (err ?? {}).serverAnswer === true;
  if (answer && /^Invalid namespace$/.test(said)) {
    const namespace = spec.realtimeAtOrigin ? '/' : url.pathname;
    return { message: `${head}: the server has no Socket.IO namespace ${namespace}; Artillery's Socket.IO engine connects to the namespace the target URL's path names, so drop the path from the target (or name a namespace the server serves)`, config: true };
  }
  if (answer && !refused) {
    return { message: `${head}: the server's Socket.IO middleware refused the connection with "${said}": check the auth, headers or query it expects`, config: true };
  }
  const answered = refused || /answered \d{3}/.test(said);
  const scheme = answered ? undefined : await schemeMismatch(err, url, timeoutMs, localAddress, signal);
  if (scheme) return { message: `${head}: ${scheme}`, config: true };
  const insecure = spec.insecureTls === true;
  if (!sio && !answered) {
    // A ws-engine script at a Socket.IO server: its upgrade at the target's path is dropped; Socket.IO answers at its own.
    const known = await socketIoDiagnosis(url, '/socket.io', timeoutMs, localAddress, insecure, signal);
    if (known?.socketIo) return { message: `${head}: this looks like a Socket.IO server (it answers Engine.IO's handshake at /socket.io/): use engine: socketio in your script`, config: true };
  }
  // Socket.IO: asked again over plain HTTP, which names the cause instead of listing three.
  const known = sio && !refused ? await socketIoDiagnosis(url, path, timeoutMs, localAddress, insecure, signal) : undefined;
  // A script that polls first (its transports, or Socket.IO's default): Socket.IO answering a fresh poll means the
  // probe's own polling session broke between requests, not an upgrade.
  if (known?.socketIo && spec.realtimeOptions?.transports?.[0] === 'polling') {
    return {
      message: `${head}: Socket.IO answers over long-polling there, but the probe's polling session did not last from one request to the next, as a server of several processes or a load balancer without sticky sessions loses it (every vuser's would break too): make the target's sessions sticky, or ${POLLING_FIX.charAt(0).toLowerCase()}${POLLING_FIX.slice(1)}`,
      config: false,
    };
  }
  if (known) return { message: `${head}: ${known.why}`, config: known.config };
  // The reference target refuses a Socket.IO session without the sid cookie its GET /set-cookie hands out.
  const reference = sio && refused && !cookie && spec.httpStatusAdvisory
    ? ' (the rig\'s reference target answers "unauthorized" to a handshake without the sid cookie from GET /set-cookie: with --target reference, make that request your script\'s first step; docs/target.md, Protocol)'
    : '';
  return { message: `${head}: the target rejected the session, the path is wrong, or a proxy drops WebSocket upgrades${reference}`, config: refused };
}

/**
 * A redirect on the built-in cookie step: the flow needs a 200 there and follows no redirect (every vuser would
 * fail COOKIE_HTTP_3xx), so the line names where it points and the --target that goes there.
 * @param {{ method: string, path: string }} step @param {string} shown @param {URL} httpUrl @param {{ status: number, location?: string }} res
 */
function redirected(step, shown, httpUrl, res) {
  const to = res.location ? new URL(res.location, httpUrl) : undefined;
  const base = to && to.pathname.endsWith(step.path) ? `${to.origin}${to.pathname.slice(0, -step.path.length)}` : undefined;
  const fix = base !== undefined ? `pass --target ${base}` : `pass the URL it redirects to, without ${step.path}, as --target`;
  // The Location as origin + path (+ its query's keys): it is written into the probe's result, in S3 on AWS.
  return `HTTP ${step.method} ${shown} answered ${res.status}${to ? ` (Location: ${to.origin}${shownPath(to)})` : ''}: the built-in scenarios need 200 there and follow no redirect; ${fix}`;
}

/** The built-in scenarios' first request (load-generators/processors/connect.js fetchCookie). */
const BUILT_IN_COOKIE_PATH = '/set-cookie';
/** Said when a target without the reference target's protocol is given to a built-in scenario (the user wrote no path). */
const BUILT_IN_PROTOCOL_HINT =
  "the built-in scenarios speak the reference target's protocol (GET /set-cookie for a sid cookie, then Socket.IO carrying it: docs/target.md, Protocol), and this target has no /set-cookie; run your own Artillery script against it (--scenario my-test.yml), or a built-in against a target that speaks it";

/**
 * The scenario's first HTTP step (retried on a 5xx where its status is judged).
 * @param {ProbeSpec} spec @param {{ method: string, path: string }} step @param {number} timeoutMs
 * @param {ProbeOptions} opts
 * @returns {Promise<{ line: string, cookie?: string } | { message: string, config: boolean }>} once aborted, what it
 *   had (the probe does not read it)
 */
async function httpStep(spec, step, timeoutMs, opts) {
  const { signal } = opts;
  const httpUrl = stepUrl(spec.target, step.path);
  const shown = shownPath(httpUrl);
  let res;
  for (let attempt = 1; ; attempt++) {
    try {
      res = await request(step.method, httpUrl, timeoutMs, opts.localAddress, opts.authToken, spec.insecureTls === true, signal);
    } catch (err) {
      const head = `HTTP ${step.method} ${shown} failed (${errCode(err)}: ${oneLine(err)})`;
      if (errCode(err) === 'ETIMEDOUT') return { message: `${head}: the target ${noAnswer(timeoutMs)}`, config: false };
      // Aborted: nothing more is asked (the probe stops at its next check).
      if (signal?.aborted) return { message: head, config: false };
      const scheme = await schemeMismatch(err, new URL(spec.target), timeoutMs, opts.localAddress, signal);
      return scheme ? { message: `${head}: ${scheme}`, config: true } : { message: head, config: false };
    }
    // A 5xx is asked again only where it fails the probe: a user's own step is sent once (its status is not judged).
    if (res.status < 500 || spec.httpStatusAdvisory || attempt >= HTTP_ATTEMPTS) break;
    try {
      await sleep(100 * attempt, undefined, { signal });
    } catch {
      break; // aborted: the probe stops at its next check
    }
  }
  if (spec.httpStatusAdvisory) {
    // A user's own first step: its status is the target's answer, which the load test itself measures (a script
    // may expect a 404 or a 401). Reachability is what the probe proves; the status is reported, not judged.
    if (res.status >= 400) return { line: `http ${step.method} ${shown} ${res.status} (your script's own step: not judged)` };
    return { line: `http ${step.method} ${shown} ${res.status}`, ...(res.cookie ? { cookie: res.cookie } : {}) };
  }
  if (res.status >= 300 && res.status < 400) return { message: redirected(step, shown, httpUrl, res), config: true };
  if (res.status >= 400) {
    const why =
      res.status >= 500 ? 'the target (or the load balancer: 502/503 = no healthy target) failed it'
      : res.status === 401 || res.status === 403 ? authHint(opts.authToken)
      : spec.realtimeAtOrigin && res.status === 404 && step.path === BUILT_IN_COOKIE_PATH ? BUILT_IN_PROTOCOL_HINT
      : 'check the scenario\'s URL path and any auth it needs';
    return { message: `HTTP ${step.method} ${shown} answered ${res.status}: ${why}`, config: res.status < 500 };
  }
  return { line: `http ${step.method} ${shown} ${res.status}`, ...(res.cookie ? { cookie: res.cookie } : {}) };
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
  require('./run-entry').runEntry('preflight', () => main(process.argv.slice(2)), (/** @type {any} */ err) => {
    process.stderr.write(`preflight: ${err && err.stack ? err.stack : err}\n`);
    return 3;
  });
}

module.exports = { probe, connectFailure, SPEC_KEY, RESULT_KEY, PROBE_HEADER };
