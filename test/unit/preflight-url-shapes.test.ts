/**
 * The preflight probes what the run will use: every step (the HTTP step, the Socket.IO or WebSocket handshake) goes
 * with the target's credentials, path and query, as Artillery's engines and the built-in flow send them. Each row is
 * a target that checks what a vuser sends, on loopback; the probe used to rebuild the URL from its host and lose
 * them (401 on a Basic-auth cookie step, an upgrade without the query's token, namespace / instead of /chat).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { preflightSpec } from '../../scripts/preflight';
import type { ArtilleryScript } from '../../scripts/scenario';

import { probe } from '../../load-generators/lib/preflight';

jest.setTimeout(30_000);

const BASIC = `Basic ${Buffer.from('bob:pass99').toString('base64')}`;
/** What the servers received, per request: `GET /path?query auth`. */
const seen: string[] = [];
const servers: http.Server[] = [];
let plainPort = 0; // HTTP + WebSocket, checking Basic auth and ?token=T
let sioPort = 0; // Socket.IO, namespace /chat only, checking ?token=T
let basePort = 0; // HTTP + Socket.IO under the prefix /base (path /base/socket.io), namespace / only

async function listen(server: http.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** The target's check: Basic bob:pass99, or ?token=T anywhere in the URL. */
const allowed = (req: http.IncomingMessage): boolean => req.headers.authorization === BASIC || /[?&]token=T(\/|&|$)/.test(req.url ?? '');

beforeAll(async () => {
  const plain = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'}`);
    res.statusCode = allowed(req) ? 200 : 401;
    if (res.statusCode === 200) res.setHeader('set-cookie', 'sid=1; Path=/');
    res.end();
  });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Server: WebSocketServer } = require('ws') as { Server: new (o: object) => unknown };
  new WebSocketServer({
    server: plain,
    verifyClient: (info: { req: http.IncomingMessage }) => {
      seen.push(`UPGRADE ${info.req.url} ${info.req.headers.authorization ?? '-'}`);
      return allowed(info.req);
    },
  });
  plainPort = await listen(plain);
  const sio = http.createServer();
  const { Server } = await import('socket.io');
  const io = new Server(sio);
  io.of('/').use((_socket, next) => next(new Error('namespace / is not served here')));
  io.of('/chat').use((socket, next) => {
    seen.push(`SIO /chat token=${String(socket.handshake.query.token)}`);
    next(socket.handshake.query.token === 'T' ? undefined : new Error('unauthorized'));
  });
  sioPort = await listen(sio);
  const prefixed = http.createServer((req, res) => {
    if (req.url?.startsWith('/base/socket.io')) return; // Socket.IO's own
    seen.push(`${req.method} ${req.url} -`);
    res.statusCode = req.url === '/base/set-cookie' ? 200 : 404;
    if (res.statusCode === 200) res.setHeader('set-cookie', 'sid=1; Path=/');
    res.end();
  });
  const underBase = new Server(prefixed, { path: '/base/socket.io' });
  underBase.of('/').use((_socket, next) => {
    seen.push('SIO /base/socket.io namespace /');
    next();
  });
  basePort = await listen(prefixed);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});
beforeEach(() => seen.splice(0));

const builtIn = (target: string) => preflightSpec({ config: {}, scenarios: [{ flow: [{ function: 'fetchCookie' }, { function: 'openSocket' }] }] } as never, target, true);
const script = (engine: string | undefined, flow: unknown[]) => ({ config: {}, scenarios: [{ ...(engine ? { engine } : {}), flow }] }) as unknown as ArtilleryScript;

interface Row {
  readonly name: string;
  readonly target: () => string;
  readonly spec: (target: string) => ReturnType<typeof preflightSpec>;
  /** What the target must have received from the probe. */
  readonly received: string[];
}

const rows: Row[] = [
  {
    name: 'user:password on a built-in cookie step (GET /set-cookie with Basic auth, as the run sends it)',
    target: () => `http://bob:pass99@127.0.0.1:${plainPort}`,
    // The handshake is the next step: only the cookie request is asserted here.
    spec: (t) => ({ ...builtIn(t), realtime: undefined }),
    received: [`GET /set-cookie ${BASIC}`],
  },
  {
    name: 'a built-in at a target with a path prefix: /set-cookie and /socket.io appended to it as text, namespace / (as connect.js connects)',
    target: () => `http://127.0.0.1:${basePort}/base/`,
    spec: (t) => builtIn(t),
    received: ['GET /base/set-cookie -', 'SIO /base/socket.io namespace /'],
  },
  {
    name: "?token= on a user HTTP script: its first GET is target + url as text, as Artillery requests it",
    target: () => `http://127.0.0.1:${plainPort}/?token=T`,
    spec: (t) => preflightSpec(script(undefined, [{ get: { url: '/' } }]), t, false),
    received: ['GET /?token=T/ -'],
  },
  {
    name: 'ws:// with ?token= (engine ws): the upgrade carries the query',
    target: () => `ws://127.0.0.1:${plainPort}/feed?token=T`,
    spec: (t) => preflightSpec(script('ws', [{ send: 'hi' }]), t, false),
    received: ['UPGRADE /feed?token=T -'],
  },
  {
    name: 'ws:// with user:password (engine ws): the upgrade carries Basic auth',
    target: () => `ws://bob:pass99@127.0.0.1:${plainPort}/feed`,
    spec: (t) => preflightSpec(script('ws', [{ send: 'hi' }]), t, false),
    received: [`UPGRADE /feed ${BASIC}`],
  },
  {
    name: 'a Socket.IO script whose target names the namespace /chat, with the token in the query',
    target: () => `http://127.0.0.1:${sioPort}/chat?token=T`,
    spec: (t) => preflightSpec(script('socketio', [{ emit: { channel: 'x', data: 'y' } }]), t, false),
    received: ['SIO /chat token=T'],
  },
  {
    name: "ws:// at Socket.IO's own endpoint (/socket.io/?EIO=4&transport=websocket, engine ws)",
    target: () => `ws://127.0.0.1:${sioPort}/socket.io/?EIO=4&transport=websocket`,
    spec: (t) => preflightSpec(script('ws', [{ send: '40/chat,' }]), t, false),
    received: [],
  },
];

describe('the preflight probes the target as the run uses it: credentials, path and query', () => {
  test.each(rows)('$name', async (row) => {
    const result = await probe(row.spec(row.target()));
    expect(result).toMatchObject({ ok: true });
    expect(seen).toEqual(row.received);
    // The probe's own lines show no query value.
    expect(result.steps.join('; ')).not.toMatch(/token=T/);
  });
});
