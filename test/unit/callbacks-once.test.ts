/**
 * Artillery 2.0.34's ws and socketio engines call some callbacks twice when a target closes, breaks or drops a
 * connection, and async's waterfall then throws `Callback was already called.` where nothing catches it: the load
 * thread dies (plain `artillery run` exits 11). The real engines, loaded as the rig's plugin loads them, each case in a
 * child process (ES modules, required as Node ≥ 22 allows; an uncaught throw ends only that process), unwrapped
 * first (the crash the wrappers exist for), then wrapped (callbacks-once.js).
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';

const MODULE = path.resolve(__dirname, '../../load-generators/plugins/artillery-plugin-rig/callbacks-once.js');
const ROOT = path.resolve(__dirname, '../..');

interface Outcome {
  readonly code: number | null;
  readonly out: any;
  readonly stderr: string;
}

/** Runs `body` after loading the engines (`engines`, wrapped first when `wrapped`); `done(x)` prints x as JSON and exits 0. */
function run(body: string, wrapped: boolean): Promise<Outcome> {
  const code = `
    const { EventEmitter } = require('node:events');
    const m = require(${JSON.stringify(MODULE)});
    const engines = m.loadEngines();
    if (${wrapped}) m.callbacksOnce(engines);
    const ee = new EventEmitter();
    const errors = [];
    ee.on('error', (e) => errors.push(String(e)));
    const done = (x) => { process.stdout.write(JSON.stringify(x)); process.exit(0); };
    ${body}
  `;
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', code], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, out: stdout ? JSON.parse(stdout) : undefined, stderr });
    });
  });
}

/** One send-with-match step of the real WSEngine on a fake connection; the step's callback calls once it settled. */
const wsStep = (fakeSocket: string, timeout: number) => `
  const engine = new engines.ws.default({ config: { timeout: ${timeout} } });
  const step = engine.step({ send: { payload: 'ping', match: { json: '$.ok', value: true } } }, ee);
  const calls = [];
  const ws = ${fakeSocket};
  step({ ws, vars: {} }, (err) => calls.push(err ? String(err.message || err) : 'ok'));
`;

describe("Artillery's ws engine: a send-with-match step calls back once", () => {
  // The send fails on a connection the target closed; one second later the step's timer calls back again.
  const closed = wsStep("{ send(p, cb) { setImmediate(() => cb(new Error('WebSocket is not open: readyState 3 (CLOSED)'))); } }", 0.05);
  const afterTimer = "ee.on('error', (e) => { if (e === 'response timeout') setImmediate(() => done({ calls, errors })); });";

  test('unwrapped, a failed send and then its timer call back twice: the crash', async () => {
    expect((await run(closed + afterTimer, false)).out.calls).toEqual(['WebSocket is not open: readyState 3 (CLOSED)', 'response timeout']);
  }, 30_000);

  test('wrapped, the vuser ends on the send error; the timer still counts its own', async () => {
    expect((await run(closed + afterTimer, true)).out).toEqual({
      calls: ['WebSocket is not open: readyState 3 (CLOSED)'],
      errors: ['Error: WebSocket is not open: readyState 3 (CLOSED)', 'response timeout'],
    });
  }, 30_000);

  // The answer matched, then a second message comes (the vuser is in a later step, onmessage still this one's).
  const twoAnswers = wsStep(
    "{ send(p, cb) { cb(); setImmediate(() => { this.onmessage({ data: '{\"ok\":true}' }); setImmediate(() => { this.onmessage({ data: '{\"ok\":true}' }); setImmediate(() => done({ calls, errors })); }); }); } }",
    5,
  );
  test('a second message to a matched step: unwrapped it calls back twice, wrapped once', async () => {
    expect((await run(twoAnswers, false)).out.calls).toEqual(['ok', 'ok']);
    expect((await run(twoAnswers, true)).out).toEqual({ calls: ['ok'], errors: [] });
  }, 30_000);

  test('a loop of steps still runs every iteration (a new callback per call), and the loop calls back once', async () => {
    const loop = `
      const engine = new engines.ws.default({ config: {} });
      const step = engine.step({ loop: [{ send: 'x' }], count: 3 }, ee);
      const sent = [];
      const calls = [];
      step({ ws: { send(p, cb) { sent.push(p); cb(); } }, vars: {} }, (err) => { calls.push(err ? 'err' : 'ok'); setImmediate(() => done({ sent: sent.length, calls })); });
    `;
    expect((await run(loop, true)).out).toEqual({ sent: 3, calls: ['ok'] });
  }, 30_000);
});

/** A ws server that, once a client connected, sends it a frame with the reserved opcode 3; the scenario then thinks. */
const badFrame = `
  const WebSocket = require('ws');
  const wss = new WebSocket.Server({ host: '127.0.0.1', port: 0 }, () => {
    wss.on('connection', (s) => setTimeout(() => s._socket.write(Buffer.from([0x83, 0x00])), 50));
    const engine = new engines.ws.default({ config: { target: 'ws://127.0.0.1:' + wss.address().port } });
    const scenario = engine.createScenario({ flow: [{ think: 1 }] }, ee);
    scenario({ vars: {}, funcs: {} }, (err) => done({ err: err ? String(err.message || err) : null, errors }));
  });
`;

/**
 * A Socket.IO server that drops every client 200 ms after it connected and stops listening: the client's first
 * reconnect (50 ms later, no jitter) fails well within the vuser's 2-s think.
 */
const dropped = `
  const { Server } = require('socket.io');
  const http = require('node:http');
  const server = http.createServer();
  const io = new Server(server);
  io.on('connection', (s) => setTimeout(() => { io.close(); }, 200));
  server.listen(0, '127.0.0.1', () => {
    const engine = new engines.socketio.default({ config: { target: 'http://127.0.0.1:' + server.address().port, socketio: { transports: ['websocket'], reconnectionDelay: 50, randomizationFactor: 0 } } });
    const scenario = engine.createScenario({ flow: [{ think: 2 }] }, ee);
    scenario({ vars: {}, funcs: {} }, (err) => done({ err: err ? String(err.message || err) : null, errors }));
  });
`;

/** A scenario whose connection ends under it: unwrapped the process dies of the second call; wrapped, counted, goes on. */
describe.each([
  ["Artillery's ws engine: an error after the connection opened (an invalid frame)", badFrame, ['Invalid WebSocket frame: invalid opcode 3']],
  ["Artillery's socketio engine: a target that drops a connected vuser (its reconnect fails)", dropped, ['Error: websocket error']],
])('%s', (_name, body, counted) => {
  test('unwrapped, the connect step is called back again and the process dies of it', async () => {
    const r = await run(body, false);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Callback was already called.');
  }, 30_000);

  test('wrapped, the error is counted as the engine counts it and the vuser goes on to its end', async () => {
    expect((await run(body, true)).out).toEqual({ err: null, errors: counted });
  }, 30_000);
});

/**
 * A Socket.IO server whose middleware never calls next(): the Engine.IO session opens, the CONNECT is never answered.
 * The scenario's socketio `timeout` is 300 ms (socket.io-client's bound on the session's opening only).
 */
const unanswered = (reconnection: boolean, closeAtConnect: boolean) => `
  const { Server } = require('socket.io');
  const http = require('node:http');
  const server = http.createServer();
  const io = new Server(server);
  io.use((socket) => { if (${closeAtConnect}) socket.conn.close(); });
  server.listen(0, '127.0.0.1', () => {
    const engine = new engines.socketio.default({ config: { target: 'http://127.0.0.1:' + server.address().port, socketio: { transports: ['websocket'], timeout: 300, reconnection: ${reconnection} } } });
    const scenario = engine.createScenario({ flow: [{ emit: { channel: 'echo', data: 'hi' } }] }, ee);
    const started = Date.now();
    const guard = setTimeout(() => done({ hung: true, errors }), 5000);
    scenario({ vars: {}, funcs: {} }, (err) => { clearTimeout(guard); done({ err: err ? String(err.message || err) : null, errors, ms: Date.now() - started }); });
  });
`;

describe("Artillery's socketio engine: a connection whose CONNECT is never answered", () => {
  test('unwrapped, the vuser waits for ever (plain `artillery run` never ends)', async () => {
    expect((await run(unanswered(false, false), false)).out).toEqual({ hung: true, errors: [] });
  }, 30_000);

  test('wrapped, once the session opened the CONNECT\'s answer gets the client\'s timeout, then fails as a timeout of the client\'s (the target\'s failure)', async () => {
    const { out } = await run(unanswered(true, false), true);
    expect(out).toMatchObject({ err: 'timeout', errors: ['Error: timeout'] });
    expect(out.ms).toBeGreaterThanOrEqual(300);
    expect(out.ms).toBeLessThan(4000);
  }, 30_000);

  // The server's DISCONNECT of the namespace (a packet of type 1 before the CONNECT's answer): the client destroys that
  // socket and never reconnects it, reconnection on or not.
  test('wrapped, a DISCONNECT instead of the CONNECT\'s answer (reconnection on) fails at once as io server disconnect', async () => {
    const body = unanswered(true, false).replace("io.use((socket) => { if (false) socket.conn.close(); });", 'io.use((socket) => { socket.packet({ type: 1 }); });');
    expect(body).toContain('socket.packet');
    const { out } = await run(body, true);
    expect(out).toMatchObject({ err: 'io server disconnect', errors: ['Error: io server disconnect'] });
    expect(out.ms).toBeLessThan(1300);
  }, 30_000);

  test('wrapped, a session closed at the CONNECT with reconnection off fails at once with the close reason', async () => {
    const { out } = await run(unanswered(false, true), true);
    expect(out).toMatchObject({ err: 'transport close', errors: ['Error: transport close'] });
    expect(out.ms).toBeLessThan(1300);
  }, 30_000);
});

/**
 * What the bound must not change (review): a server that closes the first session at its CONNECT and answers the
 * client's reconnect, 2 s later (more than timeout + 1 s after the first attempt); a vuser that connects and whose
 * flow disconnects within the same 'connect' emit (a fire-and-forget emit, reconnection off).
 */
const answeredLater = (mode: 'reconnect' | 'sync') => `
  const { Server } = require('socket.io');
  const http = require('node:http');
  const server = http.createServer();
  const io = new Server(server);
  let attempts = 0;
  io.use((socket, next) => { attempts++; if (${mode === 'reconnect'} && attempts === 1) return socket.conn.close(); next(); });
  server.listen(0, '127.0.0.1', () => {
    const socketio = ${mode === 'reconnect'}
      ? { transports: ['websocket'], timeout: 500, reconnection: true, reconnectionDelay: 2000, reconnectionDelayMax: 2000, randomizationFactor: 0 }
      : { transports: ['websocket'], reconnection: false };
    const engine = new engines.socketio.default({ config: { target: 'http://127.0.0.1:' + server.address().port, socketio } });
    const scenario = engine.createScenario({ flow: [{ emit: { channel: 'echo', data: 'hi' } }] }, ee);
    scenario({ vars: {}, funcs: {} }, (err) => setTimeout(() => done({ err: err ? String(err.message || err) : null, errors, attempts }), 300));
  });
`;

describe("Artillery's socketio engine: what the connect bound leaves as plain Artillery has it", () => {
  test.each([
    ['a session closed at its first CONNECT, answered on the reconnect 2 s later', 'reconnect' as const, 2],
    ['a flow that disconnects within the connect (reconnection off): no error for a vuser that connected', 'sync' as const, 1],
  ])('%s', async (_name, mode, attempts) => {
    for (const wrapped of [false, true]) expect({ wrapped, ...(await run(answeredLater(mode), wrapped)).out }).toEqual({ wrapped, err: null, errors: [], attempts });
  }, 30_000);
});

test('where a hook is missing (a later Artillery), the guard says so instead of reporting itself done', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const m = require(MODULE) as { callbacksOnce(e: object): void };
  class Ws {
    step() {}
  }
  class Sio {
    createScenario() {}
  }
  expect(() => m.callbacksOnce({ ws: { default: Ws, _deps: { WebSocket: class {} } }, socketio: { default: Sio } })).toThrow("not found: the socketio engine's loadContextSocket()");
});

test('each wrapper is put on once', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const m = require(MODULE) as { stepCallbackOnce(E: object): boolean; errorsAfterOpen(d: object): boolean; socketConnectOnce(E: object): boolean };
  class Ws {
    step() {
      return (_c: unknown, cb: (n: number) => void) => {
        cb(1);
        cb(2);
      };
    }
  }
  class Sio {
    createScenario() {}
    loadContextSocket() {}
  }
  const deps = { WebSocket: class {} };
  expect([m.stepCallbackOnce(Ws), m.stepCallbackOnce(Ws)]).toEqual([true, false]);
  expect([m.errorsAfterOpen(deps), m.errorsAfterOpen(deps)]).toEqual([true, false]);
  expect([m.socketConnectOnce(Sio), m.socketConnectOnce(Sio)]).toEqual([true, false]);
  const seen: number[] = [];
  (new Ws().step() as (c: unknown, cb: (n: number) => void) => void)(null, (n) => seen.push(n));
  expect(seen).toEqual([1]);
});
