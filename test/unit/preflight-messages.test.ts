/**
 * The preflight's lines for what a careless user runs into, each against a real server on loopback: one line
 * naming what was wrong and the fix that works for that scenario kind.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { preflightSpec } from '../../scripts/preflight';

import { probe } from '../../load-generators/lib/preflight';

jest.setTimeout(30_000);

const TLS = path.join(__dirname, '..', 'e2e', 'tls');
const PREFLIGHT = path.join(__dirname, '..', '..', 'load-generators', 'lib', 'preflight.js');
const servers: http.Server[] = [];
async function listen(server: http.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

/** The built-in scenarios' probe: GET /set-cookie, then the Socket.IO handshake. */
const builtIn = (target: string) => preflightSpec({ config: {}, scenarios: [{ flow: [{ function: 'fetchCookie' }, { function: 'openSocket' }] }] } as never, target, true);

describe("the built-in cookie step's answer", () => {
  test('a redirect is refused at the preflight, naming the Location and the --target that goes there (was: passed, then every vuser failed COOKIE_HTTP_302)', async () => {
    const port = await listen(http.createServer((_req, res) => {
      res.writeHead(302, { location: 'https://login.example.test/app/set-cookie' }).end();
    }));
    const result = await probe(builtIn(`http://127.0.0.1:${port}`));
    expect(result).toEqual(expect.objectContaining({
      ok: false,
      step: 'http',
      config: true,
      message: 'HTTP GET /set-cookie answered 302 (Location: https://login.example.test/app/set-cookie): the built-in scenarios need 200 there and follow no redirect; pass --target https://login.example.test/app',
    }));
  });

  test("a user script's own first step may redirect: reported, not judged", async () => {
    const port = await listen(http.createServer((_req, res) => res.writeHead(301, { location: '/elsewhere' }).end()));
    const target = `http://127.0.0.1:${port}`;
    const result = await probe(preflightSpec({ config: {}, scenarios: [{ flow: [{ get: { url: '/old' } }] }] } as never, target, false));
    expect(result).toMatchObject({ ok: true, steps: expect.arrayContaining(['http GET /old 301']) });
  });

  test('401 names RIG_SECRET_AUTH_TOKEN, the token the built-in flow sends (was: "check the scenario\'s URL path and any auth it needs")', async () => {
    const port = await listen(http.createServer((_req, res) => res.writeHead(401).end()));
    const without = await probe(builtIn(`http://127.0.0.1:${port}`));
    expect(without).toMatchObject({ ok: false, config: true, message: expect.stringMatching(/^HTTP GET \/set-cookie answered 401: the target wants authentication: the built-in scenarios send RIG_SECRET_AUTH_TOKEN, when set, as Authorization: Bearer; export it/) });
    const wrong = await probe(builtIn(`http://127.0.0.1:${port}`), { authToken: 'nope' });
    expect(wrong).toMatchObject({ ok: false, config: true, message: 'HTTP GET /set-cookie answered 401: the target refused the token in RIG_SECRET_AUTH_TOKEN (sent as Authorization: Bearer); check its value' });
  });
});

describe('a self-signed certificate and the built-in scenarios', () => {
  test('the line names NODE_EXTRA_CA_CERTS (they take no -k), and that fix passes the probe', async () => {
    // Self-signed for 127.0.0.1 (test/e2e/tls/loopback-*.pem): trusted, its name matches.
    const server = https.createServer({ key: fs.readFileSync(path.join(TLS, 'loopback-key.pem')), cert: fs.readFileSync(path.join(TLS, 'loopback-cert.pem')) }, (_req, res) => {
      res.writeHead(200, { 'set-cookie': 'sid=1' }).end();
    });
    const port = await listen(server as unknown as http.Server);
    const spec = { ...builtIn(`https://127.0.0.1:${port}`), realtime: undefined };
    const result = await probe(spec);
    expect(result).toMatchObject({ ok: false, step: 'tls', message: expect.stringMatching(/for the built-in scenarios, which check it, trust it with NODE_EXTRA_CA_CERTS=cert\.pem/) });
    // The fix it names, in a process started with it (Node reads the variable at start-up).
    const code = `require(${JSON.stringify(PREFLIGHT)}).probe(${JSON.stringify(spec)}).then((r) => process.stdout.write(JSON.stringify(r)))`;
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['-e', code], { env: { ...process.env, NODE_EXTRA_CA_CERTS: path.join(TLS, 'loopback-cert.pem') } }, (err, out) => (err ? reject(err) : resolve(out)));
    });
    expect(JSON.parse(stdout)).toMatchObject({ ok: true });
  });
});
