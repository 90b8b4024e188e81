/**
 * The preflight's lines for what a careless user runs into, each against a real server on loopback: one line
 * naming what was wrong and the fix that works for that scenario kind.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { checkReachable } from '../../scripts/adapters/reachability';
import { TargetFailure, UsageError } from '../../scripts/errors';
import { preflightError, preflightSpec } from '../../scripts/preflight';

import { probe } from '../../load-generators/lib/preflight';

jest.setTimeout(30_000);

const TLS = path.join(__dirname, '..', 'e2e', 'tls');
const PREFLIGHT = path.join(__dirname, '..', '..', 'load-generators', 'lib', 'preflight.js');
const servers: http.Server[] = [];
/** Every connection the servers accepted, ended at the close (the stalled server never ends its own). */
const sockets = new Set<net.Socket>();
function track(server: http.Server): void {
  servers.push(server);
  server.on('connection', (socket: net.Socket) => sockets.add(socket));
}
async function listen(server: http.Server): Promise<number> {
  track(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
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

  test("a redirect's Location is shown without its query's values or credentials (the probe's result is stored in S3 on AWS)", async () => {
    const port = await listen(http.createServer((_req, res) => {
      res.writeHead(302, { location: 'https://bob:pw1@login.example.test/app/set-cookie?session=SECRET9&SECRET8' }).end();
    }));
    const result = await probe(builtIn(`http://127.0.0.1:${port}`));
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('(Location: https://login.example.test/app/set-cookie?session=***&***)') });
    expect(JSON.stringify(result)).not.toMatch(/SECRET9|SECRET8|pw1/);
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

/**
 * One condition, one exit code and the same words, whichever check meets it first: the reachability check before
 * the run (built-in scenarios, Socket.IO scripts) or the preflight (every script). Exit 2 when the URL is the cause
 * (a name that does not resolve, the wrong scheme), exit 3 when the target does not answer.
 */
describe('the reachability check and the preflight agree', () => {
  let stalledPort = 0;
  let tlsPort = 0;
  let plainPort = 0;
  beforeAll(async () => {
    const stalled = net.createServer(() => undefined); // accepts, never answers
    stalledPort = await listen(stalled as unknown as http.Server);
    tlsPort = await listen(https.createServer({ key: fs.readFileSync(path.join(TLS, 'loopback-key.pem')), cert: fs.readFileSync(path.join(TLS, 'loopback-cert.pem')) }, (_q, r) => r.end('ok')) as unknown as http.Server);
    plainPort = await listen(http.createServer((_q, r) => r.end('ok')));
  });

  const rows = [
    { name: 'http:// to a TLS server', url: () => `http://127.0.0.1:${tlsPort}`, exit: 2, says: /the target speaks TLS there: use https:\/\// },
    { name: 'ws:// to a TLS server', url: () => `ws://127.0.0.1:${tlsPort}/feed`, exit: 2, says: /the target speaks TLS there: use wss:\/\// },
    { name: 'https:// to a plain server', url: () => `https://127.0.0.1:${plainPort}`, exit: 2, says: /the target speaks plain HTTP there: use http:\/\// },
    { name: 'a server that accepts and never answers', url: () => `http://127.0.0.1:${stalledPort}`, exit: 3, says: /accepted the connection but sent no HTTP answer within 1 s/ },
    { name: 'a name that does not resolve', url: () => 'http://no-such-host.invalid', exit: 2, says: /no-such-host\.invalid does not resolve \(ENOTFOUND\)/ },
  ];
  const exitOf = (err: unknown) => (err instanceof TargetFailure ? 3 : err instanceof UsageError ? 2 : `not a rig error: ${String(err)}`);

  test.each(rows)('$name: exit $exit from both, naming the cause', async (row) => {
    const reach = await checkReachable(row.url(), 1000, false).then(() => 'passed', (e: unknown) => e);
    expect(exitOf(reach)).toBe(row.exit);
    expect((reach as Error).message).toMatch(row.says);
    const ws = row.url().startsWith('ws');
    const spec = preflightSpec({ config: {}, scenarios: ws ? [{ engine: 'ws', flow: [{ send: 'x' }] }] : [{ flow: [{ function: 'fetchCookie' }] }] } as never, row.url(), !ws);
    const result = await probe({ ...spec, timeoutMs: 1000 });
    const err = preflightError(result, 'this machine');
    expect(exitOf(err)).toBe(row.exit);
    expect(err?.message).toMatch(row.says);
  });

  test('the preflight writes an IPv6 address in brackets (tcp [::1]:port)', async () => {
    const v6 = http.createServer((_q, r) => r.end('ok'));
    track(v6);
    await new Promise<void>((r) => v6.listen(0, '::1', r));
    const port = (v6.address() as AddressInfo).port;
    const result = await probe({ target: `http://[::1]:${port}` });
    expect(result).toMatchObject({ ok: true, steps: expect.arrayContaining([`tcp [::1]:${port}`]) });
  });
});

describe('a script at the wrong kind of server', () => {
  let sioPort = 0;
  beforeAll(async () => {
    const server = http.createServer();
    const { Server } = await import('socket.io');
    // As the reference target answers a handshake without the sid cookie (docs/target.md, Protocol).
    new Server(server).use((_socket, next) => next(new Error('unauthorized')));
    sioPort = await listen(server);
  });

  test('a ws-engine script at a Socket.IO server: "use engine: socketio" (was: "socket hang up: the target rejected the session", exit 3)', async () => {
    const target = `ws://127.0.0.1:${sioPort}/`;
    const result = await probe({ ...preflightSpec({ config: {}, scenarios: [{ engine: 'ws', flow: [{ send: 'x' }] }] } as never, target, false), timeoutMs: 2000 });
    expect(result).toMatchObject({ ok: false, step: 'handshake', config: true, message: expect.stringMatching(/: this looks like a Socket\.IO server \(it answers Engine\.IO's handshake at \/socket\.io\/\): use engine: socketio in your script$/) });
  });

  test('a plain Socket.IO script refused "unauthorized": the line says the reference target needs the sid cookie from GET /set-cookie', async () => {
    const target = `http://127.0.0.1:${sioPort}`;
    const result = await probe(preflightSpec({ config: { socketio: { transports: ['websocket'] } }, scenarios: [{ engine: 'socketio', flow: [{ emit: { channel: 'x' } }] }] } as never, target, false));
    expect(result).toMatchObject({ ok: false, config: true, message: expect.stringMatching(/failed \(unauthorized\): .*\(the rig's reference target answers "unauthorized" to a handshake without the sid cookie from GET \/set-cookie: with --target reference, make that request your script's first step; docs\/target\.md, Protocol\)$/) });
  });
});
