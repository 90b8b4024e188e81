/**
 * A small Socket.IO target on loopback for the built-in scenarios' processors: `GET <prefix>/set-cookie`,
 * `POST <prefix>/publish`, `GET <prefix>/time` and Socket.IO at `path`, with the reference target's events
 * (`subscribe`, `publish`, `echo`) — but delivery is up to the test: `deliver: false` acks every subscribe and
 * publish and delivers nothing, as a broken pub/sub service would.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';

/** Options of {@link startSocketIoServer}. */
export interface SocketIoServerOptions {
  /** Path prefix of the HTTP routes. @default '' */
  readonly prefix?: string;
  /** Socket.IO's path. @default `${prefix}/socket.io` */
  readonly path?: string;
  /** Deliver `message` events to room members. @default true */
  readonly deliver?: boolean;
  /** Refuse every connection in a middleware with this message (a `connect_error` from the server). */
  readonly reject?: string;
  /** With `reject`: admit this many connections first (the rig's preflight probe is one), then refuse. @default 0 */
  readonly admitFirst?: number;
}

/** A running loopback server: its base URL (with the prefix), what it saw, and `close`. */
export interface SocketIoServer {
  readonly base: string;
  readonly port: number;
  /** Namespaces clients connected to, one entry per connection. */
  readonly namespaces: string[];
  /** Publishes it acked (socket emits and POSTs). */
  publishes: number;
  /** `echo` emits it answered. */
  readonly echoes: number;
  close(): Promise<void>;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => resolve(body));
  });
}

/** Starts the server on 127.0.0.1 and a free port. */
export async function startSocketIoServer(opts: SocketIoServerOptions = {}): Promise<SocketIoServer> {
  const prefix = opts.prefix ?? '';
  const deliver = opts.deliver ?? true;
  const state = { namespaces: [] as string[], publishes: 0, echoes: 0 };
  const httpServer = http.createServer(async (req, res) => {
    const url = req.url ?? '';
    if (url === `${prefix}/set-cookie`) {
      res.setHeader('set-cookie', 'sid=abc; Path=/; HttpOnly');
      return res.end('{"ok":true}');
    }
    if (url === `${prefix}/time`) return res.end(JSON.stringify({ now: Date.now() }));
    if (url === `${prefix}/publish` && req.method === 'POST') {
      const { room, payload } = JSON.parse(await readBody(req)) as { room: string; payload: unknown };
      state.publishes++;
      if (deliver) io.to(room).emit('message', { room, payload, serverAt: Date.now() });
      return res.end('{"ok":true}');
    }
    res.statusCode = 404;
    res.end();
  });
  const io = new Server(httpServer, { path: opts.path ?? `${prefix}/socket.io`, serveClient: false, connectionStateRecovery: { maxDisconnectionDuration: 120_000, skipMiddlewares: true } });
  let admitted = 0;
  if (opts.reject !== undefined) io.use((_socket, next) => (admitted++ < (opts.admitFirst ?? 0) ? next() : next(new Error(opts.reject))));
  io.on('connection', (socket) => {
    state.namespaces.push(socket.nsp.name);
    socket.on('subscribe', (room: string, ack?: (r: unknown) => void) => {
      void socket.join(room);
      ack?.({ ok: true });
    });
    socket.on('publish', (msg: { room: string; payload: unknown }, ack?: (r: unknown) => void) => {
      state.publishes++;
      if (deliver) io.to(msg.room).emit('message', { room: msg.room, payload: msg.payload, serverAt: Date.now() });
      ack?.({ ok: true });
    });
    socket.on('echo', (data: unknown, ack?: (r: unknown) => void) => {
      state.echoes++;
      ack?.(data);
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const port = (httpServer.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}${prefix}`,
    port,
    get namespaces() {
      return state.namespaces;
    },
    get publishes() {
      return state.publishes;
    },
    set publishes(n: number) {
      state.publishes = n;
    },
    get echoes() {
      return state.echoes;
    },
    close: async () => {
      io.disconnectSockets(true);
      await new Promise<void>((resolve) => io.close(() => resolve()));
    },
  };
}
