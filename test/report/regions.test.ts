/**
 * The per-region section: each region's figures from its own generators' periods (merged exactly), in the
 * summary JSON (a `regions` block, the existing fields unchanged), report.json (with each region's timeline),
 * report.html (one column per region, a timeline per region) and the rebuild from the run folder.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DDSketch } from '@artilleryio/sketches-js';
import { localStore } from '../../load-generators/lib/run-store';
import { PeriodMetrics, serializePeriod } from '../../scripts/core/merge';
import type { Plan } from '../../scripts/core/plan';
import { planRegions } from '../../scripts/core/regions';
import { formatRegionTable, regionsOf } from '../../scripts/report/regions';
import { writeReport } from '../../scripts/report/write';
import { tempDir } from '../helpers/cli';
import { chartData, openReport } from './browser';

const T0 = 1_700_000_000_000;

function sketch(values: number[]): DDSketch {
  const h = new DDSketch({ relativeAccuracy: 0.01 });
  for (const v of values) h.accept(v);
  return h;
}

/** One period of one generator: `created` vusers, `delivery` latencies (ms), `sent` messages. */
function period(at: number, created: number, failed: number, delivery: number[], sent: number): PeriodMetrics {
  return {
    period: at,
    counters: { 'vusers.created': created, 'vusers.completed': created - failed, 'vusers.failed': failed, 'pubsub.messages_sent': sent },
    histograms: { 'pubsub.delivery_latency': sketch(delivery), 'vusers.session_length': sketch([20_000 + created]) },
    rates: {},
    firstCounterAt: at + 1,
    lastCounterAt: at + 9_000,
  };
}

// London-like and Virginia-like delivery times, as in Relaybox's two columns (43 ms and 56 ms means).
const DATA: Record<string, PeriodMetrics[]> = {
  g01: [period(T0, 30, 0, [40, 42, 44], 300), period(T0 + 10_000, 30, 1, [43, 45], 280)],
  g02: [period(T0, 30, 0, [41, 43], 310), period(T0 + 10_000, 30, 0, [44, 46, 47], 290)],
  g03: [period(T0, 20, 0, [55, 56, 58], 200), period(T0 + 10_000, 20, 2, [54, 57], 190)],
};

async function writeRun(dir: string) {
  const store = localStore(dir);
  for (const [id, periods] of Object.entries(DATA)) {
    for (const p of periods) await store.put(`generators/${id}/p0/periods/${p.period}.json`, serializePeriod(p));
  }
  const limits = { processes: 1, openFiles: 60_000, ephemeralPorts: 60_000, sourceAddresses: 1, memoryBytes: 4e9, bytesPerVuser: 50_000, socketsPerVuser: 1 };
  const regional = planRegions({ phases: [{ duration: 20, arrivalCount: 160 }], sessionSeconds: 20, generators: 3, regions: [{ region: 'eu-west-2', weight: 3, limits }, { region: 'us-east-1', weight: 1, limits }] });
  const input = {
    runId: 'r1', platform: 'aws' as const, target: 'http://t', scenario: 'rooms', rigScenario: 'rooms', plan: regional.plan as Plan,
    generatorIds: ['g01', 'g02', 'g03'], startAt: T0, endedAt: T0 + 20_000, interrupted: false, timedOut: false,
    lostGenerators: [], portRange: 64_512, ensure: [], maxErrorRate: 1,
  };
  const withRegions = await writeReport(store, { ...input, regions: regionsOf(regional) });
  return { regional, withRegions, input, store };
}

jest.setTimeout(60_000);

test('per-region columns: Relaybox\'s figures from each region\'s generators, adding up to the run; the summary JSON gains `regions` only', async () => {
  const dir = tempDir('rig-regions-report-');
  const { regional, withRegions, input } = await writeRun(dir);
  expect(regional.regions.map((r) => r.generatorIndices)).toEqual([[0, 1], [2]]);
  const { summary, report } = withRegions;
  const [eu, us] = summary.regions ?? [];
  expect(eu).toMatchObject({ region: 'eu-west-2', weight: 3, generatorIds: ['g01', 'g02'], plannedVusers: 120, vusersCreated: 120, vusersCompleted: 119, vusersFailed: 1, messagesSent: 1180 });
  expect(us).toMatchObject({ region: 'us-east-1', weight: 1, generatorIds: ['g03'], plannedVusers: 40, vusersCreated: 40, vusersCompleted: 38, vusersFailed: 2, messagesSent: 390 });
  // Each region's delivery time from its own samples only (DDSketch at 1% relative accuracy).
  expect(eu?.deliveryTime?.min).toBeCloseTo(40, -0.5);
  expect(eu?.deliveryTime?.max).toBeCloseTo(47, -0.5);
  expect(us?.deliveryTime?.min).toBeCloseTo(54, -0.5);
  expect(us?.deliveryTime?.max).toBeCloseTo(58, -0.5);
  expect(eu!.deliveryTime!.mean).toBeLessThan(us!.deliveryTime!.mean);
  for (const k of ['p95', 'p99'] as const) expect(us!.deliveryTime![k]).toBeGreaterThan(eu!.deliveryTime![k]);
  expect(eu?.sessionLength?.count).toBe(4);
  // The columns add up to the run's counters.
  for (const [key, field] of [['vusers.created', 'vusersCreated'], ['vusers.failed', 'vusersFailed'], ['pubsub.messages_sent', 'messagesSent']] as const) {
    expect((eu?.[field] ?? 0) + (us?.[field] ?? 0)).toBe(summary.aggregate.counters[key]);
  }
  // The summary's block has no timeline; report.json's has one per region, period by period.
  expect(eu).not.toHaveProperty('timeline');
  expect(report.regions?.[1]?.timeline).toEqual([
    { period: T0, created: 20, failed: 0, deliveryP95: expect.any(Number) },
    { period: T0 + 10_000, created: 20, failed: 2, deliveryP95: expect.any(Number) },
  ]);

  // Without regions, the same run writes no `regions` key and every other field is the same.
  const plainDir = tempDir('rig-regions-plain-');
  fs.cpSync(path.join(dir, 'generators'), path.join(plainDir, 'generators'), { recursive: true });
  const plain = await writeReport(localStore(plainDir), input);
  expect(plain.summary).not.toHaveProperty('regions');
  const { regions: _r, ...rest } = summary;
  expect(rest).toEqual(plain.summary);

  // report.html: the "By region" table (one column per region) and each region's timeline.
  const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
  expect(html).toMatch(/<h2 id="regions">By region<\/h2>/);
  expect(html).toMatch(/<th class="num">eu-west-2<\/th><th class="num">us-east-1<\/th>/);
  expect(html).toMatch(/<td class="name">virtual users failed<\/td><td class="num">1<\/td><td class="num">2<\/td>/);
  expect(html).toContain('id="chart-region-created"');
  expect(html).toContain('id="chart-region-delivery-p95"');
  expect(formatRegionTable(summary.regions ?? []).split('\n')[0]).toMatch(/^by region\s+eu-west-2\s+us-east-1$/);

  // In a browser: each region's timeline is drawn, one line per region, with the per-period counts.
  const opened = await openReport(path.join(dir, 'report.html'));
  try {
    expect(opened.consoleErrors).toEqual([]);
    const created = (await chartData(opened.page)).find((c) => c.id === 'region-created');
    expect(created?.width).toBeGreaterThan(300);
    expect(created?.series.map((x) => [x.label, x.points.slice(0, 2).map((p) => p[1])])).toEqual([['eu-west-2', [60, 60]], ['us-east-1', [20, 20]]]);
  } finally {
    await opened.close();
  }

  // outcome.json keeps which generators ran where, so `npm run report` rebuilds the section.
  const outcome = JSON.parse(fs.readFileSync(path.join(dir, 'outcome.json'), 'utf8')) as { regions: unknown };
  expect(outcome.regions).toEqual(regionsOf(regional));
});
