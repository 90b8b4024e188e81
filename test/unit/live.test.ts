/** The live progress line: a period is shown once, in order, when every process has shipped it, or once it is settled (partial). */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { localStore } from '../../load-generators/lib/run-store';
import { DDSketch } from '@artilleryio/sketches-js';
import { PeriodMetrics, serializePeriod } from '../../scripts/core/merge';
import { IDLE_LIST_MS, LiveMerger } from '../../scripts/live';

/** A run store in memory with S3's prefix semantics (the 100-generator case would write 6,000 files otherwise). */
function memoryStore() {
  const files = new Map<string, string>();
  return {
    location: 'memory',
    put: async (key: string, body: string | Buffer): Promise<void> => void files.set(key, body.toString()),
    get: async (key: string) => files.get(key),
    list: async (prefix: string) => [...files.keys()].filter((k) => k.startsWith(prefix)).sort(),
  };
}

const period = (at: number, created: number): PeriodMetrics => ({ period: at, counters: { 'vusers.created': created }, histograms: {}, rates: {} });

describe('LiveMerger', () => {
  const T0 = 1_800_000_000_000;
  let store: ReturnType<typeof localStore>;
  beforeEach(() => {
    store = localStore(fs.mkdtempSync(path.join(os.tmpdir(), 'rig-live-')));
  });

  it('holds a period back while another process may still report it, then shows it merged', async () => {
    let now = T0 + 12_000;
    const live = new LiveMerger(store, [{ id: 'g01' }, { id: 'g02' }], () => now);
    await store.put('generators/g01/p0/periods/a.json', serializePeriod(period(T0, 5)));
    await store.put('generators/g01/p0/periods/b.json', serializePeriod(period(T0 + 10_000, 1)));
    expect(await live.poll()).toEqual([]);
    await store.put('generators/g02/p0/periods/a.json', serializePeriod(period(T0, 7)));
    await store.put('generators/g02/p0/periods/b.json', serializePeriod(period(T0 + 10_000, 1)));
    now += IDLE_LIST_MS; // a generator with nothing due is listed again after IDLE_LIST_MS
    const lines = await live.poll();
    expect(lines).toHaveLength(2); // both processes shipped both periods
    expect(lines[0]).toMatch(/created 12 \(\+12\)/);
    expect(lines[1]).toMatch(/created 14 \(\+2\)/);
  });

  it('shows a period once every process shipped it, even when no later period ever comes (vusers only holding), and once only', async () => {
    let now = T0 + 11_000;
    const live = new LiveMerger(store, [{ id: 'g01' }], () => now);
    await store.put('generators/g01/p0/periods/a.json', serializePeriod(period(T0, 3)));
    const lines = await live.poll();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/created 3 \(\+3\)/);
    now = T0 + 25_001;
    expect(await live.poll()).toEqual([]);
    expect(await live.flush()).toEqual([]);
  });

  it('labels a period by its end, never before the shared start, and shows the pub/sub key figures', async () => {
    const startAt = T0 + 7_000; // the first period (aligned to 10 s) began before the run did
    await store.put('control/start.json', JSON.stringify({ startAt }));
    const live = new LiveMerger(store, [{ id: 'g01' }], () => T0 + 60_000);
    const delivery = new DDSketch();
    for (let i = 1; i <= 100; i++) delivery.accept(i);
    const p: PeriodMetrics = { period: T0, counters: { 'vusers.created': 4, 'pubsub.messages_received': 90, 'pubsub.messages_expected': 100 }, histograms: { 'pubsub.delivery_latency': delivery }, rates: {} };
    await store.put('generators/g01/p0/periods/a.json', serializePeriod(p));
    const [line] = await live.flush();
    expect(line).toMatch(new RegExp(`^${new Date(T0 + 10_000).toISOString().slice(11, 19)} T\\+0:03 `));
    expect(line).toMatch(/delivery p95 9\d(\.\d)? ms/);
    expect(line).toContain('receipt 90.0% (90/100)');
  });

  it("leads with the built-ins' connect p95, else a user script's HTTP response p95 (was 'connect p95 -' on every line)", async () => {
    const response = new DDSketch();
    for (let i = 1; i <= 100; i++) response.accept(i);
    const live = new LiveMerger(store, [{ id: 'g01' }], () => T0 + 60_000);
    await store.put('generators/g01/p0/periods/a.json', serializePeriod({ period: T0, counters: { 'vusers.created': 4 }, histograms: { 'http.response_time': response }, rates: {} }));
    const [line] = await live.flush();
    expect(line).toMatch(/response p95 9\d(\.\d)? ms$/);
    expect(line).not.toContain('connect p95');
  });

  it('lists a generator only when a period can be new, and never its health samples: 100 generators over 5 minutes', async () => {
    const mem = memoryStore();
    const listed: string[] = [];
    const counting = { ...mem, list: (prefix: string) => (listed.push(prefix), mem.list(prefix)) };
    const gens = Array.from({ length: 100 }, (_, i) => ({ id: `g${String(i + 1).padStart(3, '0')}`, processes: 2 }));
    let now = T0;
    const live = new LiveMerger(counting, gens, () => now);
    const shown: string[] = [];
    // Every process writes the period that starts at P one second after it ends (P + 11 s), as Artillery
    // does; every generator writes a health sample every 5 s. The orchestrator polls twice a second.
    for (; now <= T0 + 301_000; now += 500) {
      if (now % 10_000 === 1_000 && now >= T0 + 11_000) {
        for (const g of gens) for (const k of [0, 1]) await mem.put(`generators/${g.id}/p${k}/periods/${now - 11_000}.json`, serializePeriod(period(now - 11_000, 1)));
      }
      if (now % 5_000 === 0) for (const g of gens) await mem.put(`generators/${g.id}/health/${now}.json`, '{}');
      shown.push(...(await live.poll()));
    }
    shown.push(...(await live.flush()));
    // Every period once, in order, with all 200 processes' vusers.
    expect(shown).toHaveLength(30);
    expect(shown.every((l) => /\(\+200\)/.test(l))).toBe(true);
    expect(shown[29]).toMatch(/created 6000 /);
    expect(listed.every((p) => /^generators\/g\d{3}\/p$/.test(p))).toBe(true);
    // Before: every generator listed on every poll, 100 × 601 = 60,100 LISTs. Now about one per generator per
    // period once all its processes have reported, plus the idle pace before the first period.
    expect(listed.length).toBeLessThanOrEqual(100 * (30 * 2 + 11_000 / IDLE_LIST_MS + 2));
  });

  it('while vusers only hold (no periods), lists each generator once per IDLE_LIST_MS, not on every poll', async () => {
    const listed: string[] = [];
    const counting = { ...store, list: (prefix: string) => (listed.push(prefix), store.list(prefix)) };
    let now = T0;
    const live = new LiveMerger(counting, [{ id: 'g01', processes: 1 }], () => now);
    await store.put('generators/g01/p0/periods/a.json', serializePeriod(period(T0 - 10_000, 4)));
    const shown: string[] = [];
    for (; now <= T0 + 120_000; now += 500) shown.push(...(await live.poll()));
    expect(shown).toHaveLength(1); // settled, then shown
    expect(listed.length).toBeLessThanOrEqual(120_000 / IDLE_LIST_MS + 1);
    // The first LIST finds the period that starts at T0 − 10 s; none can be new before T0 + 10 s.
    expect(listed.length).toBeGreaterThanOrEqual((120_000 - 10_000) / IDLE_LIST_MS);
  });
});

describe('local run store list', () => {
  it('matches keys by string prefix as S3 does, not by folder', async () => {
    const store = localStore(fs.mkdtempSync(path.join(os.tmpdir(), 'rig-list-')));
    for (const k of ['generators/g01/p0/periods/a.json', 'generators/g01/p1/final.json', 'generators/g01/health/1.json', 'generators/g010/p0/x.json', 'control/start.json']) await store.put(k, '{}');
    expect(await store.list('generators/g01/p')).toEqual(['generators/g01/p0/periods/a.json', 'generators/g01/p1/final.json']);
    expect(await store.list('generators/g01/')).toEqual(['generators/g01/health/1.json', 'generators/g01/p0/periods/a.json', 'generators/g01/p1/final.json']);
    expect(await store.list('generators/g01')).toHaveLength(4); // g010 too, as an S3 prefix would
    expect(await store.list('')).toHaveLength(5);
    expect(await store.list('nothing/here')).toEqual([]);
  });
});

describe('LiveMerger: a period is shown once, in order (careless-user probe: "T+0:11 created 10" then "T+0:01 created 11 (+1)")', () => {
  const T0 = 1_800_000_000_000;
  const at = (line: string) => line.slice(0, 8);
  let store: ReturnType<typeof localStore>;
  beforeEach(() => {
    store = localStore(fs.mkdtempSync(path.join(os.tmpdir(), 'rig-live-order-')));
  });

  it('waits for every load process of a generator, also one that has shipped nothing yet, instead of re-printing the period', async () => {
    let now = T0 + 21_000;
    const live = new LiveMerger(store, [{ id: 'g01', processes: 2 }], () => now);
    const shown: string[] = [];
    // p0 is fast: it has shipped two periods; p1 (slower to start) none yet.
    await store.put('generators/g01/p0/periods/a.json', serializePeriod(period(T0, 10)));
    await store.put('generators/g01/p0/periods/b.json', serializePeriod(period(T0 + 10_000, 0)));
    shown.push(...(await live.poll(true)));
    await store.put('generators/g01/p1/periods/a.json', serializePeriod(period(T0, 1)));
    now += IDLE_LIST_MS;
    shown.push(...(await live.poll(true)));
    await store.put('generators/g01/p1/periods/b.json', serializePeriod(period(T0 + 10_000, 2)));
    now += IDLE_LIST_MS;
    shown.push(...(await live.poll(true)));
    shown.push(...(await live.flush()));
    expect(shown).toHaveLength(2);
    expect(shown[0]).toMatch(/created 11 \(\+11\)/);
    expect(shown[1]).toMatch(/created 13 \(\+2\)/);
    expect(at(shown[0]!) < at(shown[1]!)).toBe(true);
    expect(shown.join('\n')).not.toContain('partial');
  });

  it('after the bounded lag shows the period marked partial, and folds the late process into the next line without re-printing it', async () => {
    let now = T0 + 12_000;
    const live = new LiveMerger(store, [{ id: 'g01', processes: 2 }, { id: 'g02', processes: 1 }], () => now);
    const shown: string[] = [];
    await store.put('generators/g01/p0/periods/a.json', serializePeriod(period(T0, 4)));
    await store.put('generators/g02/p0/periods/a.json', serializePeriod(period(T0, 5)));
    shown.push(...(await live.poll(true)));
    expect(shown).toEqual([]); // g01/p1 may still ship T0
    now = T0 + 25_001; // 15 s after the period ended
    shown.push(...(await live.poll(true)));
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatch(/created 9 \(\+9\).*partial: 1 of 3 load processes not in/);
    // The straggler ships T0 late, then everyone ships T0 + 10 s.
    await store.put('generators/g01/p1/periods/a.json', serializePeriod(period(T0, 3)));
    for (const k of ['g01/p0', 'g01/p1', 'g02/p0']) await store.put(`generators/${k}/periods/b.json`, serializePeriod(period(T0 + 10_000, 1)));
    now += IDLE_LIST_MS;
    shown.push(...(await live.poll(true)));
    shown.push(...(await live.flush()));
    expect(shown).toHaveLength(2);
    expect(shown[1]).toMatch(/created 15 \(\+3\)/);
    expect(shown[1]).toContain('late data of an earlier period included (+3 created)');
    expect(at(shown[0]!) < at(shown[1]!)).toBe(true);
  });

  it('lists a generator that just ended before showing its periods, though its next LIST was not due (was: the last period shown with one process of two, the other never shown)', async () => {
    let now = T0 + 21_000;
    const live = new LiveMerger(store, [{ id: 'g01', processes: 2 }], () => now);
    const shown: string[] = [];
    for (const p of ['p0', 'p1']) await store.put(`generators/g01/${p}/periods/a.json`, serializePeriod(period(T0, 10)));
    await store.put('generators/g01/p1/periods/b.json', serializePeriod(period(T0 + 10_000, 10)));
    shown.push(...(await live.poll()));
    expect(shown).toHaveLength(1); // T0 from both; T0 + 10 s waits for p0, and g01's next LIST is seconds away
    now += 1_000;
    // p0 ships its last period with its final report, then the agent exits 0 and the orchestrator marks g01 done.
    await store.put('generators/g01/p0/periods/b.json', serializePeriod(period(T0 + 10_000, 11)));
    await store.put('generators/g01/p0/final.json', '{}');
    await store.put('generators/g01/p1/final.json', '{}');
    live.markDone('g01');
    shown.push(...(await live.poll()));
    shown.push(...(await live.flush()));
    expect(shown).toHaveLength(2);
    expect(shown[1]).toMatch(/created 41 \(\+21\)/);
    expect(shown.join('\n')).not.toContain('late data');
  });

  it('lists an ended generator once at once, then as an idle one, not at every poll the orchestrator says it again', async () => {
    let now = T0 + 21_000;
    let lists = 0;
    const counting = { ...store, list: async (prefix: string) => (lists++, store.list(prefix)) };
    const live = new LiveMerger(counting, [{ id: 'g01', processes: 1 }], () => now);
    await store.put('generators/g01/p0/periods/a.json', serializePeriod(period(T0, 1)));
    await live.poll();
    lists = 0;
    for (let k = 0; k < 10; k++) {
      live.markDone('g01'); // watchRun says it on every 500-ms turn while the agent stays exited
      await live.poll();
      now += 500;
    }
    expect(lists).toBeLessThanOrEqual(1 + Math.ceil(5_000 / IDLE_LIST_MS)); // once at once, then as any idle generator (was 10)
  });

  it('does not wait for a generator that ended or was lost, nor for a process whose final report is in', async () => {
    const now = T0 + 12_000;
    const live = new LiveMerger(store, [{ id: 'g01', processes: 2 }, { id: 'g02', processes: 1 }], () => now);
    await store.put('generators/g01/p0/periods/a.json', serializePeriod(period(T0, 4)));
    await store.put('generators/g01/p1/final.json', '{}');
    expect(await live.poll(true)).toEqual([]);
    live.markDone('g02');
    const lines = await live.poll(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/created 4 \(\+4\)/);
    expect(lines[0]).not.toContain('partial');
  });
});
