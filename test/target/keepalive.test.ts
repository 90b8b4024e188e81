/**
 * The reference target keeps an idle keep-alive connection open past Node's 5-s default, as a load balancer in front
 * of it needs (target-stack/app/http-timeouts.js; test/cdk/target-keepalive.test.ts compares it with the ALB).
 */
import * as net from 'node:net';
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

test('an idle keep-alive connection is still served after 6 s (Node closes it after 5 s by default: a 502 behind an ALB)', async () => {
  target = await startTarget({ WORKERS: '1' });
  const { port } = target.listening;
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let closed = false;
  socket.on('close', () => (closed = true));
  try {
    expect(await request(socket, port)).toMatch(/^HTTP\/1\.1 200/);
    await new Promise((r) => setTimeout(r, 6000));
    expect({ closedByTarget: closed }).toEqual({ closedByTarget: false });
    expect(await request(socket, port)).toMatch(/^HTTP\/1\.1 200/);
  } finally {
    socket.destroy();
  }
}, 30_000);
