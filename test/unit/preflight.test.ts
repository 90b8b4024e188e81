import type { TargetHandle } from '../../scripts/contracts';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import { startLocalTarget } from '../../scripts/platforms/local/target';
import { RigError, UsageError } from '../../scripts/errors';
import { preflightError, preflightHere, preflightSpec, socketIoPolls } from '../../scripts/preflight';
import { loadScenario } from '../../scripts/scenario';
import { freePort } from '../aws/moto';
import { loopbackHttpServer } from '../helpers/http-server';
import { settlesWithin, until } from '../helpers/wait';

import { probe, connectFailure } from '../../load-generators/lib/preflight';

const ROOT = path.resolve(__dirname, '..', '..');
jest.setTimeout(60_000);

describe('preflightSpec: what the probe checks, read from the scenario', () => {
  test('built-in scenarios: GET /set-cookie (fetchCookie) then a Socket.IO handshake (openSocket)', () => {
    for (const name of ['connect', 'pubsub', 'presence']) {
      const { script } = loadScenario(name, path.join(ROOT, 'load-generators', 'scenarios'));
      expect(preflightSpec(script, 'http://t:3000')).toEqual({ target: 'http://t:3000', http: { method: 'GET', path: '/set-cookie' }, realtime: 'socketio', realtimePath: '/socket.io', realtimeAtOrigin: true, timeoutMs: 5000 });
      // A path prefix goes in front of the Socket.IO path, as connect.js connects (namespace /).
      expect(preflightSpec(script, 'http://t:3000/base/')).toMatchObject({ realtimePath: '/base/socket.io', realtimeAtOrigin: true });
    }
  });

  test("a user's script: its first HTTP step and its engine's handshake; templated URLs and unknown functions are not guessed", () => {
    const script = { config: { target: 'x', variables: { socketPath: '/rt' } }, scenarios: [{ engine: 'socketio', flow: [{ think: 1 }, { get: { url: '/login' } }, { post: { url: '/next' } }] }] };
    expect(preflightSpec(script, 'http://t', false)).toMatchObject({ http: { method: 'GET', path: '/login' }, realtime: 'socketio', realtimePath: '/rt', httpStatusAdvisory: true });
    // A first step that changes something is not sent before the run (the probe would send it without its body or
    // headers), and no later GET stands in for it: only the handshake and the connection are probed.
    for (const method of ['post', 'put', 'patch', 'delete']) {
      const writes = { config: {}, scenarios: [{ flow: [{ [method]: { url: '/orders', json: { confirm: true } } }, { get: { url: '/next' } }] }] };
      const spec = preflightSpec(writes, 'http://t', false);
      expect(spec.http).toBeUndefined();
      expect(spec.httpNotProbed).toBe(`${method.toUpperCase()} /orders`);
    }
    expect(preflightSpec({ config: {}, scenarios: [{ flow: [{ head: { url: '/h' } }] }] }, 'http://t', false).http).toEqual({ method: 'HEAD', path: '/h' });
    const ws = { config: {}, scenarios: [{ engine: 'ws', flow: [{ send: 'hi' }] }] };
    expect(preflightSpec(ws, 'ws://t/feed', false)).toEqual({ target: 'ws://t/feed', realtime: 'websocket', timeoutMs: 5000, httpStatusAdvisory: true });
    const custom = { config: {}, scenarios: [{ flow: [{ get: { url: '/u/{{ id }}' } }, { function: 'mine' }] }] };
    expect(preflightSpec(custom, 'http://t', false)).toEqual({ target: 'http://t', timeoutMs: 5000, httpStatusAdvisory: true });
  });

  test("a scenario without its own engine runs config.engine (Artillery's runner.js), so its handshake is probed", () => {
    const ws = { config: { engine: 'ws' }, scenarios: [{ flow: [{ send: 'hi' }] }] };
    expect(preflightSpec(ws, 'ws://t/feed', false)).toMatchObject({ realtime: 'websocket' });
    const sio = { config: { engine: 'socketio' }, scenarios: [{ flow: [] }] };
    expect(preflightSpec(sio, 'http://t', false)).toMatchObject({ realtime: 'socketio' });
    expect(socketIoPolls(sio)).toBe(true);
  });
});

describe("the handshake as the script's engine makes it (was: without its headers, refused by a target that checks them)", () => {
  test("Socket.IO: config.socketio's extraHeaders, query, auth and path; templated options are not guessed", () => {
    const script = { config: { socketio: { extraHeaders: { cookie: 'sid=1', 'x-n': 2 }, query: { room: 'a' }, auth: { token: 't' }, path: '/rt' } }, scenarios: [{ engine: 'socketio', flow: [{ emit: { channel: 'x' } }] }] };
    expect(preflightSpec(script, 'http://t', false)).toMatchObject({ realtime: 'socketio', realtimePath: '/rt', realtimeOptions: { headers: { cookie: 'sid=1', 'x-n': '2' }, query: { room: 'a' }, auth: { token: 't' } } });
    const templated = { config: { socketio: { extraHeaders: { authorization: 'Bearer {{ token }}' } } }, scenarios: [{ engine: 'socketio', flow: [] }] };
    expect(preflightSpec(templated, 'http://t', false)).toMatchObject({ realtime: 'socketio', realtimeUnknown: 'config.socketio is templated per vuser' });
  });

  test("Socket.IO: the scenario's own socketio over config.socketio, as Artillery merges them (was: config.socketio only)", () => {
    const script = { config: { socketio: { query: { token: 'old' }, extraHeaders: { 'x-a': '1' } } }, scenarios: [{ engine: 'socketio', socketio: { path: '/rt', query: { token: 'abc' } }, flow: [{ emit: { channel: 'x' } }] }] };
    expect(preflightSpec(script, 'http://t', false)).toMatchObject({ realtimePath: '/rt', realtimeOptions: { headers: { 'x-a': '1' }, query: { token: 'abc' } } });
  });

  test("Socket.IO: every scenario's own socketio, spread in script order, is what each vuser connects with (engine_socketio.js createScenario on one engine)", () => {
    const first = { engine: 'socketio', socketio: { path: '/a' }, flow: [{ emit: { channel: 'x' } }] };
    const second = { engine: 'socketio', weight: 0, socketio: { path: '/b', query: { room: 'r' } }, flow: [] };
    expect(preflightSpec({ config: {}, scenarios: [first, second] }, 'http://t', false)).toMatchObject({ realtimePath: '/b', realtimeOptions: { query: { room: 'r' } } });
  });

  test('the probed scenario is the first Artillery can pick: one of weight 0 (or a weight parseInt reads as 0) never runs (was: scenarios[0])', () => {
    const sio = { engine: 'socketio', flow: [{ emit: { channel: 'x' } }] };
    const web = { flow: [{ get: { url: '/health' } }] };
    expect(preflightSpec({ config: {}, scenarios: [{ ...sio, weight: 0 }, web] }, 'http://t', false)).toEqual(expect.not.objectContaining({ realtime: 'socketio' }));
    expect(preflightSpec({ config: {}, scenarios: [{ ...sio, weight: 'none' }, { ...web, weight: '2' }] }, 'http://t', false)).toMatchObject({ http: { method: 'GET', path: '/health' } });
    expect(preflightSpec({ config: {}, scenarios: [{ ...sio, weight: 1 }, web] }, 'http://t', false)).toMatchObject({ realtime: 'socketio' });
    expect(preflightSpec({ config: {}, scenarios: [{ ...sio, weight: '{{ w }}' }, web] }, 'http://t', false)).toMatchObject({ realtime: 'socketio' });
  });

  test("ws: config.ws headers and subprotocols, or its first connect step's; a connect function is not guessed", () => {
    const ws = { config: { ws: { headers: { 'x-key': 'k' }, subprotocols: ['v1'] } }, scenarios: [{ engine: 'ws', flow: [{ send: 'hi' }] }] };
    expect(preflightSpec(ws, 'ws://t/feed', false)).toMatchObject({ realtime: 'websocket', realtimeOptions: { headers: { 'x-key': 'k' }, subprotocols: ['v1'] } });
    const step = { config: {}, scenarios: [{ engine: 'ws', flow: [{ connect: { target: 'ws://t/other', headers: { a: 'b' } } }] }] };
    // The run opens the connect step's URL, never the target: the probe's DNS and TCP go there too.
    expect(preflightSpec(step, 'ws://t', false)).toMatchObject({ target: 'ws://t/other', realtimeOptions: { headers: { a: 'b' }, url: 'ws://t/other' } });
    const fn = { config: {}, scenarios: [{ engine: 'ws', flow: [{ connect: { function: 'mine' } }] }] };
    expect(preflightSpec(fn, 'ws://t', false)).toMatchObject({ realtimeUnknown: 'its connect step is a function' });
  });

  test("a Socket.IO script starts with long-polling unless config.socketio.transports is websocket only", () => {
    const sio = (socketio?: object) => ({ config: { ...(socketio ? { socketio } : {}) }, scenarios: [{ engine: 'socketio', flow: [] }] });
    expect(socketIoPolls(sio())).toBe(true);
    expect(socketIoPolls(sio({ transports: ['polling', 'websocket'] }))).toBe(true);
    expect(socketIoPolls(sio({ transports: ['websocket'] }))).toBe(false);
    expect(socketIoPolls({ config: {}, scenarios: [{ flow: [] }] })).toBe(false);
  });
});

describe('the probe against real servers on loopback', () => {
  let target: TargetHandle;
  beforeAll(async () => {
    target = await startLocalTarget({ appDir: path.join(ROOT, 'target-stack', 'app'), port: 0, workers: 1 });
  });
  afterAll(async () => target?.stop());

  test('passes against the reference target: DNS, TCP, GET /set-cookie, Socket.IO handshake with the cookie', async () => {
    const result = await probe({ target: target.url, http: { method: 'GET', path: '/set-cookie' }, realtime: 'socketio' });
    expect(result).toMatchObject({ ok: true });
    expect(result.steps.map((s) => s.split(' ')[0])).toEqual(['dns', 'tcp', 'http', 'socketio']);
    const lines: string[] = [];
    await preflightHere({ target: target.url, http: { method: 'GET', path: '/set-cookie' }, realtime: 'socketio' }, (l) => lines.push(l));
    expect(lines).toEqual([expect.stringMatching(/^preflight from this machine: ok in \d+ ms/)]);
  });

  test('the handshake without the cookie the target demands fails at the handshake, naming the rejection', async () => {
    const result = await probe({ target: target.url, realtime: 'socketio' });
    expect(result).toMatchObject({ ok: false, step: 'handshake', message: expect.stringMatching(/^Socket\.IO handshake with 127\.0\.0\.1:\d+\/socket\.io failed \(unauthorized\)/) });
  });

  test("with the script's own handshake headers (the sid cookie the reference target demands), the handshake passes", async () => {
    const result = await probe({ target: target.url, realtime: 'socketio', realtimeOptions: { headers: { cookie: 'sid=1' } } });
    expect(result).toMatchObject({ ok: true, steps: expect.arrayContaining(['socketio handshake']) });
    const unknown = await probe({ target: target.url, realtime: 'socketio', realtimeUnknown: 'config.socketio is templated per vuser' });
    expect(unknown).toMatchObject({ ok: true, steps: expect.arrayContaining(['socketio handshake not probed (config.socketio is templated per vuser)']) });
  });

  test('an HTTP path the target does not serve: config error (exit 2) naming the status', async () => {
    const result = await probe({ target: target.url, http: { method: 'GET', path: '/no-such-path' } });
    expect(result).toMatchObject({ ok: false, step: 'http', config: true, message: expect.stringMatching(/^HTTP GET \/no-such-path answered 404: check the scenario's URL path/) });
    expect(preflightError(result, 'this machine')).toBeInstanceOf(UsageError);
  });

  test("a built-in scenario at a target without /set-cookie: exit 2 naming the reference target's protocol (was: 'check the scenario's URL path', a path the user never wrote)", async () => {
    const other = await loopbackHttpServer((_req, res) => {
      res.statusCode = 404;
      res.end();
    });
    try {
      const url = `http://127.0.0.1:${other.port}`;
      const builtIn = await probe({ ...preflightSpec(loadScenario('connect', path.join(ROOT, 'load-generators', 'scenarios')).script, url), target: url });
      expect(builtIn).toMatchObject({ ok: false, step: 'http', config: true, message: expect.stringMatching(/^HTTP GET \/set-cookie answered 404: the built-in scenarios speak the reference target's protocol .*run your own Artillery script against it \(--scenario my-test\.yml\)/) });
      // A user's script asking for /set-cookie itself keeps the path advice.
      expect(await probe({ target: url, http: { method: 'GET', path: '/set-cookie' } })).toMatchObject({ message: expect.stringMatching(/answered 404: check the scenario's URL path/) });
    } finally {
      await other.close();
    }
  });

  test("a user's own first step answering 404 is reported, not judged (plain artillery would run it and count the 404s)", async () => {
    const result = await probe({ target: target.url, http: { method: 'GET', path: '/no-such-path' }, httpStatusAdvisory: true });
    expect(result).toMatchObject({ ok: true, steps: expect.arrayContaining(["http GET /no-such-path 404 (your script's own step: not judged)"]) });
  });

  test('refused: target failure (exit 3) naming the address and the likely cause', async () => {
    const port = await freePort();
    const result = await probe({ target: `http://127.0.0.1:${port}` });
    expect(result).toMatchObject({ ok: false, step: 'tcp', config: false, message: `TCP connect to 127.0.0.1:${port} refused: nothing listens there (target stopped, or the wrong port in the URL)` });
    const err = preflightError(result, 'generator i-1');
    expect(err).toBeInstanceOf(RigError);
    expect(err?.message).toBe(`preflight from generator i-1 failed at tcp: ${result.ok ? '' : result.message}`);
    await expect(preflightHere({ target: `http://127.0.0.1:${port}` }, () => undefined)).rejects.toThrow(RigError);
  });

  test('a name that does not resolve: config error at dns', async () => {
    const result = await probe({ target: 'http://loadtest-rig-preflight.invalid' });
    expect(result).toMatchObject({ ok: false, step: 'dns', config: true, message: expect.stringMatching(/^DNS: loadtest-rig-preflight\.invalid does not resolve/) });
  });

  test("a user's own first step is sent once, even on a 5xx (its status is not judged); one that changes something is not sent at all", async () => {
    const seen: string[] = [];
    const srv = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.statusCode = 500;
      res.end();
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (srv.address() as { port: number }).port;
      const once = await probe({ target: `http://127.0.0.1:${port}`, http: { method: 'GET', path: '/err500' }, httpStatusAdvisory: true });
      expect(once).toMatchObject({ ok: true, steps: expect.arrayContaining(["http GET /err500 500 (your script's own step: not judged)"]) });
      expect(seen).toEqual(['GET /err500']);
      const writes = preflightSpec({ config: {}, scenarios: [{ flow: [{ delete: { url: '/err500', json: { confirm: true } } }] }] }, `http://127.0.0.1:${port}`, false);
      const notSent = await probe(writes);
      expect(notSent).toMatchObject({ ok: true, steps: expect.arrayContaining(['http DELETE /err500 not probed (sent only by the run, with its body and headers)']) });
      expect(seen).toEqual(['GET /err500']);
    } finally {
      srv.close();
    }
  });

  test('a 5xx is retried, then reported as the target\'s failure (exit 3)', async () => {
    let hits = 0;
    const srv = http.createServer((_req, res) => {
      hits++;
      res.statusCode = 503;
      res.end();
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (srv.address() as { port: number }).port;
      const result = await probe({ target: `http://127.0.0.1:${port}`, http: { method: 'GET', path: '/set-cookie' } });
      expect(result).toMatchObject({ ok: false, step: 'http', config: false, message: expect.stringMatching(/answered 503: the target \(or the load balancer: 502\/503 = no healthy target\) failed it/) });
      expect(hits).toBe(3);
    } finally {
      srv.close();
    }
  });

  test("the probe is exempt from the reference target's faults and ground-truth counters (header x-rig-preflight)", async () => {
    const faulty = await startLocalTarget({
      appDir: path.join(ROOT, 'target-stack', 'app'), port: 0, workers: 1,
      env: { FAULT_WITHHOLD_FRACTION: '1', FAULT_COOKIE_503_FRACTION: '1' },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const result = await probe({ target: faulty.url, http: { method: 'GET', path: '/set-cookie' }, realtime: 'socketio' });
        expect(result).toMatchObject({ ok: true });
      }
      const m = (await (await fetch(`${faulty.url}/metrics`)).json()) as Record<string, number>;
      expect({ cookie503: m.cookie503, cookiesIssued: m.cookiesIssued, withheld: m.withheldSocketsConnected }).toEqual({ cookie503: 0, cookiesIssued: 0, withheld: 0 });
    } finally {
      await faulty.stop();
    }
  });

  test("a target that demands the scenario's token: the probe sends it as a vuser would, and fails at http (config) without it", async () => {
    const guarded = await startLocalTarget({ appDir: path.join(ROOT, 'target-stack', 'app'), port: 0, workers: 1, env: { AUTH_TOKEN: 'probe-token' } });
    try {
      const spec = { target: guarded.url, http: { method: 'GET', path: '/set-cookie' }, realtime: 'socketio' as const };
      await expect(preflightHere(spec, () => undefined, 'probe-token')).resolves.toBeUndefined();
      expect(await probe(spec)).toMatchObject({ ok: false, step: 'http', config: true, message: expect.stringMatching(/answered 401/) });
    } finally {
      await guarded.stop();
    }
  });

  test('TLS against a plain-HTTP port fails at tls', async () => {
    const result = await probe({ target: target.url.replace('http:', 'https:') });
    expect(result).toMatchObject({ ok: false, step: 'tls', message: expect.stringMatching(/^TLS to 127\.0\.0\.1:\d+ failed/) });
  });

});

// Loopback cannot drop a SYN the way a security group does, so the timeout's wording is checked on the error
// the connect raises after its step timeout (connectOnce rejects with code ETIMEDOUT).
test('a TCP connect with no answer names security group, network ACL or route', () => {
  const timedOut = Object.assign(new Error('no answer in 5000 ms'), { code: 'ETIMEDOUT' });
  expect(connectFailure(timedOut, 'alb.example', '10.0.1.7', 80, 5000)).toEqual({
    step: 'tcp',
    message: 'TCP connect to 10.0.1.7:80 timed out after 5000 ms: a security group, network ACL or route drops the traffic (an internet-facing load balancer that admits clients only by security group does exactly this)',
    config: false,
  });
  expect(connectFailure(Object.assign(new Error('x'), { code: 'EHOSTUNREACH' }), 'h', '10.0.1.7', 80, 5000).message).toMatch(/no route \(EHOSTUNREACH\): check the subnet's route table and network ACL/);
});

describe('the probe against a self-signed https server (test/e2e/tls fixture)', () => {
  const TLS = path.join(__dirname, '..', 'e2e', 'tls');
  let server: import('node:https').Server;
  let url = '';
  beforeAll(async () => {
    server = https.createServer({ key: fs.readFileSync(path.join(TLS, 'key.pem')), cert: fs.readFileSync(path.join(TLS, 'cert.pem')) }, (_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  test('fails at tls naming config.tls.rejectUnauthorized (what a generator reports on AWS)', async () => {
    const result = await probe({ target: url, http: { method: 'GET', path: '/' } });
    expect(result).toMatchObject({ ok: false, step: 'tls', message: expect.stringMatching(/DEPTH_ZERO_SELF_SIGNED_CERT.*set config\.tls\.rejectUnauthorized: false in it/) });
  });

  test('passes every step when the script accepts any certificate (preflightSpec reads config.tls)', async () => {
    const spec = preflightSpec({ config: { target: url, tls: { rejectUnauthorized: false } }, scenarios: [{ flow: [{ get: { url: '/' } }] }] } as never, url, false);
    expect(spec.insecureTls).toBe(true);
    expect(await probe(spec)).toMatchObject({ ok: true, steps: expect.arrayContaining([expect.stringMatching(/\+ tls/), expect.stringMatching(/^http GET \/ 200/)]) });
  });
});

// Artillery 2.0.34 merges an engine's own options with config.tls: engine_socketio.js `_.extend({}, socketio, tls)`
// (config.tls wins), engine_ws.js getWsConfig `_.extend(tls, ws)` (config.ws wins; a `connect: {…}` first step's keys
// instead of config.ws). The probe reads the certificate setting the same way.
describe('an engine\'s own rejectUnauthorized: false, against a real self-signed server (Socket.IO and WebSocket)', () => {
  const TLS = path.join(__dirname, '..', 'e2e', 'tls');
  const servers: import('node:https').Server[] = [];
  let io: import('socket.io').Server;
  let wss: { close(): void };
  let port = 0; // Socket.IO
  let wsPort = 0; // plain WebSocket
  const listen = async (): Promise<[import('node:https').Server, number]> => {
    const server = https.createServer({ key: fs.readFileSync(path.join(TLS, 'key.pem')), cert: fs.readFileSync(path.join(TLS, 'cert.pem')) });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return [server, (server.address() as import('node:net').AddressInfo).port];
  };
  beforeAll(async () => {
    const [sioServer, p1] = await listen();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    io = new (require('socket.io') as typeof import('socket.io')).Server(sioServer);
    const [wsServer, p2] = await listen();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Server: WebSocketServer } = require('ws') as { Server: new (o: object) => { close(): void } };
    wss = new WebSocketServer({ server: wsServer });
    [port, wsPort] = [p1, p2];
  });
  afterAll(async () => {
    wss.close();
    await io.close();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });
  const sio = (config: Record<string, unknown>, scenario: Record<string, unknown> = {}) => ({ config: { target: `https://127.0.0.1:${port}`, ...config }, scenarios: [{ engine: 'socketio', flow: [{ emit: { channel: 'x', data: 'y' } }], ...scenario }] }) as never;
  const ws = (config: Record<string, unknown>, flow: unknown[] = [{ send: 'hi' }]) => ({ config: { target: `wss://127.0.0.1:${wsPort}/ws`, ...config }, scenarios: [{ engine: 'ws', flow }] }) as never;

  test('socketio: config.socketio.rejectUnauthorized: false is honoured, and the handshake passes', async () => {
    const spec = preflightSpec(sio({ socketio: { transports: ['websocket'], rejectUnauthorized: false } }), `https://127.0.0.1:${port}`, false);
    expect(spec.insecureTls).toBe(true);
    expect(await probe(spec)).toMatchObject({ ok: true });
    expect(preflightSpec(sio({}, { socketio: { rejectUnauthorized: false } }), 'x', false).insecureTls).toBe(true); // the scenario's own socketio
    // config.tls is applied over config.socketio: its true wins.
    expect(preflightSpec(sio({ socketio: { rejectUnauthorized: false }, tls: { rejectUnauthorized: true } }), 'x', false).insecureTls).toBeUndefined();
  });

  test('ws: config.ws.rejectUnauthorized: false is honoured, and the handshake passes', async () => {
    const spec = preflightSpec(ws({ ws: { rejectUnauthorized: false } }), `wss://127.0.0.1:${wsPort}/ws`, false);
    expect(spec.insecureTls).toBe(true);
    expect(await probe(spec)).toMatchObject({ ok: true });
    // config.ws is applied over config.tls: its true wins.
    expect(preflightSpec(ws({ ws: { rejectUnauthorized: true }, tls: { rejectUnauthorized: false } }), 'x', false).insecureTls).toBeUndefined();
    // A `connect: {…}` first step replaces config.ws: its own key counts, config.ws's does not.
    expect(preflightSpec(ws({}, [{ connect: { target: `wss://127.0.0.1:${wsPort}/ws`, rejectUnauthorized: false } }]), 'x', false).insecureTls).toBe(true);
    expect(preflightSpec(ws({ ws: { rejectUnauthorized: false } }, [{ connect: { target: `wss://127.0.0.1:${wsPort}/ws` } }]), 'x', false).insecureTls).toBeUndefined();
  });

  test('without any of them the probe still stops at tls', async () => {
    expect(await probe(preflightSpec(ws({}), `wss://127.0.0.1:${wsPort}/ws`, false))).toMatchObject({ ok: false, step: 'tls' });
  });

  test("config.ws.rejectUnauthorized: true over -k's config.tls: a generator's probe names that key, not -k (was: \"use -k\", given)", async () => {
    const result = await probe(preflightSpec(ws({ ws: { rejectUnauthorized: true }, tls: { rejectUnauthorized: false } }), `wss://127.0.0.1:${wsPort}/ws`, false));
    expect(result).toMatchObject({ ok: false, step: 'tls', config: true, message: expect.stringMatching(/DEPTH_ZERO_SELF_SIGNED_CERT.*its config\.ws\.rejectUnauthorized: true applies over config\.tls/) });
    expect(result.ok ? '' : result.message).not.toMatch(/use -k/);
  }, 10_000);
});

test("a target with a path: the probe's HTTP step is under it, as Artillery appends a step's url to the whole target", async () => {
  const server = http.createServer((req, res) => {
    res.statusCode = req.url === '/api/items' ? 200 : 404;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const target = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}/api`;
    const result = await probe(preflightSpec({ config: { target }, scenarios: [{ flow: [{ get: { url: '/items' } }] }] } as never, target, false));
    expect(result).toMatchObject({ ok: true, steps: expect.arrayContaining(['http GET /api/items 200']) });
  } finally {
    await new Promise((r) => server.close(r));
  }
});

// A Socket.IO handshake that fails over WebSocket is asked again over plain HTTP (Engine.IO's polling handshake),
// which names the cause instead of listing three possible ones.
describe('why a Socket.IO handshake failed, asked over HTTP', () => {
  const servers: http.Server[] = [];
  const serve = async (handler: http.RequestListener, withIo = false): Promise<string> => {
    const server = http.createServer(handler);
    if (withIo) {
      const { Server } = await import('socket.io');
      new Server(server, { transports: ['polling'] });
    }
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
  };
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  test('a server that is not Socket.IO (any path answers 200 "ok"): config error, its answer quoted', async () => {
    const target = await serve((_q, s) => s.end('ok'));
    const result = await probe({ target, realtime: 'socketio', timeoutMs: 5000 });
    expect(result).toMatchObject({ ok: false, step: 'handshake', config: true, message: expect.stringMatching(/\/socket\.io\/ answered HTTP 200 "ok", not Socket\.IO's handshake: the target is not a Socket\.IO server/) });
    expect(preflightError(result, 'this machine')).toBeInstanceOf(UsageError);
  });

  test('a Socket.IO 2.x server: named, with the upgrade to make (was: "not a Socket.IO server, or the path is wrong")', async () => {
    // Engine.IO 3's polling handshake, byte for byte as socket.io 2.5.1 answers GET /socket.io/?EIO=4&transport=polling.
    const target = await serve((q, s) => {
      if (!q.url?.startsWith('/socket.io/')) return s.writeHead(404).end();
      s.setHeader('content-type', 'text/plain; charset=UTF-8');
      s.end('97:0{"sid":"3IOqjoLIRKcl8n71AAAA","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000}2:40');
    });
    // Over WebSocket, and polling first (a script naming no transports), whose "server error" is no Socket.IO answer.
    for (const transports of [undefined, ['polling', 'websocket']]) {
      const result = await probe({ target, realtime: 'socketio', timeoutMs: 5000, ...(transports ? { realtimeOptions: { transports } } : {}) });
      expect(result).toMatchObject({
        ok: false,
        step: 'handshake',
        config: true,
        message: expect.stringMatching(/Socket\.IO 2\.x answers at \/socket\.io\/ \(Engine\.IO 3's length-prefixed handshake "97:0\{…"\), and Artillery's Socket\.IO client \(4\.x\) cannot connect to it .*: upgrade the server to Socket\.IO 3 or later/),
      });
      expect(result.ok === false && result.message).not.toMatch(/sticky|not a Socket\.IO server|middleware/);
    }
  });

  test('a token Node will not send as a header (a trailing newline): the probe fails at http, and no timer is left to crash the process later', async () => {
    const target = await serve((_q, s) => s.end('ok'));
    const result = await probe({ target, http: { method: 'GET', path: '/set-cookie' }, timeoutMs: 300 }, { authToken: 'secret\n' });
    expect(result).toMatchObject({ ok: false, step: 'http', message: expect.stringMatching(/ERR_INVALID_CHAR/) });
    // Past the step timeout: a timer left armed without its request threw an uncaught ReferenceError here.
    await new Promise((r) => setTimeout(r, 500));
  });

  test("a Socket.IO server with another parser (socket.io-msgpack-parser): it closes the session on CONNECT; named, exit 2 (was: the probe waited with nothing left to wait for, and the run ended with exit 0)", async () => {
    // A decoder that cannot read the default parser's text packets, as msgpack's cannot: Socket.IO closes the client.
    const { EventEmitter } = await import('node:events');
    class Decoder extends EventEmitter {
      add(): void {
        throw new Error('not msgpack');
      }
      destroy(): void {}
    }
    const parser = { Encoder: class { encode(p: unknown) { return [JSON.stringify(p)]; } }, Decoder };
    const server = http.createServer();
    const { Server } = await import('socket.io');
    const io = new Server(server, { parser } as never);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const target = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
      const result = await probe({ target, realtime: 'socketio', timeoutMs: 5000 });
      expect(result).toMatchObject({
        ok: false,
        step: 'handshake',
        config: true,
        message: expect.stringMatching(/closed it on Socket\.IO's CONNECT packet without answering: most likely a server built with another parser \(socket\.io-msgpack-parser/),
      });
      expect(result.ms).toBeLessThan(5000);
      expect(preflightError(result, 'this machine')).toBeInstanceOf(UsageError);
    } finally {
      await io.close();
    }
  });

  describe("Socket.IO's answer to CONNECT, or none, once the session is open (was: 'no HTTP answer' after the timer, or 'the WebSocket upgrade is what fails')", () => {
    const withEngine = async (onMessage: (socket: { send(m: string): void }, message: string) => void) => {
      const server = http.createServer();
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const engine = require('engine.io') as { attach(s: http.Server, o: object): { on(e: string, f: (s: { on(e: string, f: (m: string) => void): void; send(m: string): void }) => void): void; close(): void } };
      const eio = engine.attach(server, { path: '/socket.io/' });
      eio.on('connection', (socket) => socket.on('message', (m) => onMessage(socket, String(m))));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      servers.push(server);
      return `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
    };

    test('a DISCONNECT instead of the CONNECT answer: named, config error', async () => {
      const target = await withEngine((socket, m) => m.startsWith('0') && socket.send('1'));
      const result = await probe({ target, realtime: 'socketio', timeoutMs: 5000 });
      expect(result).toMatchObject({ ok: false, step: 'handshake', config: true, message: expect.stringMatching(/the server disconnected the new socket instead of connecting it/) });
      expect(result.ms).toBeLessThan(4000);
    });

    test('CONNECT never answered: the target\'s failure, said as that (not "no HTTP answer")', async () => {
      const target = await withEngine(() => undefined);
      const result = await probe({ target, realtime: 'socketio', timeoutMs: 1000 });
      expect(result).toMatchObject({ ok: false, step: 'handshake', config: false, message: expect.stringMatching(/CONNECT got no answer within 2 s\): the target accepted the session but its Socket\.IO server never answered the CONNECT packet/) });
    });

    test('a namespace the server does not have (the target URL\'s path): config error naming it', async () => {
      const server = http.createServer();
      const { Server } = await import('socket.io');
      const io = new Server(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const target = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}/nope`;
        const result = await probe({ target, realtime: 'socketio', timeoutMs: 5000 });
        expect(result).toMatchObject({ ok: false, step: 'handshake', config: true, message: expect.stringMatching(/the server has no Socket\.IO namespace \/nope; .*drop the path from the target/) });
      } finally {
        await io.close();
      }
    });

    test("a middleware's refusal in its own words: config error quoting it (was: the upgrade or sticky sessions)", async () => {
      const server = http.createServer();
      const { Server } = await import('socket.io');
      const io = new Server(server);
      io.use((_socket, next) => next(new Error('forbidden: tenant missing')));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const target = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
        const result = await probe({ target, realtime: 'socketio', timeoutMs: 5000 });
        expect(result).toMatchObject({ ok: false, step: 'handshake', config: true, message: expect.stringMatching(/the server's Socket\.IO middleware refused the connection with "forbidden: tenant missing"/) });
      } finally {
        await io.close();
      }
    });
  });

  test('nothing at the path (404): config error naming --var socketPath', async () => {
    const target = await serve((_q, s) => {
      s.statusCode = 404;
      s.end();
    });
    const result = await probe({ target, realtime: 'socketio', timeoutMs: 5000 });
    expect(result).toMatchObject({ ok: false, step: 'handshake', config: true, message: expect.stringMatching(/nothing answers at \/socket\.io\/ \(HTTP 404\): .*--var socketPath=\/path/) });
  });

  test('Socket.IO that allows only long-polling: the upgrade is named as what fails (the target, exit 3); a script that polls only passes', async () => {
    const target = await serve(() => undefined, true);
    const result = await probe({ target, realtime: 'socketio', timeoutMs: 5000 });
    expect(result).toMatchObject({ ok: false, step: 'handshake', config: false, message: expect.stringMatching(/Socket\.IO answers over HTTP long-polling at that path, so the WebSocket upgrade is what fails/) });
    expect(preflightError(result, 'this machine')).toBeInstanceOf(RigError);
    // config.socketio.transports: ['polling'] (the script never upgrades): the probe connects the same way.
    const script = { config: { socketio: { transports: ['polling'] } }, scenarios: [{ engine: 'socketio', flow: [] }] };
    expect(await probe(preflightSpec(script, target, false))).toMatchObject({ ok: true });
    // A socketio-engine script that names no transports polls first and stays on polling when the upgrade fails, as
    // plain `artillery run` runs it (the probe refused such a run); one that names websocket alone does not.
    const polling = { config: {}, scenarios: [{ engine: 'socketio', flow: [{ emit: { channel: 'q', data: 'x' } }] }] };
    expect(await probe(preflightSpec(polling, target, false))).toMatchObject({ ok: true });
    const wsOnly = { config: { socketio: { transports: ['websocket'] } }, scenarios: [{ engine: 'socketio', flow: [] }] };
    expect(await probe(preflightSpec(wsOnly, target, false))).toMatchObject({ ok: false, step: 'handshake', config: false });
  }, 30_000);

  test("a polling script at a target that loses polling sessions between requests (several processes, no sticky sessions): named as that, not as a dropped upgrade", async () => {
    // Each process knows only its own sessions: every request after the handshake is answered by "another" one.
    const target = await serve((q, s) => {
      if (/[?&]sid=/.test(q.url ?? '')) {
        s.statusCode = 400;
        s.setHeader('content-type', 'application/json');
        return s.end(JSON.stringify({ code: 1, message: 'Session ID unknown' }));
      }
      s.setHeader('content-type', 'text/plain; charset=UTF-8');
      s.end('0{"sid":"abc","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}');
    });
    const polling = { config: {}, scenarios: [{ engine: 'socketio', flow: [{ emit: { channel: 'q', data: 'x' } }] }] };
    const result = await probe(preflightSpec(polling, target, false));
    expect(result).toMatchObject({ ok: false, step: 'handshake', config: false });
    expect(result.ok ? '' : result.message).toMatch(/the probe's polling session did not last from one request to the next, .*without sticky sessions .*make the target's sessions sticky, or set transports: \["websocket"\] under config\.socketio, and under every scenario's/);
  }, 30_000);
});

test("a WebSocket target that checks a header and a subprotocol: the probe sends the script's config.ws ones", async () => {
  // ws 7 (the version Artillery and this repository resolve) names its server class Server.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Server: WebSocketServer } = require('ws') as { Server: new (o: object) => { close(): void } };
  const server = http.createServer();
  const wss = new WebSocketServer({ server, verifyClient: (info: { req: http.IncomingMessage }) => info.req.headers['x-key'] === 'k', handleProtocols: (p: string[]) => ([...p].includes('v1') ? 'v1' : false) });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `ws://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}/feed`;
  try {
    expect(await probe({ target: url, realtime: 'websocket', realtimeOptions: { headers: { 'x-key': 'k' }, subprotocols: ['v1'] } })).toMatchObject({ ok: true });
    expect(await probe({ target: url, realtime: 'websocket' })).toMatchObject({ ok: false, step: 'handshake', message: expect.stringMatching(/upgrade answered 401/) });
  } finally {
    wss.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

// A first step whose answer never ends (server-sent events, a long poll) used to keep the probe waiting for its 'end',
// its socket timeout reset by every chunk: `GET /events` on a server streaming a chunk a second kept `npm run
// loadtest` alive 12+ minutes. The probe needs the status, the headers and the body's first 200 characters.
describe('a first HTTP step whose answer streams on and never ends', () => {
  const closed: string[] = [];
  let port = 0;
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
    // /big: more than the 200 characters the probe reads, at once; /cut: a few, then the connection drops; /silent:
    // none; /events: a short chunk every 100 ms, forever.
    if (req.url === '/big') res.write(`data: ${'x'.repeat(300)}\n\n`);
    if (req.url === '/cut') res.write('data: a\n\n', () => res.destroy());
    const timer = req.url === '/events' || req.url === '/big' ? setInterval(() => res.write('data: tick\n\n'), 100) : undefined;
    res.on('close', () => {
      clearInterval(timer);
      closed.push(req.url ?? '');
    });
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as import('node:net').AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  test('a trickle of chunks: the probe ends within the step timeout, with the status, and closes the stream', async () => {
    const result = await settlesWithin(probe({ target: `http://127.0.0.1:${port}`, http: { method: 'GET', path: '/events' }, httpStatusAdvisory: true, timeoutMs: 1000 }), 10_000);
    expect(result).toMatchObject({ ok: true, steps: expect.arrayContaining(['http GET /events 200']) });
    await until(() => closed.includes('/events'), { what: 'the server saw the probe close the stream' });
  });

  test('headers and then silence: the status is the answer, given at the step timeout (not "no HTTP answer")', async () => {
    const result = await settlesWithin(probe({ target: `http://127.0.0.1:${port}`, http: { method: 'GET', path: '/silent' }, timeoutMs: 1000 }), 10_000);
    expect(result).toMatchObject({ ok: true, steps: expect.arrayContaining(['http GET /silent 200']) });
    await until(() => closed.includes('/silent'), { what: 'the server saw the probe close the stream' });
  });

  test("200 characters at once: the probe reads them and goes on, well before the step's timeout", async () => {
    const result = await settlesWithin(probe({ target: `http://127.0.0.1:${port}`, http: { method: 'GET', path: '/big' }, timeoutMs: 30_000 }), 10_000);
    expect(result).toMatchObject({ ok: true, steps: expect.arrayContaining(['http GET /big 200']) });
    await until(() => closed.includes('/big'), { what: 'the server saw the probe close the stream' });
  });

  test('an answer cut off before its end and its first 200 characters: the step fails, naming it', async () => {
    const result = await settlesWithin(probe({ target: `http://127.0.0.1:${port}`, http: { method: 'GET', path: '/cut' }, timeoutMs: 30_000 }), 10_000);
    expect(result).toMatchObject({ ok: false, step: 'http', config: false, message: expect.stringMatching(/^HTTP GET \/cut failed \(ECONNRESET: /) });
  });
});
