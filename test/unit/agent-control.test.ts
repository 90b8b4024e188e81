/**
 * The agent's control watcher on a virtual clock: how many reads a fleet makes of the run store, that every
 * agent learns the start instant before it comes, that an abort and a dead orchestrator still stop it in a
 * bounded time, and that a late agent starts at once.
 */
import { ABORT_CEILING_MS, controlWatcher } from '../../load-generators/lib/agent-control';
import { backoff } from '../../load-generators/lib/backoff';
import { virtualClock } from '../helpers/virtual-clock';

/** A run store in memory that counts GETs by key. */
function countingStore() {
  const data = new Map<string, string>();
  const gets = new Map<string, number>();
  return {
    data,
    gets,
    total: () => [...gets.values()].reduce((a, b) => a + b, 0),
    get: async (key: string) => {
      gets.set(key, (gets.get(key) ?? 0) + 1);
      return data.get(key);
    },
  };
}

/** Deterministic jitter (a linear congruential generator), so the counts are the same on every run. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

test('backoff: equal jitter within [step/2, step], doubling up to the ceiling, reset returns to the first step', () => {
  const b = backoff({ initialMs: 100, ceilingMs: 1000, random: () => 1 });
  expect([1, 2, 3, 4, 5, 6].map(() => b.next())).toEqual([100, 200, 400, 800, 1000, 1000]);
  b.reset();
  expect(b.next()).toBe(100);
  const low = backoff({ initialMs: 100, ceilingMs: 1000, random: () => 0 });
  expect([1, 2, 3, 4, 5].map(() => low.next())).toEqual([50, 100, 200, 400, 500]);
});

// Before (agent polled start.json, abort.json and heartbeat.json every 50 ms until the start, then abort and heartbeat
// every second): an agent ready at r s with the start at 65 s made (65 − r) × 60 + 300 × 2 reads; with readiness
// spread over the first minute (mean r ≈ 30 s) that is ≈ 2,700 per agent, ≈ 270,000 GETs for 100 generators.
test('100 generators, ready over one minute, 5-minute run: ≤ 18,000 GETs of the run store (was ≈ 270,000), every agent starting on time', async () => {
  const { clock, run, t0 } = virtualClock();
  const store = countingStore();
  const random = seeded(42);
  const beat = () => store.data.set('control/heartbeat.json', JSON.stringify({ at: clock.now() }));
  beat();
  const N = 100;
  const startAt = t0 + 65_000;
  const runEnd = startAt + 300_000;
  const ended = new AbortController();
  const learned: Array<number | undefined> = [];
  const learnedWhen: number[] = [];
  const stops: string[] = [];
  const agents: Array<Promise<void>> = [];
  const hooks: Array<[number, () => void]> = [];
  for (let i = 0; i < N; i++) {
    hooks.push([t0 + Math.round((60_000 * i) / N), () => {
      const w = controlWatcher({ store, clock, heartbeatTimeoutMs: 30_000, startLeadMs: 5000, onStop: (r) => stops.push(r), random });
      agents.push((async () => {
        learned[i] = await w.awaitStart(ended.signal);
        learnedWhen[i] = clock.now();
        await w.watch(ended.signal);
      })());
    }]);
  }
  for (let s = t0 + 2000; s < runEnd; s += 2000) hooks.push([s, beat]);
  hooks.push([t0 + 60_000, () => store.data.set('control/start.json', JSON.stringify({ startAt }))]);
  hooks.push([runEnd, () => ended.abort()]);
  await run(runEnd + 10_000, hooks);
  await Promise.all(agents);

  expect(stops).toEqual([]);
  expect(learned).toEqual(Array(N).fill(startAt));
  // Every agent knew the instant at least 3.5 s ahead (start lead 5 s, start poll ceiling 1.25 s → 1 s).
  expect(Math.max(...learnedWhen)).toBeLessThanOrEqual(startAt - 3500);
  const total = store.total();
  // 16,931 with this seed: start ≈ 4,450, abort ≈ 9,180, heartbeat ≈ 3,300.
  expect(total).toBeLessThanOrEqual(18_000);
  // The worst case by construction (every jitter at its minimum, half the ceiling), per agent over 365 s:
  // start.json every ≥ 0.5 s for at most 65 s, abort.json every ≥ 2.5 s, heartbeat.json every 10 s.
  expect(store.gets.get('control/start.json')).toBeLessThanOrEqual(N * (65 / 0.5 + 4));
  expect(store.gets.get('control/abort.json')).toBeLessThanOrEqual(N * (365 / (ABORT_CEILING_MS / 2000) + 4));
  expect(store.gets.get('control/heartbeat.json')).toBeLessThanOrEqual(N * (365 / 10 + 1));
});

test('an abort reaches a watching agent within the abort ceiling; a stopped heartbeat orphans it within the timeout + two heartbeat reads', async () => {
  const { clock, run, t0 } = virtualClock();
  const store = countingStore();
  store.data.set('control/heartbeat.json', JSON.stringify({ at: 5 })); // the CLI's clock need not agree with the agent's
  const stops: Array<[string, number]> = [];
  const ended = new AbortController();
  const w = controlWatcher({ store, clock, heartbeatTimeoutMs: 30_000, onStop: (r) => stops.push([r, clock.now()]), random: () => 1 });
  const watching = w.watch(ended.signal);
  let beats = 5;
  const hooks: Array<[number, () => void]> = [];
  for (let s = t0 + 2000; s <= t0 + 120_000; s += 2000) hooks.push([s, () => store.data.set('control/heartbeat.json', JSON.stringify({ at: ++beats }))]);
  hooks.push([t0 + 100_000, () => store.data.set('control/abort.json', JSON.stringify({ reason: 'interrupted' }))]);
  await run(t0 + 130_000, hooks);
  await watching;
  expect(stops).toHaveLength(1);
  expect(stops[0]?.[0]).toBe('aborted by the orchestrator: interrupted');
  expect(stops[0]?.[1]).toBeGreaterThanOrEqual(t0 + 100_000);
  expect(stops[0]?.[1]).toBeLessThanOrEqual(t0 + 100_000 + ABORT_CEILING_MS);

  const { clock: c2, run: run2, t0: s0 } = virtualClock();
  const orphanStops: Array<[string, number]> = [];
  store.data.delete('control/abort.json');
  const w2 = controlWatcher({ store, clock: c2, heartbeatTimeoutMs: 30_000, onStop: (r) => orphanStops.push([r, c2.now()]) });
  const beatsStop = s0 + 20_000;
  const hooks2: Array<[number, () => void]> = [];
  for (let s = s0 + 2000; s <= beatsStop; s += 2000) hooks2.push([s, () => store.data.set('control/heartbeat.json', JSON.stringify({ at: ++beats }))]);
  const done = w2.watch(new AbortController().signal);
  await run2(s0 + 120_000, hooks2);
  await done;
  expect(orphanStops.map(([r]) => r)).toEqual(['orphaned: the orchestrator heartbeat stopped']);
  expect(orphanStops[0]?.[1]).toBeGreaterThan(beatsStop + 30_000 - 10_000);
  expect(orphanStops[0]?.[1]).toBeLessThanOrEqual(beatsStop + 30_000 + 2 * 10_000);
});

test('a late agent (the instant already passed when it first reads) gets the instant on its first read and starts at once', async () => {
  const { clock, t0 } = virtualClock();
  const store = countingStore();
  store.data.set('control/heartbeat.json', JSON.stringify({ at: 1 }));
  store.data.set('control/start.json', JSON.stringify({ startAt: t0 - 2000 }));
  const w = controlWatcher({ store, clock, heartbeatTimeoutMs: 30_000, onStop: () => undefined });
  await expect(w.awaitStart(new AbortController().signal)).resolves.toBe(t0 - 2000);
  expect(store.gets.get('control/start.json')).toBe(1);
});

test('a store that cannot be read rejects the watcher (the agent turns it into a clean stop)', async () => {
  const { clock } = virtualClock();
  const w = controlWatcher({ store: { get: async () => { throw Object.assign(new Error('Access Denied'), { name: 'AccessDenied' }); } }, clock, heartbeatTimeoutMs: 30_000, onStop: () => undefined });
  await expect(w.awaitStart(new AbortController().signal)).rejects.toThrow('Access Denied');
});
