/**
 * The preflight probe under an AbortSignal (the run's Ctrl-C during the local preflight): every step closes what it
 * opened and the probe rejects at once, saying nothing more. It used to ignore the interrupt: the run stopped waiting
 * for it, but its request or handshake ran on to its step timeout, a "preflight … ok" line could follow the
 * interrupted line, and the CLI had to end the process with process.exit to be rid of it.
 */
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { InterruptedBeforeStart } from '../../scripts/errors';
import { preflightHere } from '../../scripts/preflight';
import { settlesWithin, until } from '../helpers/wait';

import { probe } from '../../load-generators/lib/preflight';

/** Far past any wait of these tests: a probe that waits for its step timeout fails them, it does not pass late. */
const STEP_TIMEOUT_MS = 30_000;
/** How soon an aborted probe must have settled and closed its connections. */
const PROMPT_MS = 1000;

/**
 * A target that accepts every connection and answers nothing: it records what the probe asked (a request or an
 * upgrade) and holds it. `allClosed`: every connection the probe opened is closed. `answer`: ends the held requests.
 */
async function silentTarget(kind: 'http' | 'tcp' = 'http') {
  const sockets: Array<{ closed: boolean; socket: net.Socket }> = [];
  const asked: string[] = [];
  const held: http.ServerResponse[] = [];
  const server: net.Server =
    kind === 'http'
      ? http
          .createServer((req, res) => {
            asked.push(`${req.method} ${(req.url ?? '').split('?')[0]}`);
            held.push(res);
          })
          .on('upgrade', (req: http.IncomingMessage, socket: Duplex) => {
            asked.push(`upgrade ${(req.url ?? '').split('?')[0]}`);
            socket.resume(); // read on, so the probe's end of it is seen
          })
      : net.createServer((s) => s.resume());
  server.on('connection', (s: net.Socket) => {
    const seen = { closed: false, socket: s };
    sockets.push(seen);
    // Closed by the probe: its end (a half-open upgraded socket stays open on this side) or a reset.
    const closed = () => (seen.closed = true);
    s.on('error', () => undefined).once('end', closed).once('close', closed);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    asked,
    connections: () => sockets.length,
    allClosed: () => sockets.length > 0 && sockets.every((s) => s.closed),
    answer: () => held.forEach((res) => res.end('late')),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Upgraded sockets too (an HTTP server no longer tracks them), half-open here once the probe ended its side.
        for (const s of sockets) s.socket.destroy();
      }),
  };
}

type Silent = Awaited<ReturnType<typeof silentTarget>>;

/** Starts `probe` against a silent target, aborts once the target holds what `held` waits for, and checks the end. */
async function abortWhenHeld(t: Silent, spec: Parameters<typeof probe>[0], held: () => boolean): Promise<void> {
  const abort = new AbortController();
  const probing = probe({ timeoutMs: STEP_TIMEOUT_MS, ...spec }, { signal: abort.signal });
  await until(held, { timeoutMs: 10_000, what: 'the target holding what the probe asked' });
  const asked = [...t.asked];
  abort.abort();
  await expect(settlesWithin(probing, PROMPT_MS)).rejects.toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
  await until(t.allClosed, { timeoutMs: PROMPT_MS, what: "every connection of the probe's closed" });
  // Nothing was asked after the abort (no diagnosis request, no retry).
  expect(t.asked).toEqual(asked);
}

describe('an abort ends the probe at once, its connections closed (was: the step ran on to its timeout)', () => {
  const targets: Silent[] = [];
  const target = async (kind?: 'http' | 'tcp') => {
    const t = await silentTarget(kind);
    targets.push(t);
    return t;
  };
  afterEach(async () => {
    for (const t of targets.splice(0)) await t.close();
  });

  test('the HTTP step, its request unanswered (a first step at an event stream)', async () => {
    const t = await target();
    await abortWhenHeld(t, { target: `http://127.0.0.1:${t.port}`, http: { method: 'GET', path: '/events' }, httpStatusAdvisory: true }, () => t.asked.length > 0);
    expect(t.asked).toEqual(['GET /events']);
  });

  test('the Socket.IO handshake over WebSocket, its upgrade unanswered', async () => {
    const t = await target();
    await abortWhenHeld(t, { target: `http://127.0.0.1:${t.port}`, realtime: 'socketio' }, () => t.asked.length > 0);
    expect(t.asked).toEqual(['upgrade /socket.io/']);
  });

  test("the Socket.IO handshake over long-polling, its first poll unanswered (engine.io-client's close leaves it in flight)", async () => {
    const t = await target();
    await abortWhenHeld(t, { target: `http://127.0.0.1:${t.port}`, realtime: 'socketio', realtimeOptions: { transports: ['polling', 'websocket'] } }, () => t.asked.length > 0);
    expect(t.asked).toEqual(['GET /socket.io/']);
  });

  test('the WebSocket handshake, its upgrade unanswered', async () => {
    const t = await target();
    await abortWhenHeld(t, { target: `ws://127.0.0.1:${t.port}/feed`, realtime: 'websocket' }, () => t.asked.length > 0);
    expect(t.asked).toEqual(['upgrade /feed']);
  });

  test('the TLS step, a port that accepts the connection and never answers the TLS handshake', async () => {
    const t = await target('tcp');
    await abortWhenHeld(t, { target: `https://127.0.0.1:${t.port}` }, () => t.connections() > 0);
  });

  test('a signal aborted before the probe: nothing is connected', async () => {
    const t = await target();
    await expect(probe({ target: `http://127.0.0.1:${t.port}`, http: { method: 'GET', path: '/' } }, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(t.connections()).toBe(0);
  });
});

describe('preflightHere under the run\'s interrupt: InterruptedBeforeStart, and not a word', () => {
  test('an answer that comes after the abort is not said to have passed (was: "preflight from this machine: ok" after the interrupted line)', async () => {
    const t = await silentTarget();
    try {
      const lines: string[] = [];
      const abort = new AbortController();
      const probing = preflightHere({ target: `http://127.0.0.1:${t.port}`, http: { method: 'GET', path: '/' }, httpStatusAdvisory: true, timeoutMs: STEP_TIMEOUT_MS }, (l) => lines.push(l), undefined, abort.signal);
      await until(() => t.asked.length > 0, { what: "the probe's request at the target" });
      abort.abort();
      t.answer();
      const err = await settlesWithin(probing, PROMPT_MS).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InterruptedBeforeStart);
      // Nothing of the probe's is left in flight: the CLI ends by returning its exit code.
      expect((err as InterruptedBeforeStart).abandonedWork).toBe(false);
      expect(lines).toEqual([]);
    } finally {
      await t.close();
    }
  });

  test('a DNS lookup still running at the abort is said to be abandoned: Node cannot cancel it, so the CLI does not wait for it', async () => {
    const abort = new AbortController();
    // The lookup starts as the probe does, and cannot answer before the abort that follows in the same turn.
    const probing = preflightHere({ target: 'http://localhost:1' }, () => undefined, undefined, abort.signal);
    abort.abort();
    const err = await settlesWithin(probing, PROMPT_MS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterruptedBeforeStart);
    expect((err as InterruptedBeforeStart).abandonedWork).toBe(true);
  });
});
