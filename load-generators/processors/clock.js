// @ts-check
'use strict';
/**
 * Clock offset of this load process against the target, NTP-style, and the small helpers every
 * scenario processor shares (target URL, HTTP JSON calls from the rig's source address, the
 * one-per-run duty test, the test length read from the running script).
 *
 *   offset = serverNow − (t0 + t1) / 2  of the sample with the smallest round trip (t1 − t0)
 *
 * so that  serverTime ≈ localTime + offset. Measured once per load process (cached promise), emitted
 * once per process as histogram `clock.offset_ms` (and `clock.rtt_ms`), so report.json's byGenerator
 * shows each generator's offset. A target without `GET /time` gives offset 0 (`clock.unavailable`).
 */
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const { requestWithin, readText } = require('../lib/http-deadline');
const { parseSourceAddresses } = require('../lib/source-addresses');

/**
 * Where the clock samples and the publisher's requests leave from: the first of this load process's source
 * addresses (RIG_SOURCE_ADDRESS may list several on AWS; the vusers' own connections rotate over them in
 * connect.js), or the OS's choice.
 */
const SOURCE_ADDRESS = parseSourceAddresses(process.env.RIG_SOURCE_ADDRESS)[0];
const CLOCK_SAMPLES = 5;

/** Keep-alive agents for the publisher's POSTs (one connection reused, from the rig's source address). */
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 16 });

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @param {any} context */
function targetOf(context) {
  return String(context.vars.target).replace(/\/+$/, '');
}

/**
 * A scenario variable as a number, with a default (variables from `--var` arrive as strings or numbers).
 * @param {any} context @param {string} name @param {number} dflt
 */
function numVar(context, name, dflt) {
  const v = context && context.vars ? context.vars[name] : undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : dflt;
}

/** @param {any} context @param {string} name @param {string} dflt */
function strVar(context, name, dflt) {
  const v = context && context.vars ? context.vars[name] : undefined;
  return v === undefined || v === null || v === '' ? dflt : String(v);
}

/**
 * A switch variable: `true`/`1` on, `false`/`0` off (typed or as text: a `--var` arrives typed, a YAML default as
 * written), anything else the default (the rig refuses other values before the run: scripts/builtin-variables.ts).
 * @param {any} context @param {string} name @param {boolean} dflt
 */
function boolVar(context, name, dflt) {
  const v = context && context.vars ? context.vars[name] : undefined;
  if (v === true || v === 1 || v === 'true' || v === '1') return true;
  if (v === false || v === 0 || v === 'false' || v === '0') return false;
  return dflt;
}

/** How much of an answer requestJson reads (the reference target's /metrics is a few hundred bytes). */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * One HTTP request with an optional JSON body; resolves with status and parsed JSON (or undefined). The whole answer
 * must arrive within `timeoutMs`, the connect included, else it fails with ETIMEDOUT; with keepAlive the time runs
 * from when the request gets one of the agent's 16 sockets (a wait behind the process's own other requests, a
 * publisher's rooms over 16, is not the target's time) (lib/http-deadline.js: a socket timeout, which every chunk restarted, let
 * a target trickling its answer hold a clock sample, a presence monitor or a publisher tick for ever); a body longer
 * than `maxBytes` fails with EBODYTOOLARGE.
 * @param {string} method @param {string} url @param {unknown} [body]
 * @param {{ keepAlive?: boolean, timeoutMs?: number, maxBytes?: number }} [opts] timeoutMs: 10 s by default; maxBytes: 1 MiB
 * @returns {Promise<{ status: number, body: any }>}
 */
function requestJson(method, url, body, opts = {}) {
  const isHttps = url.startsWith('https:');
  const client = isHttps ? https : http;
  const text = body === undefined ? undefined : JSON.stringify(body);
  const options = {
    method,
    localAddress: SOURCE_ADDRESS,
    agent: opts.keepAlive ? (isHttps ? httpsAgent : httpAgent) : false,
    headers: text === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
  };
  return requestWithin(
    opts.timeoutMs ?? 10_000,
    (onResponse) => client.request(url, options, onResponse).end(text),
    (res, done, fail) =>
      readText(res, opts.maxBytes ?? MAX_ANSWER_BYTES, fail, (data) => {
        let parsed;
        try {
          parsed = data ? JSON.parse(data) : undefined;
        } catch {
          parsed = undefined;
        }
        done({ status: res.statusCode || 0, body: parsed });
      }),
    { fromSocket: Boolean(opts.keepAlive) },
  );
}

/** @type {Map<string, Promise<{ offsetMs: number, rttMs: number, ok: boolean }>>} */
const clocks = new Map();

/**
 * Measures (once per target and process) the offset of this process's clock against the target's.
 * @param {string} target
 */
function measureClock(target) {
  let p = clocks.get(target);
  if (!p) {
    p = (async () => {
      let best;
      for (let i = 0; i < CLOCK_SAMPLES; i++) {
        try {
          const t0 = Date.now();
          const { status, body } = await requestJson('GET', `${target}/time`, undefined, { keepAlive: true, timeoutMs: 5000 });
          const t1 = Date.now();
          const now = body && Number(body.now);
          if (status === 200 && Number.isFinite(now) && (!best || t1 - t0 < best.rttMs)) {
            best = { offsetMs: now - (t0 + t1) / 2, rttMs: t1 - t0, ok: true };
          }
        } catch {
          /* try the next sample */
        }
      }
      return best || { offsetMs: 0, rttMs: 0, ok: false };
    })();
    clocks.set(target, p);
  }
  return p;
}

let clockEmitted = false;

/**
 * Flow step: sets `context.vars.clockOffset` (ms, serverTime − localTime); the first vuser of the
 * process emits `clock.offset_ms` / `clock.rtt_ms` (or `clock.unavailable`).
 * @param {any} context @param {import('node:events').EventEmitter} events
 */
async function syncClock(context, events) {
  const c = await measureClock(targetOf(context));
  context.vars.clockOffset = c.offsetMs;
  if (!clockEmitted) {
    clockEmitted = true;
    if (c.ok) {
      events.emit('histogram', 'clock.offset_ms', c.offsetMs);
      events.emit('histogram', 'clock.rtt_ms', c.rttMs);
    } else {
      events.emit('counter', 'clock.unavailable', 1);
    }
  }
}

/** True in the one load process that runs one-per-run duties (generator 0, process 0, or a plain `artillery run`). */
function isDutyProcess() {
  const g = process.env.RIG_GENERATOR_INDEX;
  const k = process.env.RIG_PROCESS_INDEX;
  return (!g || g === '0') && (!k || k === '0');
}

/**
 * Seconds of the running script's phases, read from the script file Artillery runs (the rig's
 * per-generator script, or the user's .yml); undefined when it cannot be read.
 * @param {any} context
 * @returns {number | undefined}
 */
function phaseSeconds(context) {
  const file = context.vars.$scenarioFile;
  if (!file) return undefined;
  try {
    const text = fs.readFileSync(file, 'utf8');
    const yaml = require('js-yaml');
    const script = /** @type {any} */ (file.endsWith('.json') ? JSON.parse(text) : yaml.load(text));
    const phases = (script && script.config && script.config.phases) || [];
    return phases.reduce((/** @type {number} */ a, /** @type {any} */ p) => a + phaseFieldSeconds(p.duration ?? p.pause ?? 0), 0);
  } catch {
    return undefined;
  }
}

/**
 * A phase duration as the rig hands it to a load process (scripts/scenario.ts artilleryDuration): whole seconds
 * as a number, anything else as "<n>ms".
 * @param {unknown} v @returns {number}
 */
function phaseFieldSeconds(v) {
  const ms = typeof v === 'string' ? /^(\d+(?:\.\d+)?)ms$/.exec(v.trim()) : null;
  return ms ? Number(ms[1]) / 1000 : Number(v);
}

/** Epoch second now (for per-second counters that merge exactly across generators). */
const epochSecond = () => Math.floor(Date.now() / 1000);

module.exports = { syncClock, measureClock, requestJson, targetOf, numVar, strVar, boolVar, isDutyProcess, phaseSeconds, sleep, epochSecond };
