import { Socket } from 'socket.io-client';
import { Target, startTarget, getJson, postJson, metrics, connect, subscribe, next, closeAll } from './helpers';
import * as faults from '../../target-stack/app/faults';

describe('FAULT_DELIVERY_DELAY_MS', () => {
  const D = 300;
  let t: Target;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    t = await startTarget({ WORKERS: '1', FAULT_DELIVERY_DELAY_MS: String(D) });
  });
  afterAll(async () => {
    closeAll(sockets);
    await t?.stop();
  });

  test('every message is delivered at least D ms after it was published', async () => {
    const s = await connect(t);
    sockets.push(s);
    await subscribe(s, 'slow');
    const got = next<any>(s, 'message');
    const sentAt = Date.now();
    s.emit('publish', { room: 'slow', payload: { sentAt } });
    const m = await got;
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(D);
    expect(m.serverAt - sentAt).toBeGreaterThanOrEqual(D);
  });
});

describe('FAULT_WITHHOLD_FRACTION', () => {
  const F = 0.3;
  const SEED = 'jest';
  const N = 40;
  let t: Target;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    t = await startTarget({ WORKERS: '2', FAULT_WITHHOLD_FRACTION: String(F), FAULT_SEED: SEED });
  });
  afterAll(async () => {
    closeAll(sockets);
    await t?.stop();
  });

  test('exactly the sockets selected by the documented hash get nothing, matching /metrics ground truth', async () => {
    for (let i = 0; i < N; i++) sockets.push(await connect(t));
    for (const s of sockets) await subscribe(s, 'w');
    const m = await metrics(t);
    const decide = faults.makeWithholdDecider(SEED, F);
    const expectedWithheld = sockets.filter((s) => decide(s.id!));
    expect(m.withheldSocketsConnected).toBe(expectedWithheld.length);
    expect(m.withheldSocketsCurrent).toBe(expectedWithheld.length);
    expect(m.perWorker.every((w: any) => w.connections > 0)).toBe(true);
    expect(expectedWithheld.length).toBeGreaterThan(0);

    const received = new Map<string, number>();
    for (const s of sockets) s.on('message', () => received.set(s.id!, (received.get(s.id!) ?? 0) + 1));
    const served = sockets.filter((s) => !decide(s.id!));
    for (const round of [1, 2]) {
      const all = served.map((s) => next(s, 'message', (x: any) => x.payload === round));
      await postJson(`${t.base}/publish`, { room: 'w', payload: round });
      await Promise.all(all);
    }
    const zero = sockets.filter((s) => !received.has(s.id!));
    expect(zero.map((s) => s.id).sort()).toEqual(expectedWithheld.map((s) => s.id).sort());
    expect(zero.length).toBe((await metrics(t)).withheldSocketsConnected);
  });
});

describe('FAULT_COOKIE_503_FRACTION', () => {
  let t: Target;
  beforeAll(async () => {
    t = await startTarget({ WORKERS: '1', FAULT_COOKIE_503_FRACTION: '0.25' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  test('exactly floor(n·R) of n /set-cookie requests get 503 (every 4th for R = 0.25), as /metrics reports', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await getJson(`${t.base}/set-cookie`);
      statuses.push(res.status);
      if (res.status === 503) expect(res.headers.get('set-cookie')).toBeNull();
    }
    const refused = statuses.map((s, i) => (s === 503 ? i + 1 : 0)).filter((i) => i > 0);
    expect(refused).toEqual([4, 8, 12, 16, 20, 24, 28, 32, 36, 40]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    const m = await metrics(t);
    expect(m.cookie503).toBe(10);
    expect(m.cookiesIssued).toBe(30);
  });
});
