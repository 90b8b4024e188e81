/**
 * The rig's openSocket (load-generators/processors/connect.js) bounds the whole Socket.IO connect. socket.io-client's
 * `timeout` bounds only the Engine.IO session's opening: a target that opened the session and never answered the
 * Socket.IO CONNECT, or closed the session before answering it (a 'disconnect' and no 'connect_error'), held the
 * vuser for ever — under plain Artillery and the rig alike, a run that never ended.
 */
import { EventEmitter } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { attach } from 'engine.io';
import { settlesWithin } from '../helpers/wait';

type Connect = typeof import('../../load-generators/processors/connect');

function counting() {
  const events = new EventEmitter();
  const counters: Record<string, number> = {};
  events.on('counter', (name: string, v: number) => (counters[name] = (counters[name] ?? 0) + v));
  return { events, counters };
}

/** An Engine.IO server at /socket.io/ (no Socket.IO on it): `onMessage` decides what a client's packet gets. */
async function engineOnly(onMessage: (socket: { close(): void }) => void): Promise<{ url: string; close: () => Promise<void>; sessions: () => number }> {
  const server = http.createServer();
  const engine = attach(server, { path: '/socket.io/' });
  let sessions = 0;
  engine.on('connection', (socket) => {
    sessions++;
    socket.on('message', () => onMessage(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sessions: () => sessions,
    close: async () => {
      engine.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('openSocket: the whole Socket.IO connect within its deadline', () => {
  let connect: Connect;
  beforeAll(() => {
    delete process.env.RIG_SOURCE_ADDRESS;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    connect = require('../../load-generators/processors/connect') as Connect;
  });

  test('a session opened and the CONNECT never answered: fails at the deadline, counted as a timeout', async () => {
    const target = await engineOnly(() => undefined);
    try {
      const { events, counters } = counting();
      const err = await settlesWithin(connect.openSocketWithin({ vars: { target: target.url } }, events, 300), 5000).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'WS_CONNECT_FAILED', message: 'socket.io connect failed: timeout' });
      expect(target.sessions()).toBe(1);
      expect(counters).toEqual({ 'ws.connect_failed': 1, 'ws.connect_failed_reason.timeout': 1 });
    } finally {
      await target.close();
    }
  });

  test('a session closed before the CONNECT was answered: fails at once with the close reason', async () => {
    const target = await engineOnly((socket) => socket.close());
    try {
      const { events, counters } = counting();
      const started = Date.now();
      const err = await settlesWithin(connect.openSocketWithin({ vars: { target: target.url } }, events, 20_000), 5000).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'WS_CONNECT_FAILED', message: 'socket.io connect failed: transport close' });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(counters).toEqual({ 'ws.connect_failed': 1, 'ws.connect_failed_reason.transport_close': 1 });
    } finally {
      await target.close();
    }
  });

  // The review's case: a DISCONNECT in the same read as the CONNECT's answer came before the drop listener was added.
  test('a connection the target drops as soon as it is made: connected, then counted as dropped', async () => {
    const { Server } = await import('socket.io');
    const server = http.createServer();
    const io = new Server(server);
    io.on('connection', (socket) => socket.disconnect(true));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { events, counters } = counting();
      const context: { vars: Record<string, string>; rigSocket?: { dropped: boolean; socket: { close(): void } } } = { vars: { target: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } };
      await settlesWithin(connect.openSocketWithin(context, events, 2000), 5000);
      expect(counters).toEqual({ 'ws.connected': 1, 'ws.dropped': 1, 'ws.dropped.io_server_disconnect': 1 });
      expect(context.rigSocket?.dropped).toBe(true);
      context.rigSocket?.socket.close();
    } finally {
      await io.close();
    }
  });
});
