import { Socket } from 'socket.io-client';
import {
  Target, startTarget, getJson, postJson, metrics, connect, subscribe, next, connectAcrossWorkers, closeAll,
} from './helpers';

let t: Target;
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await startTarget({ WORKERS: '2' });
});
afterAll(async () => {
  closeAll(sockets);
  await t?.stop();
});

async function client(): Promise<Socket> {
  const s = await connect(t);
  sockets.push(s);
  return s;
}

test('GET /set-cookie issues an HttpOnly sid cookie', async () => {
  const { status, body, headers } = await getJson(`${t.base}/set-cookie`);
  expect(status).toBe(200);
  expect(body.ok).toBe(true);
  expect(headers.get('set-cookie')).toBe(`sid=${body.sid}; Path=/; HttpOnly`);
  expect(body.sid).toMatch(/^[0-9a-f]{32}$/);
});

test('connecting without the sid cookie fails with connect_error "unauthorized"', async () => {
  await expect(connect(t, { extraHeaders: {} })).rejects.toThrow('unauthorized');
  await expect(connect(t, { extraHeaders: { cookie: 'other=1' } })).rejects.toThrow('unauthorized');
});

test('subscribe acks { ok: true }', async () => {
  const s = await client();
  await expect(subscribe(s, 'room-ack')).resolves.toEqual({ ok: true });
});

test('emit publish reaches every member of the room, on both workers', async () => {
  const members = await connectAcrossWorkers(t, 2);
  sockets.push(...members);
  for (const s of members) await subscribe(s, 'room-emit');
  const outsider = await client();
  const received = members.map((s) => next(s, 'message', (m: any) => m.room === 'room-emit'));
  const before = Date.now();
  outsider.emit('publish', { room: 'room-emit', payload: { seq: 1, sentAt: before } });
  const msgs = await Promise.all(received);
  for (const m of msgs) {
    expect(m).toEqual({ room: 'room-emit', payload: { seq: 1, sentAt: before }, serverAt: expect.any(Number) });
    expect(m.serverAt).toBeGreaterThanOrEqual(before);
    expect(m.serverAt).toBeLessThanOrEqual(Date.now());
  }
});

test('POST /publish reaches every member on both workers; a bad body is a 400', async () => {
  const members = await connectAcrossWorkers(t, 2);
  sockets.push(...members);
  for (const s of members) await subscribe(s, 'room-post');
  const received = members.map((s) => next(s, 'message', (m: any) => m.room === 'room-post'));
  const res = await postJson(`${t.base}/publish`, { room: 'room-post', payload: 'hi' });
  expect(res).toEqual({ status: 200, body: { ok: true } });
  for (const m of await Promise.all(received)) expect(m).toMatchObject({ room: 'room-post', payload: 'hi' });
  expect((await postJson(`${t.base}/publish`, 'not json')).status).toBe(400);
  expect((await postJson(`${t.base}/publish`, { payload: 1 })).status).toBe(400);
  expect((await postJson(`${t.base}/publish`, { room: 'x' })).status).toBe(400);
});

test('presence is announced to the other members only, with the exact room size across workers', async () => {
  const spread = await connectAcrossWorkers(t, 2);
  sockets.push(...spread);
  const [a, b, c] = spread;
  const room = 'presence-lobby';
  const aSees = new Promise<any[]>((resolve) => {
    const seen: any[] = [];
    a!.on('presence', (p) => {
      seen.push(p);
      if (seen.length === 2) resolve(seen);
    });
  });
  const bFirst = next(b!, 'presence');
  expect(await subscribe(a!, room)).toEqual({ ok: true });
  expect(await subscribe(b!, room)).toEqual({ ok: true });
  expect(await subscribe(c!, room)).toEqual({ ok: true });
  // b never hears about itself: its first announcement is c's
  expect(await bFirst).toEqual({ room, member: c!.id, count: 3 });
  expect(await aSees).toEqual([
    { room, member: b!.id, count: 2 },
    { room, member: c!.id, count: 3 },
  ]);
});

test('echo acks the data straight back', async () => {
  const s = await client();
  const data = { n: 42, s: 'x', list: [1, 2, 3] };
  await expect(s.timeout(5000).emitWithAck('echo', data)).resolves.toEqual(data);
});

test('GET /time returns the epoch ms; GET /healthz is ok', async () => {
  const before = Date.now();
  const { body } = await getJson(`${t.base}/time`);
  expect(body.now).toBeGreaterThanOrEqual(before);
  expect(body.now).toBeLessThanOrEqual(Date.now());
  expect(await getJson(`${t.base}/healthz`)).toMatchObject({ status: 200, body: { ok: true } });
});

test('GET /metrics aggregates exact counters over both workers', async () => {
  const members = await connectAcrossWorkers(t, 2);
  sockets.push(...members);
  for (const s of members) await subscribe(s, 'room-metrics');
  const m0 = await metrics(t);
  expect(m0).toMatchObject({
    workers: 2,
    adapter: 'cluster',
    connections: sockets.length,
    withheldSocketsConnected: 0,
    cookie503: 0,
  });
  expect(m0.peakConnections).toBeGreaterThanOrEqual(sockets.length);
  expect(m0.connectionsTotal).toBeGreaterThanOrEqual(sockets.length);
  expect(m0.rooms).toBeGreaterThanOrEqual(5);
  for (const k of ['cpu', 'eventLoopLagMs', 'eventLoopLagMaxMs', 'peakSendRatePerSec', 'messagesOut', 'presenceOut']) {
    expect(typeof m0[k]).toBe('number');
  }
  expect(m0.memory.rss).toBeGreaterThan(0);
  expect(m0.memory.perWorker).toHaveLength(2);
  expect(m0.perWorker).toHaveLength(2);
  expect(m0.perWorker[0].connections + m0.perWorker[1].connections).toBe(m0.connections);
  const received = members.map((s) => next(s, 'message', (m: any) => m.room === 'room-metrics'));
  await postJson(`${t.base}/publish`, { room: 'room-metrics', payload: 1 });
  await Promise.all(received);
  const m1 = await metrics(t);
  expect(m1.messagesOut - m0.messagesOut).toBe(members.length);
  expect(m1.presenceOut).toBe(m0.presenceOut);
  expect(m1.peakSendRatePerSec).toBeGreaterThanOrEqual(0);
});

test('connection state recovery after a transport drop restores rooms and delivers missed messages', async () => {
  const s = await connect(t, { reconnection: true, reconnectionDelay: 200, reconnectionDelayMax: 200 });
  sockets.push(s);
  const id = s.id;
  await subscribe(s, 'room-recover');
  const first = next(s, 'message', (m: any) => m.payload === 'm1');
  await postJson(`${t.base}/publish`, { room: 'room-recover', payload: 'm1' });
  await first;
  const missed = next(s, 'message', (m: any) => m.payload === 'm2');
  const disconnected = next(s, 'disconnect');
  s.io.engine.close();
  await disconnected;
  expect(s.connected).toBe(false);
  const reconnected = next(s, 'connect');
  await postJson(`${t.base}/publish`, { room: 'room-recover', payload: 'm2' });
  await reconnected;
  expect(s.recovered).toBe(true);
  expect(s.id).toBe(id);
  expect(await missed).toMatchObject({ room: 'room-recover', payload: 'm2' });
  // still a member after recovery
  const after = next(s, 'message', (m: any) => m.payload === 'm3');
  await postJson(`${t.base}/publish`, { room: 'room-recover', payload: 'm3' });
  expect(await after).toMatchObject({ payload: 'm3' });
});
