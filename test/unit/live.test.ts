/** The live progress line: periods are shown once every process has passed them, or once they are settled. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { localStore } from '../../load-generators/lib/run-store';
import { DDSketch } from '@artilleryio/sketches-js';
import { PeriodMetrics, serializePeriod } from '../../scripts/core/merge';
import { LiveMerger } from '../../scripts/live';

const period = (at: number, created: number): PeriodMetrics => ({ period: at, counters: { 'vusers.created': created }, histograms: {}, rates: {} });

describe('LiveMerger', () => {
  const T0 = 1_800_000_000_000;
  let store: ReturnType<typeof localStore>;
  beforeEach(() => {
    store = localStore(fs.mkdtempSync(path.join(os.tmpdir(), 'rig-live-')));
  });

  it('holds a period back while another process may still report it, then shows it merged', async () => {
    const now = T0 + 12_000;
    const live = new LiveMerger(store, ['g01', 'g02'], () => now);
    await store.put('generators/g01/p0/periods/a.json', serializePeriod(period(T0, 5)));
    await store.put('generators/g01/p0/periods/b.json', serializePeriod(period(T0 + 10_000, 1)));
    expect(await live.poll()).toEqual([]);
    await store.put('generators/g02/p0/periods/a.json', serializePeriod(period(T0, 7)));
    await store.put('generators/g02/p0/periods/b.json', serializePeriod(period(T0 + 10_000, 1)));
    const lines = await live.poll();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/created 12 \(\+12\)/);
  });

  it('shows a period once it is settled even when no later period ever comes (vusers only holding)', async () => {
    let now = T0 + 11_000;
    const live = new LiveMerger(store, ['g01'], () => now);
    await store.put('generators/g01/p0/periods/a.json', serializePeriod(period(T0, 3)));
    expect(await live.poll()).toEqual([]);
    now = T0 + 25_001;
    const lines = await live.poll();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/created 3 \(\+3\)/);
  });

  it('labels a period by its end, never before the shared start, and shows the pub/sub key figures', async () => {
    const startAt = T0 + 7_000; // the first period (aligned to 10 s) began before the run did
    await store.put('control/start.json', JSON.stringify({ startAt }));
    const live = new LiveMerger(store, ['g01'], () => T0 + 60_000);
    const delivery = new DDSketch();
    for (let i = 1; i <= 100; i++) delivery.accept(i);
    const p: PeriodMetrics = { period: T0, counters: { 'vusers.created': 4, 'pubsub.messages_received': 90, 'pubsub.messages_expected': 100 }, histograms: { 'pubsub.delivery_latency': delivery }, rates: {} };
    await store.put('generators/g01/p0/periods/a.json', serializePeriod(p));
    const [line] = await live.flush();
    expect(line).toMatch(new RegExp(`^${new Date(T0 + 10_000).toISOString().slice(11, 19)} T\\+0:03 `));
    expect(line).toMatch(/delivery p95 9\d(\.\d)? ms/);
    expect(line).toContain('receipt 90.0% (90/100)');
  });
});
