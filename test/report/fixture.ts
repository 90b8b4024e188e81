/** A synthetic report.json with hostile text everywhere the report shows run data. */
import { decideVerdict } from '../../scripts/core/verdict';
import type { HistogramSummary } from '../../scripts/core/merge';
import type { ReportJson } from '../../scripts/report/types';

export const XSS = '<img src=x onerror=alert(1)>';
export const T0 = 1_700_000_000_000;

const hist = (p99: number): HistogramSummary => ({ min: 1, max: p99 + 5, count: 10, mean: p99 / 2, p50: p99 / 3, median: p99 / 3, p75: p99 / 2, p90: p99 * 0.8, p95: p99 * 0.9, p99, p999: p99 + 1 });

/** Builds the fixture: 3 periods, g01 saturated in the second (with errors), target scaling 2 → 3. */
export function hostileReport(): ReportJson {
  const errorName = `errors.${XSS}`;
  const intermediate = [0, 1, 2].map((i) => {
    const counters: Record<string, number> = { 'vusers.created': 100, 'vusers.completed': i ? 90 : 0, 'vusers.failed': i === 1 ? 10 : 0, 'pubsub.messages_received': 500 * (i + 1) };
    if (i === 1) counters[errorName] = 10;
    const summaries = { 'pubsub.delivery_latency': hist(100 + i * 50), [`ws.${XSS}`]: hist(10 + i) };
    return { counters, rates: {}, histograms: summaries, summaries, period: T0 + i * 10_000 };
  });
  const health = [0, 1, 2, 3, 4, 5].flatMap((i) => [
    { at: T0 + 5000 * i + 100, generator: 'g01', process: 'p0', cpuPercent: i === 2 || i === 3 ? 97 : 30, eventLoopLagMs: 10 + i, rssBytes: 200e6, openFiles: 100, openFilesLimit: 20_000, portsInUse: 50 },
    { at: T0 + 5000 * i + 120, generator: 'g02', process: 'p0', cpuPercent: 20, eventLoopLagMs: 9, rssBytes: 210e6, openFiles: 90, openFilesLimit: 20_000, portsInUse: 45 },
  ]);
  const verdict = decideVerdict({ samples: health, portRange: 28_232, periodMs: 10_000, errorsByPeriod: new Map([[T0 + 10_000, 10]]), lostGenerators: [] });
  const aggCounters: Record<string, number> = { 'vusers.created': 300, 'vusers.completed': 180, 'vusers.failed': 10, 'pubsub.messages_received': 3000, 'pubsub.messages_expected': 3200, [errorName]: 10 };
  const aggSummaries = { 'pubsub.delivery_latency': hist(200), [`ws.${XSS}`]: hist(12) };
  return {
    runId: `run-${XSS}`,
    platform: 'local',
    target: `http://127.0.0.1:1/"><script>alert(2)</script>`,
    scenario: `pubsub ${XSS}`,
    status: 'completed',
    startedAt: T0,
    endedAt: T0 + 30_000,
    aggregate: { counters: aggCounters, rates: {}, summaries: aggSummaries },
    rig: {
      plan: { generators: 2, arrivalsPerGenerator: [150, 150], peakConcurrent: 300, capacityPerGenerator: 19_700, bindingLimit: 'openFiles' },
      generators: [
        { id: 'g01', counters: { 'vusers.created': 150 }, startedAt: T0, health: { peakCpuPercent: 97, peakEventLoopLagMs: 15, peakRssBytes: 200e6, peakOpenFiles: 100, openFilesLimit: 20_000, peakPortsInUse: 50 } },
        { id: 'g02', counters: { 'vusers.created': 150 }, startedAt: T0 + 7, health: { peakCpuPercent: 20 }, lost: `agent said ${XSS}` },
      ],
      startSkewMs: 7,
      verdict: verdict.verdict,
      verdictDetail: verdict,
      lostGenerators: [],
    },
    figures: [{ label: 'messages published', value: 1200, unit: 'count', text: '1,200' }],
    failedRatio: 10 / 300,
    thresholds: [
      { expression: `vusers.failed == 0 and "${XSS}"`, ok: false, error: `bad ${XSS}` },
      { expression: 'pubsub.delivery_latency.p99 < 300', ok: true },
    ],
    result: { passed: false, exitCode: 1, reasons: [`10 of 300 vusers failed (3.33%) > --max-error-rate 0%`, `threshold \`${XSS}\` breached`] },
    intermediate,
    byGenerator: {},
    timeline: {
      periodMs: 10_000,
      health,
      target: [0, 1, 2, 3, 4, 5].map((i) => ({ at: T0 + 5000 * i + 500, instances: i < 3 ? 2 : 3, connections: 50 * i, cpuPercent: 40 + i, rssBytes: 1e8 })),
    },
    phases: [{ generator: 'g01', phases: [{ name: XSS, duration: 20, arrivalCount: 150 }] }],
    cloudwatch: {
      series: [{ id: 'cpu', label: `TargetCPU ${XSS}`, unit: 'Percent', timestamps: [T0, T0 + 60_000], values: [10, 55] }],
      alarms: [{ at: T0 + 20_000, name: `alarm ${XSS}`, state: 'ALARM' }],
    },
  };
}
