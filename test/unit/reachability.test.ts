/**
 * The reachability check before a run: a Socket.IO polling handshake for the built-in scenarios and Socket.IO scripts
 * (what their clients send first anyway), a bare connection for any other target — a user's own http or ws target
 * got a `GET /socket.io/?EIO=4&transport=polling` its script never sends.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkReachable } from '../../scripts/adapters/reachability';
import { TargetFailure } from '../../scripts/errors';
import { freePort } from '../aws/moto';

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
