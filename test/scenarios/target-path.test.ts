/**
 * A path prefix in the target is a prefix of the built-ins' HTTP routes and of Socket.IO's path, never a
 * Socket.IO namespace (docs/scenarios.md, "Which target"): the processors connect to namespace `/` at
 * `<prefix><socketPath>`. Before, `io('http://host/base')` asked for namespace `/base` (every vuser failed
 * WS_CONNECT_FAILED, "Invalid namespace").
 */
import { EventEmitter } from 'node:events';
import { SocketIoServer, startSocketIoServer } from '../helpers/socketio-server';

type Connect = {
  fetchCookie(context: any, events: EventEmitter): Promise<void>;
  openSocket(context: any, events: EventEmitter): Promise<void>;
  closeSocket(context: any, events: EventEmitter): Promise<void>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const connect = require('../../load-generators/processors/connect') as Connect;

function counting() {
  const events = new EventEmitter();
  const counters: Record<string, number> = {};
  events.on('counter', (name: string, v: number) => (counters[name] = (counters[name] ?? 0) + v));
  return { events, counters };
}

async function connectOnce(target: string, vars: Record<string, unknown> = {}) {
  const { events, counters } = counting();
  const context: any = { vars: { target, ...vars } };
  await connect.fetchCookie(context, events);
  await connect.openSocket(context, events);
  await connect.closeSocket(context, events);
  return counters;
}

describe('a target with a path prefix', () => {
  let server: SocketIoServer;
  beforeAll(async () => {
    server = await startSocketIoServer({ prefix: '/base' });
  });
  afterAll(() => server.close());

  it.each([`/base/`, `/base`])('--target http://127.0.0.1:P%s connects at /base/socket.io, namespace /', async (tail) => {
    const before = server.namespaces.length;
    const counters = await connectOnce(`http://127.0.0.1:${server.port}${tail}`);
    expect(counters['ws.connected']).toBe(1);
    expect(server.namespaces.slice(before)).toEqual(['/']);
  });

  it('socketPath is appended to the prefix as text', async () => {
    const other = await startSocketIoServer({ prefix: '/base', path: '/base/io' });
    try {
      const counters = await connectOnce(`${other.base}/`, { socketPath: '/io' });
      expect(counters['ws.connected']).toBe(1);
      expect(other.namespaces).toEqual(['/']);
    } finally {
      await other.close();
    }
  });

  it("a server's connect_error names its reason in a counter (was only errors.WS_CONNECT_FAILED)", async () => {
    const refusing = await startSocketIoServer({ reject: 'Invalid namespace' });
    try {
      const { events, counters } = counting();
      await expect(connect.openSocket({ vars: { target: refusing.base } }, events)).rejects.toMatchObject({ code: 'WS_CONNECT_FAILED' });
      expect(counters['ws.connect_failed']).toBe(1);
      expect(counters['ws.connect_failed_reason.Invalid_namespace']).toBe(1);
    } finally {
      await refusing.close();
    }
  });
});
