/**
 * The reachability check before a run: a Socket.IO polling handshake for the built-in scenarios and Socket.IO scripts
 * (what their clients send first anyway), a bare connection for any other target — a user's own http or ws target
 * got a `GET /socket.io/?EIO=4&transport=polling` its script never sends.
 */
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { checkReachable } from '../../scripts/adapters/reachability';
import { connectionTargets } from '../../scripts/engines';
import { InterruptedBeforeStart, TargetFailure } from '../../scripts/errors';
import { freePort } from '../aws/moto';
import { settlesWithin, until } from '../helpers/wait';

describe('checkReachable', () => {
  const requests: string[] = [];
  let server: http.Server;
  let url = '';
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  beforeEach(() => requests.splice(0));

  test('connection only: resolves once connected, and the target gets no request (http, and a ws URL)', async () => {
    await expect(checkReachable(url, 2000, false, { http: false })).resolves.toBeUndefined();
    await expect(checkReachable(url.replace(/^http/, 'ws'), 2000, false, { http: false })).resolves.toBeUndefined();
    // The server sees a connection and nothing on it; any request would have been recorded before close.
    await new Promise((r) => setImmediate(r));
    expect(requests).toEqual([]);
  });

  test('the default asks the Socket.IO polling handshake (the built-in scenarios\' first request)', async () => {
    await checkReachable(url, 2000);
    expect(requests).toEqual(['GET /socket.io/?EIO=4&transport=polling']);
  });

  test("nothing listening: unreachable, the target's failure (exit 3, as the preflight says it), either way", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    for (const opts of [{ http: false }, {}]) {
      const err = await checkReachable(closed, 2000, false, opts).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TargetFailure);
      expect((err as Error).message).toMatch(/^target http:\/\/127\.0\.0\.1:\d+ is unreachable \(ECONNREFUSED\); start the target or fix the URL/);
    }
  });
});

describe('connectionTargets: what the reachability check is asked about (was: always the target)', () => {
  const ws = (connect: unknown, extra: object = {}) => ({ engine: 'ws', flow: [{ connect }, { send: 'hi' }], ...extra });
  test("a ws scenario's first connect step with its own URL is what the run opens, not the unused target", () => {
    expect(connectionTargets({ config: {}, scenarios: [ws('ws://h:1/ws')] }, 'ws://h:9/x')).toEqual(['ws://h:1/ws']);
    expect(connectionTargets({ config: {}, scenarios: [ws({ target: 'ws://h:2/ws', headers: { a: 'b' } })] }, 'ws://h:9/x')).toEqual(['ws://h:2/ws']);
  });
  test('the target still counts where anything uses it: a connect without a URL or with a function, an http scenario, a before section', () => {
    expect(connectionTargets({ config: {}, scenarios: [ws({ headers: { a: 'b' } })] }, 'ws://h:9/x')).toEqual(['ws://h:9/x']);
    expect(connectionTargets({ config: {}, scenarios: [ws({ function: 'mine' })] }, 'ws://h:9/x')).toEqual(['ws://h:9/x']);
    expect(connectionTargets({ config: {}, scenarios: [ws('ws://h:1/ws'), { flow: [{ get: { url: '/' } }] }] }, 'http://h:9')).toEqual(['ws://h:1/ws', 'http://h:9']);
    expect(connectionTargets({ config: {}, before: { flow: [{ get: { url: '/' } }] }, scenarios: [ws('ws://h:1/ws')] }, 'http://h:9')).toEqual(['http://h:9', 'ws://h:1/ws']);
  });
  test('a scenario of weight 0 never runs, and a URL templated per vuser is not known before the run', () => {
    expect(connectionTargets({ config: {}, scenarios: [ws('ws://h:1/ws'), { weight: 0, flow: [{ get: { url: '/' } }] }] }, 'http://h:9')).toEqual(['ws://h:1/ws']);
    expect(connectionTargets({ config: {}, scenarios: [ws('ws://h:1/{{ room }}')] }, 'http://h:9')).toEqual([]);
  });
});

// The run's Ctrl-C while the local platform checks a --target that accepts and never answers: the check ran on to its
// 5-s timeout before the run heard the signal (and then asked once more, for the scheme).
describe('checkReachable under the run\'s interrupt: InterruptedBeforeStart at once, its connection closed', () => {
  test.each([
    ['the polling handshake, unanswered', { http: true }],
    ['the connection alone, its TLS handshake unanswered', { http: false }],
  ] as const)('%s', async (_case, how) => {
    const connections: Array<{ closed: boolean; socket: net.Socket }> = [];
    const silent = net.createServer((s) => {
      const seen = { closed: false, socket: s };
      connections.push(seen);
      s.on('error', () => undefined).once('end', () => (seen.closed = true)).once('close', () => (seen.closed = true));
      s.resume();
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    try {
      const abort = new AbortController();
      const checking = checkReachable(`${how.http ? 'http' : 'https'}://127.0.0.1:${port}`, 30_000, false, { ...how, signal: abort.signal });
      await until(() => connections.length > 0, { what: 'the check connected' });
      abort.abort();
      await expect(settlesWithin(checking, 1000)).rejects.toBeInstanceOf(InterruptedBeforeStart);
      await until(() => connections.every((c) => c.closed), { timeoutMs: 1000, what: "the check's connection closed" });
      expect(connections).toHaveLength(1);
    } finally {
      for (const c of connections) c.socket.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});
