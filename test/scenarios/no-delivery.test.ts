/**
 * The built-in processors against a loopback Socket.IO server that acks every subscribe and publish and delivers
 * nothing (`deliver: false`): what was published and never received must show as lost / expected, not as 0.
 * Before, recovery counted only gaps between received seqs (430 published, 0 received: "messages lost 0"), and a
 * process's receivers learned of a tick only from a delivered message (nothing delivered: nothing expected).
 */
import { EventEmitter } from 'node:events';
import { SocketIoServer, startSocketIoServer } from '../helpers/socketio-server';
import { until } from '../helpers/wait';

jest.setTimeout(30_000);

type Step = (context: any, events: EventEmitter) => Promise<void>;

function counting() {
  const events = new EventEmitter();
  const counters: Record<string, number> = {};
  events.on('counter', (name: string, v: number) => (counters[name] = (counters[name] ?? 0) + v));
  return { events, counters };
}

/** One vuser through a processor's flow (its functions in order), with fresh module state (one publisher per test). */
async function vuser(processor: string, flow: Array<string | (() => Promise<unknown>)>, vars: Record<string, unknown>): Promise<Record<string, number>> {
  const { events, counters } = counting();
  await jest.isolateModulesAsync(async () => {
    const steps = (await import(`../../load-generators/processors/${processor}`)) as unknown as Record<string, Step>;
    const context: any = { vars: { ...vars } };
    for (const step of flow) await (typeof step === 'string' ? steps[step]!(context, events) : step());
  });
  return counters;
}

describe('a server that acks and never delivers', () => {
  let server: SocketIoServer;
  beforeEach(async () => {
    server = await startSocketIoServer({ deliver: false });
  });
  afterEach(() => server.close());

  it('recovery: every tick published to the room while the vuser was subscribed is lost (was 0)', async () => {
    const vars = { target: server.base, rooms: 1, publishRate: 20, publishSeconds: 3, hold: 2, dropAfter: 0.5, away: 0.2 };
    const c = await vuser('recovery', ['recoveryPublisher', 'fetchCookie', 'openSocket', 'recoveryRun', 'closeSocket'], vars);
    expect(c['pubsub.messages_received'] ?? 0).toBe(0);
    // Published while subscribed: ~2 s at 20/s, less the subscribe's start and the end's edge.
    expect(c['recovery.messages_lost']).toBeGreaterThanOrEqual(30);
    expect(c['recovery.messages_lost']).toBeLessThanOrEqual(server.publishes);
  });

  it('pubsub: the publisher\'s acked ticks are expected, so the vuser\'s zero receipt shows as loss (expected was 0)', async () => {
    const vars = { target: server.base, rooms: 1, publishRate: 20, publishSeconds: 2 };
    let subscribedAt = 0;
    const listen = async () => {
      subscribedAt = server.publishes;
      await until(() => server.publishes >= subscribedAt + 10, { what: '10 publishes while subscribed' });
    };
    const c = await vuser('pubsub', ['pubsubPublisher', 'fetchCookie', 'openSocket', 'pubsubSubscribe', listen, 'pubsubReport', 'closeSocket'], vars);
    expect(c['pubsub.messages_received'] ?? 0).toBe(0);
    expect(c['pubsub.messages_expected']).toBeGreaterThanOrEqual(9);
    expect(c['pubsub.vusers_zero_messages']).toBe(1);
  });
});

describe('a server that delivers', () => {
  let server: SocketIoServer;
  beforeEach(async () => {
    server = await startSocketIoServer();
  });
  afterEach(() => server.close());

  it('recovery: nothing lost when every message arrives (the in-flight wait at the end)', async () => {
    const vars = { target: server.base, rooms: 1, publishRate: 20, publishSeconds: 3, hold: 2, dropAfter: 0.5, away: 0.2 };
    const c = await vuser('recovery', ['recoveryPublisher', 'fetchCookie', 'openSocket', 'recoveryRun', 'closeSocket'], vars);
    expect(c['pubsub.messages_received']).toBeGreaterThanOrEqual(30);
    expect(c['recovery.messages_lost']).toBe(0);
  });

  it.each([
    ['0', 0],
    ['false', false],
  ])('broadcast: --var echo=%s turns the echo off (echo=0 left it on)', async (_text, echo) => {
    const { events } = counting();
    await jest.isolateModulesAsync(async () => {
      const b = (await import('../../load-generators/processors/broadcast')) as unknown as Record<string, Step>;
      const context: any = { vars: { target: server.base, echo, room: 'b' } };
      for (const name of ['fetchCookie', 'openSocket', 'broadcastJoin']) await b[name]!(context, events);
      const received = new Promise((resolve) => context.rigSocket.socket.once('message', resolve));
      await fetch(`${server.base}/publish`, { method: 'POST', body: JSON.stringify({ room: 'b', payload: { seq: 1 } }) });
      await received;
      // An echo would be emitted right after the message; a second publish delivered proves the first's echo had its chance.
      const second = new Promise((resolve) => context.rigSocket.socket.once('message', resolve));
      await fetch(`${server.base}/publish`, { method: 'POST', body: JSON.stringify({ room: 'b', payload: { seq: 2 } }) });
      await second;
      await b.closeSocket!(context, events);
    });
    expect(server.echoes).toBe(0);
  });

  it('broadcast: echo on by default', async () => {
    const { events } = counting();
    await jest.isolateModulesAsync(async () => {
      const b = (await import('../../load-generators/processors/broadcast')) as unknown as Record<string, Step>;
      const context: any = { vars: { target: server.base, room: 'b' } };
      for (const name of ['fetchCookie', 'openSocket', 'broadcastJoin']) await b[name]!(context, events);
      await fetch(`${server.base}/publish`, { method: 'POST', body: JSON.stringify({ room: 'b', payload: { seq: 1 } }) });
      await until(() => server.echoes === 1, { what: 'the echo' });
      await b.closeSocket!(context, events);
    });
  });
});
