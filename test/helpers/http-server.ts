import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

/** An HTTP server on loopback (127.0.0.1, a free port) for a test's target; `close` stops it, open answers included. */
export async function loopbackHttpServer(handler: http.RequestListener = (_req, res) => res.end('ok')): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // an answer still streaming (a test's endless one) would hold close() for ever
      }),
  };
}

/** What a trickling server saw: answers (connections) the client has not let go of yet, and all it got. */
export interface Trickled {
  /** Answers still streaming: the client has not closed their connection. */
  readonly open: () => number;
  /** Requests (connections) received. */
  readonly received: () => number;
}

/**
 * A handler that answers its status and headers, then a byte every `everyMs` for ever (an answer that never ends, or
 * one that is very slow): what a request bounded only by a socket timeout, restarted by every chunk, waited on for ever.
 */
export function tricklingAnswer(headers: http.OutgoingHttpHeaders = {}, everyMs = 20, status = 200): Trickled & { handler: http.RequestListener } {
  let open = 0;
  let received = 0;
  return {
    open: () => open,
    received: () => received,
    handler: (_req, res) => {
      received++;
      open++;
      res.writeHead(status, headers).flushHeaders();
      const timer = setInterval(() => res.write(' '), everyMs);
      res.on('close', () => {
        clearInterval(timer);
        open--;
      });
    },
  };
}

/**
 * A TCP server on loopback that starts an HTTP answer to any request and never ends its headers: the status line, then
 * a header line every `everyMs`, for ever (a client waiting for the headers waits for ever, unless bounded as a whole).
 */
export async function tricklingHeadersServer(everyMs = 20): Promise<Trickled & { port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let received = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let timer: NodeJS.Timeout | undefined;
    socket.on('error', () => {}); // the client's reset of a connection it gave up on
    socket.once('data', () => {
      received++;
      socket.write('HTTP/1.1 200 OK\r\n');
      let n = 0;
      timer = setInterval(() => socket.write(`x-trickle-${n++}: ${'x'.repeat(8)}\r\n`), everyMs);
    });
    socket.on('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    open: () => sockets.size,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
