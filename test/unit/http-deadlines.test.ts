/**
 * Every HTTP request the load processes and the CLI make is bounded as a whole (load-generators/lib/http-deadline.js).
 * They were bounded by a socket timeout, which every received chunk restarts: a target answering its headers and then
 * trickling an endless body, or trickling its headers a line at a time, held a vuser's cookie request, a clock sample
 * or a publisher tick, the CLI's reachability check and the preflight's WebSocket handshake for ever.
 */
import { EventEmitter } from 'node:events';
import { checkReachable } from '../../scripts/adapters/reachability';
import { TargetFailure } from '../../scripts/errors';
import { loopbackHttpServer, tricklingAnswer, tricklingHeadersServer } from '../helpers/http-server';
import { settlesWithin, until } from '../helpers/wait';

import { probe } from '../../load-generators/lib/preflight';

type Connect = typeof import('../../load-generators/processors/connect');
type Clock = typeof import('../../load-generators/processors/clock');

/** A fresh processor module (it reads RIG_SOURCE_ADDRESS when loaded), leaving from `source` (none: the OS's choice). */
function load<T>(module: string, source?: string): T {
  const saved = process.env.RIG_SOURCE_ADDRESS;
  let loaded: T | undefined;
  try {
    if (source) process.env.RIG_SOURCE_ADDRESS = source;
    else delete process.env.RIG_SOURCE_ADDRESS;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require(module) as T;
    });
  } finally {
    if (saved === undefined) delete process.env.RIG_SOURCE_ADDRESS;
    else process.env.RIG_SOURCE_ADDRESS = saved;
  }
  return loaded as T;
}

function counting() {
  const events = new EventEmitter();
  const counters: Record<string, number> = {};
  events.on('counter', (name: string, v: number) => (counters[name] = (counters[name] ?? 0) + v));
  return { events, counters };
}

/** Both agents a cookie request may use: the process's shared one, and a source address's (named ports, lib/bound-ports.js). */
const AGENTS = [
  ['the OS-chosen source address', undefined],
  ['a source address (the rig\'s named-port agent)', '127.0.5.1'],
] as const;

describe("a vuser's cookie request (connect.js fetchCookie)", () => {
  test.each(AGENTS)('headers trickled for ever, from %s: each attempt fails at its deadline, counted as a timeout is (retried, then cookie.failed)', async (_what, source) => {
    const connect = load<Connect>('../../load-generators/processors/connect', source);
    const server = await tricklingHeadersServer();
    try {
      const { events, counters } = counting();
      const context = { vars: { target: `http://127.0.0.1:${server.port}` } };
      // Four attempts of 150 ms and at most 1.4 s of backoff; unbounded, the first attempt never ended.
      const err = await settlesWithin(connect.fetchCookieWithin(context, events, 150), 5000).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'COOKIE_FAILED' });
      expect(counters).toEqual({ 'cookie.retry': 3, 'cookie.retry_reason.ETIMEDOUT': 3, 'cookie.failed': 1 });
      expect(server.received()).toBe(4);
      await until(() => server.open() === 0, { what: 'the target saw every timed-out request closed' });
      if (source) await until(() => connect.boundPorts.held(source) === 0, { what: 'every named port given back' });
    } finally {
      await server.close();
    }
  });

  test.each(AGENTS)("headers then a body that never ends, from %s: the cookie is taken at the headers, and the body's connection cut at the deadline", async (_what, source) => {
    const connect = load<Connect>('../../load-generators/processors/connect', source);
    const trickle = tricklingAnswer({ 'set-cookie': 'sid=abc; Path=/; HttpOnly', 'content-type': 'text/plain' });
    const server = await loopbackHttpServer(trickle.handler);
    try {
      const { events, counters } = counting();
      const context: { vars: Record<string, unknown> } = { vars: { target: `http://127.0.0.1:${server.port}` } };
      await settlesWithin(connect.fetchCookieWithin(context, events, 300), 5000);
      expect(counters).toEqual({ 'cookie.ok': 1 });
      expect(context.vars.cookie).toBe('sid=abc');
      // Drained, never read, and not for ever: the deadline cuts what is left of the answer.
      await until(() => trickle.open() === 0, { timeoutMs: 3000, what: 'the target saw the endless answer closed' });
      if (source) await until(() => connect.boundPorts.held(source) === 0, { what: 'the named port given back' });
    } finally {
      await server.close();
    }
  });

  test('headers then a fast endless body: drained only up to its cap, the connection cut long before the deadline', async () => {
    const connect = load<Connect>('../../load-generators/processors/connect');
    let open = 0;
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const server = await loopbackHttpServer((_req, res) => {
      open++;
      res.writeHead(200, { 'set-cookie': 'sid=fast' });
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      res.on('close', () => open--);
      pump();
    });
    try {
      const { events, counters } = counting();
      const context: { vars: Record<string, unknown> } = { vars: { target: `http://127.0.0.1:${server.port}` } };
      await settlesWithin(connect.fetchCookieWithin(context, events, 60_000), 5000);
      expect(counters).toEqual({ 'cookie.ok': 1 });
      await until(() => open === 0, { what: 'the target saw the answer cut after the drain cap, not at the 60-s deadline' });
    } finally {
      await server.close();
    }
  });
});

describe('requestJson (clock.js: clock samples, the presence monitor, the publisher)', () => {
  test.each([false, true])('headers then a body that never ends (keepAlive %s): ETIMEDOUT at the deadline, named, and the connection closed', async (keepAlive) => {
    const clock = load<Clock>('../../load-generators/processors/clock');
    const trickle = tricklingAnswer({ 'content-type': 'application/json' });
    const server = await loopbackHttpServer(trickle.handler);
    try {
      const started = Date.now();
      const err = await settlesWithin(clock.requestJson('GET', `http://127.0.0.1:${server.port}/metrics`, undefined, { keepAlive, timeoutMs: 200 }), 5000).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'ETIMEDOUT', message: expect.stringContaining('within the 200 ms deadline') });
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      await until(() => trickle.open() === 0, { what: 'the target saw the request closed' });
    } finally {
      await server.close();
    }
  });

  test('headers trickled for ever (the POST of a publisher tick): ETIMEDOUT at the deadline', async () => {
    const clock = load<Clock>('../../load-generators/processors/clock');
    const server = await tricklingHeadersServer();
    try {
      const err = await settlesWithin(clock.requestJson('POST', `http://127.0.0.1:${server.port}/publish`, { room: 'r', payload: {} }, { keepAlive: true, timeoutMs: 200 }), 5000).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'ETIMEDOUT' });
      await until(() => server.open() === 0, { what: 'the target saw the request closed' });
    } finally {
      await server.close();
    }
  });

  test('a body larger than the cap: EBODYTOOLARGE, at once, not read whole', async () => {
    const clock = load<Clock>('../../load-generators/processors/clock');
    const server = await loopbackHttpServer((_req, res) => res.end(JSON.stringify({ filler: 'x'.repeat(5000) })));
    try {
      const err = await settlesWithin(clock.requestJson('GET', `http://127.0.0.1:${server.port}/metrics`, undefined, { maxBytes: 1000 }), 5000).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'EBODYTOOLARGE', message: expect.stringContaining('larger than 1000 bytes') });
      // Under the cap, the same answer parses as before.
      expect(await clock.requestJson('GET', `http://127.0.0.1:${server.port}/metrics`)).toMatchObject({ status: 200, body: { filler: expect.any(String) } });
    } finally {
      await server.close();
    }
  });
});

describe("the CLI's reachability check (scripts/adapters/reachability.ts)", () => {
  test('headers then a body that never ends: passes at the headers and closes the connection at once (was drained for ever)', async () => {
    const trickle = tricklingAnswer({ 'content-type': 'text/plain' });
    const server = await loopbackHttpServer(trickle.handler);
    try {
      await settlesWithin(checkReachable(`http://127.0.0.1:${server.port}`, 30_000), 5000);
      await until(() => trickle.open() === 0, { what: 'the target saw the check stop reading, well before its 30-s timeout' });
    } finally {
      await server.close();
    }
  });

  test("headers trickled for ever: the target's failure (no HTTP answer) at the timeout, not never", async () => {
    const server = await tricklingHeadersServer();
    try {
      const err = await settlesWithin(checkReachable(`http://127.0.0.1:${server.port}`, 300), 5000).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TargetFailure);
      expect((err as Error).message).toMatch(/accepted the connection but sent no HTTP answer within 0\.3 s/);
      await until(() => server.open() === 0, { what: 'the target saw the check give up' });
    } finally {
      await server.close();
    }
  });
});

describe("the preflight's WebSocket handshake (probe-steps.js)", () => {
  test('an upgrade answer whose headers trickle for ever: the handshake step fails at the step timeout, not never', async () => {
    const server = await tricklingHeadersServer();
    try {
      const result = await settlesWithin(probe({ target: `ws://127.0.0.1:${server.port}/feed`, realtime: 'websocket', timeoutMs: 300 }), 5000);
      expect(result).toMatchObject({ ok: false, step: 'handshake', message: expect.stringMatching(/^WebSocket handshake with 127\.0\.0\.1:\d+\/feed failed \(Opening handshake has timed out\): the target accepted the connection/) });
      await until(() => server.open() === 0, { what: 'the target saw the handshake given up' });
    } finally {
      await server.close();
    }
  });
});

// The publisher's POSTs share a keep-alive agent of 16 sockets: with more rooms than that, a POST waits for a socket
// behind the process's own others. That wait is not the target's (the review found it counted as a target timeout).
describe('requestWithin fromSocket: the deadline runs from the socket, not from a wait in the own pool', () => {
  test("a request queued behind a slow one in a one-socket pool gets its whole deadline once it has the socket; from the call it would time out", async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { requestWithin } = require('../../load-generators/lib/http-deadline') as typeof import('../../load-generators/lib/http-deadline');
    const http = await import('node:http');
    const server = await loopbackHttpServer((req, res) => {
      if (req.url === '/slow') setTimeout(() => res.end('slow'), 400);
      else res.end('fast');
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (p: string, deadlineMs: number, fromSocket: boolean) =>
      requestWithin<string>(deadlineMs, (onResponse) => http.get(`http://127.0.0.1:${server.port}${p}`, { agent }, onResponse), (res, done) => {
        res.resume();
        res.on('end', () => done(String(res.statusCode)));
      }, { fromSocket });
    try {
      const slow = get('/slow', 5000, false);
      // Queued behind /slow for ~400 ms; 250 ms to answer once it has the socket.
      await expect(settlesWithin(get('/fast', 250, true), 5000)).resolves.toBe('200');
      await slow;
      const slowAgain = get('/slow', 5000, false);
      await expect(settlesWithin(get('/fast', 250, false), 5000)).rejects.toMatchObject({ code: 'ETIMEDOUT' });
      await slowAgain;
    } finally {
      agent.destroy();
      await server.close();
    }
  });
});
