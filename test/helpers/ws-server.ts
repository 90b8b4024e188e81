/** A WebSocket server on loopback for end-to-end tests: its `ws://` base URL once it listens, and `close`. */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';

export interface LoopbackWsServer {
  readonly base: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (a free port) and hands every connection to `onConnection`. */
export async function loopbackWsServer(onConnection: (ws: WebSocket, req: IncomingMessage) => void): Promise<LoopbackWsServer> {
  const wss = new WebSocket.Server({ host: '127.0.0.1', port: 0 });
  wss.on('connection', onConnection);
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  return {
    base: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => wss.close(() => resolve())),
  };
}
