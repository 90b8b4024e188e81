import * as http from 'node:http';
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
