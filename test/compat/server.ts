/**
 * The small loopback server the compatibility suite aims its scripts at: HTTP (JSON items, a login
 * that returns a token, a route that needs it), Socket.IO (rooms, acks) and a plain WebSocket echo on
 * /ws — one port, every engine. It counts nothing itself: the suite compares Artillery's counters.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server as SocketIoServer } from 'socket.io';
// The plain-WebSocket server comes from `ws`, the library Artillery's ws engine is built on.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Server: WebSocketServer } = require('ws') as { Server: new (o: { noServer: boolean }) => WsServer };

interface WsSocket {
  on(event: 'message', cb: (data: Buffer) => void): void;
  send(data: Buffer | string): void;
}
interface WsServer {
  handleUpgrade(req: http.IncomingMessage, socket: import('node:stream').Duplex, head: Buffer, cb: (ws: WsSocket) => void): void;
  on(event: 'connection', cb: (ws: WsSocket) => void): void;
  emit(event: 'connection', ws: WsSocket): void;
  close(): void;
}

/** A running compat server. */
export interface CompatServer {
  readonly port: number;
  close(): Promise<void>;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Starts the server on 127.0.0.1 (any free port). */
export async function startCompatServer(): Promise<CompatServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const item = /^\/items\/([\w-]+)$/.exec(url.pathname);
    if (req.method === 'GET' && item) return json(res, 200, { id: item[1], name: `item ${item[1]}` });
    if (req.method === 'POST' && url.pathname === '/login') {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const user = (JSON.parse(body || '{}') as { user?: string }).user ?? 'anon';
        json(res, 200, { token: `tok-${user}` });
      });
      return;
    }
    if (req.method === 'GET' && url.pathname === '/me') {
      const auth = req.headers.authorization ?? '';
      return auth.startsWith('Bearer tok-') ? json(res, 200, { user: auth.slice('Bearer tok-'.length) }) : json(res, 401, { error: 'no token' });
    }
    if (req.method === 'GET' && url.pathname === '/missing') return json(res, 404, { error: 'not here' });
    json(res, 404, { error: 'not found' });
  });
  const io = new SocketIoServer(server, { destroyUpgrade: false });
  io.on('connection', (socket) => {
    socket.on('join_room', (room: string, ack?: (r: unknown) => void) => {
      void socket.join(room);
      ack?.({ ok: true, room });
    });
    socket.on('echo', (data: unknown, ack?: (r: unknown) => void) => ack?.(data));
    socket.on('publish', (msg: { room: string }) => io.to(msg.room).emit('message', msg));
  });
  const wss = new WebSocketServer({ noServer: true });
  wss.on('connection', (ws) => ws.on('message', (data) => ws.send(data)));
  server.on('upgrade', (req, socket, head) => {
    if ((req.url ?? '').startsWith('/ws')) wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws));
  });
  // Every socket is destroyed on close (ws 7 leaves its clients open): nothing outlives the suite.
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        wss.close();
        server.close(() => resolve());
        for (const sock of sockets) sock.destroy();
        void io.close();
      }),
  };
}
