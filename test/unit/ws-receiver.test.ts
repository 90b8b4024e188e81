import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { Server } from 'socket.io';
import { io } from 'socket.io-client';

const MODULE = path.resolve(__dirname, '../../load-generators/plugins/artillery-plugin-rig/ws-receiver.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { quietSecondEnd, wsReceivers } = require(MODULE) as {
  quietSecondEnd(Receiver: { prototype: any }): boolean;
  wsReceivers(): Array<new (...args: any[]) => Writable>;
};

/** Every call of Node's Writable end(), with whether the stream was already ending (the case that builds a dropped error). */
function spyOnEnd() {
  const calls: Array<{ stream: Writable; args: number; wasEnding: boolean }> = [];
  const original = Writable.prototype.end;
  const spy = jest.spyOn(Writable.prototype, 'end').mockImplementation(function (this: Writable, ...args: any[]) {
    calls.push({ stream: this, args: args.length, wasEnding: this.writableEnded });
    return (original as (...a: any[]) => Writable).apply(this, args);
  });
  return { calls, restore: () => spy.mockRestore() };
}

/**
 * One Socket.IO connection over WebSocket on loopback, closed by the client; resolves once the server saw it go and
 * the client's `ws` emitted 'close' (after its socket's 'end' and 'close' listeners ran).
 */
async function connectAndClose(url: string, server: Server): Promise<string> {
  const serverSaw = new Promise<string>((resolve) => server.once('connection', (s) => s.once('disconnect', (reason) => resolve(reason))));
  const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const ws = (socket.io.engine.transport as unknown as { ws: import('node:events').EventEmitter }).ws;
  const wsClosed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  socket.disconnect();
  await wsClosed;
  return serverSaw;
}

describe("ws's frame parser ended once, not twice (ws-receiver.js)", () => {
  const receivers = wsReceivers();
  const [Receiver] = receivers;
  let httpServer: http.Server;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    httpServer = http.createServer();
    server = new Server(httpServer, { transports: ['websocket'] });
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await new Promise((resolve) => httpServer.close(resolve));
  });

  test('finds the Receiver of the ws copy socket.io-client uses (and of the one Artillery loads)', () => {
    expect(receivers.length).toBeGreaterThanOrEqual(1);
    for (const R of receivers) expect(R.prototype).toBeInstanceOf(Writable);
  });

  test("a real Socket.IO close ends the client's parser twice without it, once with it; both ends still see the close", async () => {
    const isClientParser = (s: Writable) => s instanceof Receiver!;
    const spy = spyOnEnd(); // installed first, so the wrapper's own call of Node's end() goes through it too
    try {
      expect(await connectAndClose(url, server)).toBe('client namespace disconnect');
      const before = spy.calls.splice(0);
      // Without the wrapper, ws's 'end' and 'close' listeners both end the parser: the second builds an error.
      expect(before.filter((c) => isClientParser(c.stream) && c.wasEnding).length).toBeGreaterThanOrEqual(1);

      expect(quietSecondEnd(Receiver!)).toBe(true);
      expect(await connectAndClose(url, server)).toBe('client namespace disconnect');
      const after = spy.calls.splice(0);
      expect(after.filter((c) => isClientParser(c.stream)).length).toBe(1); // the first end() still runs
      expect(after.filter((c) => isClientParser(c.stream) && c.wasEnding)).toEqual([]);
    } finally {
      spy.restore();
    }
  });

  test("every other end() is Node's own: the same sequence of calls gives the same results with and without it", async () => {
    const make = () =>
      class extends Writable {
        chunks: string[] = [];
        override _write(chunk: Buffer, _enc: string, cb: () => void) {
          this.chunks.push(chunk.toString());
          cb();
        }
      };
    const Plain = make();
    const Quiet = make();
    expect(quietSecondEnd(Quiet)).toBe(true);
    expect(quietSecondEnd(Quiet)).toBe(false); // idempotent
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    const code = (e: unknown) => (e as NodeJS.ErrnoException | null | undefined)?.code ?? null;
    /** corked end, first end with a chunk, the quiet case, an end with a callback, a chunk after the end */
    const sequence = async (w: InstanceType<typeof Plain>) => {
      const seen: unknown[] = [];
      w.on('error', (e) => seen.push(`error ${code(e)}`));
      w.on('finish', () => seen.push('finish'));
      w.cork();
      w.write('a');
      w.end('last');
      seen.push(w.end() === w, w.writableEnded);
      await tick();
      seen.push(w.end() === w, w.chunks.join(','));
      seen.push(`callback ${code(await new Promise((resolve) => w.end(resolve)))}`);
      seen.push(`late callback ${code(await new Promise((resolve) => w.end('late', ((e: unknown) => resolve(e)) as () => void)))}`);
      await tick();
      return seen;
    };
    const plain = await sequence(new Plain());
    expect(await sequence(new Quiet())).toEqual(plain);
    expect(plain).toEqual([true, true, 'finish', true, 'a,last', 'callback ERR_STREAM_ALREADY_FINISHED', 'late callback ERR_STREAM_WRITE_AFTER_END']);
  });
});
