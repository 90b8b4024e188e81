/**
 * A run store that fails for a while (an S3 503 that outlived the SDK's attempts, seconds of lost Wi-Fi on the
 * user's laptop) does not end the run: the orchestrator rides out failures in a row for up to the agents'
 * heartbeat timeout less one beat, says once when they begin and once when they end, and only past that
 * budget ends the run with the store's error.
 */
import { planLoad } from '../../scripts/core/plan';
import type { Fleet } from '../../scripts/contracts';
import { orchestrate } from '../../scripts/orchestrator';
import { virtualClock } from '../helpers/virtual-clock';

const limits = { openFiles: 1e6, ephemeralPorts: 1e6, memoryBytes: 1e12, bytesPerVuser: 1, socketsPerVuser: 1, sourceAddresses: 1, processes: 1 };
const slowDown = () => Object.assign(new Error('Please reduce your request rate.'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } });
const IDS = ['g01', 'g02'];

/** Two generators that are ready at once and finish 60 s after the start; `broken(op, key)` says when the store fails (true: a 503). */
function runWith(broken: (op: 'get' | 'put' | 'list', key: string, now: number, startAt: number | undefined) => boolean | Error) {
  const { clock, run, t0 } = virtualClock();
  const data = new Map<string, string>();
  const startAt = () => (data.has('control/start.json') ? (JSON.parse(data.get('control/start.json') as string) as { startAt: number }).startAt : undefined);
  const guard = (op: 'get' | 'put' | 'list', key: string) => {
    const err = broken(op, key, clock.now(), startAt());
    if (err) throw err === true ? slowDown() : err;
  };
  const store = {
    location: 'memory',
    async put(key: string, body: string | Buffer) {
      guard('put', key);
      data.set(key, String(body));
    },
    async get(key: string) {
      guard('get', key);
      return data.get(key);
    },
    async list(prefix: string) {
      guard('list', prefix);
      return [...data.keys()].filter((k) => k.startsWith(prefix)).sort();
    },
  };
  const fleet: Fleet = {
    async launch() {
      for (const id of IDS) data.set(`generators/${id}/ready.json`, '{}');
    },
    status() {
      const at = startAt();
      const ended = at !== undefined && clock.now() >= at + 60_000;
      return new Map(IDS.map((id) => [id, ended ? 0 : undefined]));
    },
    exitReason: () => undefined,
    async stop() {},
  };
  const plan = planLoad({ phases: [{ duration: 60, arrivalCount: 2 }], generators: 2, limits, sessionSeconds: 1 });
  const spec = { runId: 'r', scriptDir: '/nowhere', plan, generators: IDS.map((id) => ({ id, processes: [] })), expectedSeconds: 60, heartbeatTimeoutMs: 30_000, readyTimeoutMs: 60_000, startLeadMs: 5000, meta: {} };
  const said: string[] = [];
  const outcome = orchestrate(spec, { store, fleet, clock, progress: (e) => e.kind === 'info' && said.push(e.message), interrupted: new Promise(() => undefined) });
  let settledAt: number | undefined;
  void outcome.then(() => (settledAt = clock.now()), () => (settledAt = clock.now()));
  return { outcome, said, done: () => run(t0 + 300_000), t0, settledAt: () => settledAt };
}

const failing = (said: string[]) => said.filter((l) => /run store is failing/.test(l));
const recovered = (said: string[]) => said.filter((l) => /run store answers again/.test(l));

test('a list() that throws once mid-run: the run completes, with one line when it fails and one when it recovers', async () => {
  let thrown = false;
  const r = runWith((op, _key, now, startAt) => {
    if (op !== 'list' || thrown || startAt === undefined || now < startAt + 20_000) return false;
    return (thrown = true);
  });
  await r.done();
  const outcome = await r.outcome;
  expect(thrown).toBe(true);
  expect(outcome).toMatchObject({ interrupted: false, timedOut: false, lostGenerators: [] });
  expect(failing(r.said)).toEqual(["the run store is failing (SlowDown: Please reduce your request rate.); retrying for up to 28 s, within the agents' heartbeat timeout"]);
  expect(recovered(r.said)).toHaveLength(1);
});

test('20 s of lost network mid-run (every read and heartbeat fails): the run completes, said once each way', async () => {
  const r = runWith((_op, _key, now, startAt) => startAt !== undefined && now >= startAt + 10_000 && now < startAt + 30_000);
  await r.done();
  expect(await r.outcome).toMatchObject({ timedOut: false, lostGenerators: [] });
  expect(failing(r.said)).toHaveLength(1);
  expect(recovered(r.said)).toEqual([expect.stringMatching(/^the run store answers again \(after (19|20) s of errors\); the run goes on$/)]);
});

test('a ready barrier read and the start instant\'s write that fail once: the run still starts', async () => {
  const failed = new Set<string>();
  const r = runWith((op, key) => {
    const once = (op === 'get' && key.endsWith('ready.json')) || (op === 'put' && key === 'control/start.json');
    if (!once || failed.has(key)) return false;
    failed.add(key);
    return true;
  });
  await r.done();
  expect((await r.outcome).startAt).toBeDefined();
  expect(failed).toEqual(new Set(['generators/g01/ready.json', 'generators/g02/ready.json', 'control/start.json']));
});

test('a store that stays down: the run ends with its error once the budget (heartbeat timeout less one beat) is spent, not before', async () => {
  let downSince: number | undefined;
  const r = runWith((_op, _key, now, startAt) => {
    if (startAt === undefined || now < startAt + 10_000) return false;
    downSince ??= now;
    return true;
  });
  await r.done();
  await expect(r.outcome).rejects.toMatchObject({ name: 'SlowDown' });
  expect((r.settledAt() as number) - (downSince as number)).toBeGreaterThan(28_000);
  expect((r.settledAt() as number) - (downSince as number)).toBeLessThan(31_000);
  expect(failing(r.said)).toHaveLength(1);
});

test('an error no retry gets past (expired credentials) ends the run at once, not after the budget', async () => {
  const expired = Object.assign(new Error('The provided token has expired.'), { name: 'ExpiredToken', $metadata: { httpStatusCode: 400 } });
  let at: number | undefined;
  const r = runWith((op, _key, now, startAt) => {
    if (op !== 'list' || startAt === undefined || now < startAt + 10_000) return false;
    at ??= now;
    return expired;
  });
  await r.done();
  await expect(r.outcome).rejects.toBe(expired);
  // At once: the end waits only for the heartbeat loop's current 2-s sleep, not the 28-s budget.
  expect((r.settledAt() as number) - (at as number)).toBeLessThanOrEqual(2000);
  expect(failing(r.said)).toEqual([]);
});
