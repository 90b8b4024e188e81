/**
 * The reference target keeps an idle keep-alive connection open past Node's 5-s default, as a load balancer in front
 * of it needs (target-stack/app/http-timeouts.js; test/cdk/target-keepalive.test.ts compares it with the ALB).
 */
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startTarget, Target } from './helpers';

let target: Target | undefined;
afterEach(async () => {
  await target?.stop();
  target = undefined;
});

/** Sends one keep-alive GET on `socket` and resolves with the status line of its answer. */
function request(socket: net.Socket, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (d: Buffer) => {
      text += d.toString('utf8');
      if (/\r\n\r\n/.test(text)) {
        socket.off('data', onData);
        socket.off('close', onClose);
        resolve(text.split('\r\n')[0] ?? '');
      }
    };
    const onClose = () => reject(new Error('the target closed the keep-alive connection'));
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

/** A keep-alive connection to `port`, with a flag set when the server closes it. */
async function idleConnection(port: number): Promise<{ socket: net.Socket; closed: Promise<void>; isClosed: () => boolean }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let isClosed = false;
  const closed = new Promise<void>((resolve) => socket.once('close', () => ((isClosed = true), resolve())));
  return { socket, closed, isClosed: () => isClosed };
}

test("an idle keep-alive connection outlives Node's default keep-alive timeout (5 s: a 502 behind an ALB that reuses it)", async () => {
  target = await startTarget({ WORKERS: '1' });
  const { port } = target.listening;
  // The control: a server with Node's defaults, served and left idle at the same moment as the target.
  const control = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  const controlPort = (control.address() as AddressInfo).port;
  const [mine, theirs] = [await idleConnection(port), await idleConnection(controlPort)];
  try {
    expect(await request(mine.socket, port)).toMatch(/^HTTP\/1\.1 200/);
    expect(await request(theirs.socket, controlPort)).toMatch(/^HTTP\/1\.1 200/);
    // Waits for the condition, not a fixed time: Node's default timeout has closed the control's idle connection.
    await theirs.closed;
    expect({ closedByTarget: mine.isClosed() }).toEqual({ closedByTarget: false });
    expect(await request(mine.socket, port)).toMatch(/^HTTP\/1\.1 200/);
  } finally {
    mine.socket.destroy();
    theirs.socket.destroy();
    await new Promise((resolve) => control.close(resolve));
  }
}, 30_000);
