/** The live progress line: periods are shown once every process has passed them, or once they are settled. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { localStore } from '../../load-generators/lib/run-store';
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
});
