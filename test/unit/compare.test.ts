/**
 * The comparison core (rows, deltas, load differences, the text table) and `--ensure` expressions
 * against a baseline (`baseline.*`, bare statistics, a baseline that ran other load).
 */
import { BaselineInput, evaluateRunChecks, evaluateWithBaseline, expandBareStatistics, headlineLatency } from '../../scripts/report/baseline';
import { ComparedRun, RunLoad, compareRuns, formatComparison, loadDifferences, phasesOf } from '../../scripts/report/compare';
import { thresholdReason } from '../../scripts/report/result';
import { evaluateThresholds, flagEnsureChecks } from '../../scripts/report/thresholds';
import type { HistogramSummary } from '../../scripts/core/merge';

const hist = (p50: number, p95: number, p99: number): HistogramSummary => ({ min: 1, max: p99 + 1, count: 10, mean: p50, p50, median: p50, p75: p95, p90: p95, p95, p99, p999: p99 });
const LOAD: RunLoad = { scenario: 'pubsub', vusers: 60, phases: ['ramp 4 s, 60 arrivals'], holdSeconds: 2, vars: { rooms: '3' } };

function run(id: string, p99: number, counters: Record<string, number>, over: Partial<RunLoad> = {}, passed = true): ComparedRun {
  return {
    summary: {
      runId: id,
      scenario: over.scenario ?? 'pubsub',
      status: 'completed',
      aggregate: { counters, rates: { 'socketio.emit_rate': 12 }, summaries: { 'pubsub.delivery_latency': hist(p99 / 4, p99 / 2, p99), 'ws.connect_time': hist(3, 8, 9) } },
      failedRatio: (counters['vusers.failed'] ?? 0) / (counters['vusers.created'] ?? 1),
      result: { passed, exitCode: passed ? 0 : 1, reasons: [] },
      rig: { verdict: 'trustworthy', plan: { generators: 2, arrivalsPerGenerator: [30, 30], peakConcurrent: 60, capacityPerGenerator: 1000, bindingLimit: 'openFiles' } },
    },
    load: { ...LOAD, ...over },
  };
}

describe('compareRuns', () => {
  const base = run('base', 100, { 'vusers.created': 60, 'vusers.failed': 0, 'pubsub.messages_received': 400, 'rooms.sent_per_s.1700000000': 3 });
  const cur = run('cur', 125, { 'vusers.created': 60, 'vusers.failed': 3, 'ws.dropped': 2 }, {}, false);
  const c = compareRuns(base, cur);
  const row = (m: string) => c.rows.find((r) => r.metric === m);

  test('every counter and rate of either run, absolute and relative deltas; a metric only one run has is marked', () => {
    expect(row('vusers.created')).toEqual({ kind: 'counter', metric: 'vusers.created', base: 60, run: 60, delta: 0, relative: 0 });
    // A base of 0 has no relative delta.
    expect(row('vusers.failed')).toEqual({ kind: 'counter', metric: 'vusers.failed', base: 0, run: 3, delta: 3 });
    expect(row('ws.dropped')).toEqual({ kind: 'counter', metric: 'ws.dropped', run: 2 });
    expect(row('pubsub.messages_received')).toEqual({ kind: 'counter', metric: 'pubsub.messages_received', base: 400 });
    expect(row('socketio.emit_rate')).toMatchObject({ kind: 'rate', delta: 0 });
    expect(row('failed ratio')).toMatchObject({ kind: 'ratio', base: 0, run: 0.05 });
    // Per-second bookkeeping counters are not figures to compare.
    expect(row('rooms.sent_per_s.1700000000')).toBeUndefined();
  });

  test('p50, p95 and p99 of every histogram', () => {
    expect(c.rows.filter((r) => r.kind === 'summary').map((r) => r.metric)).toEqual([
      'pubsub.delivery_latency.p50', 'pubsub.delivery_latency.p95', 'pubsub.delivery_latency.p99',
      'ws.connect_time.p50', 'ws.connect_time.p95', 'ws.connect_time.p99',
    ]);
    expect(row('pubsub.delivery_latency.p99')).toEqual({ kind: 'summary', metric: 'pubsub.delivery_latency.p99', base: 100, run: 125, delta: 25, relative: 0.25 });
  });

  test('the text table: both runs, verdicts and results, signed deltas, what only one run has', () => {
    const text = formatComparison(c);
    expect(text).toContain('Comparison: this run cur against baseline base');
    expect(text).toContain('same scenario and load: pubsub, 60 vusers (ramp 4 s, 60 arrivals)');
    const line = (m: string) => text.split('\n').find((l) => l.startsWith(`${m} `))?.split(/\s{2,}/);
    expect(line('pubsub.delivery_latency.p99')).toEqual(['pubsub.delivery_latency.p99', '100', '125', '+25', '+25.0%']);
    expect(line('result')).toEqual(['result', 'PASSED (exit 0)', 'FAILED (exit 1)', 'changed']);
    expect(line('rig verdict')).toEqual(['rig verdict', 'trustworthy', 'trustworthy', 'same']);
    expect(line('ws.dropped')).toEqual(['ws.dropped', '–', '2', 'only in this run', '–']);
    expect(line('failed ratio')).toEqual(['failed ratio', '0%', '5%', '+5 pp', '–']);
  });

  test('a baseline of another scenario or load is said so, each difference named', () => {
    const other = compareRuns(run('b', 100, {}, { scenario: 'connect', vusers: 120, phases: ['ramp 8 s, 120 arrivals'], holdSeconds: 5, vars: { rooms: '6', rate: '2' } }), cur);
    expect(other.differences).toEqual([
      'scenario: baseline connect, this run pubsub',
      'vusers: baseline 120, this run 60',
      'phases: baseline ramp 8 s, 120 arrivals, this run ramp 4 s, 60 arrivals',
      'hold: baseline 5 s, this run 2 s',
      '--var rate: baseline 2, this run (not set)',
      '--var rooms: baseline 6, this run 3',
    ]);
    expect(formatComparison(other)).toMatch(/^NOT COMPARABLE: the baseline ran a different scenario or load/m);
    expect(c.differences).toEqual([]);
  });

  test('load: phases summed over generators; the generator count is not load', () => {
    const two = phasesOf([{ phases: [{ name: 'ramp', duration: 4, arrivalCount: 30 }, { pause: 2 }] }, { phases: [{ name: 'ramp', duration: 4, arrivalCount: 30 }, { pause: 2 }] }]);
    const one = phasesOf([{ phases: [{ name: 'ramp', duration: 4, arrivalCount: 60 }, { pause: 2 }] }]);
    expect(two).toEqual(['ramp 4 s, 60 arrivals', 'phase 2 2 s']);
    expect(loadDifferences({ ...LOAD, phases: one }, { ...LOAD, phases: two })).toEqual([]);
  });
});

describe('--ensure against a baseline', () => {
  const aggregate = (p99: number, failed = 0) => ({ counters: { 'vusers.created': 60, 'vusers.failed': failed }, rates: {}, summaries: { 'pubsub.delivery_latency': hist(p99 / 4, p99 / 2, p99), 'ws.connect_time': hist(3, 8, 9) } });
  const baseline = (p99: number, differences: string[] = []): BaselineInput => ({ runId: 'base', aggregate: aggregate(p99), differences });
  const evaluate = (exprs: string[], runP99: number, base?: BaselineInput) => evaluateWithBaseline(exprs, aggregate(runP99), base, evaluateThresholds);

  test('baseline.<name> reads the baseline: a regression beyond the margin fails (the values it read named), within it holds', () => {
    const expr = 'pubsub.delivery_latency.p99 <= baseline.pubsub.delivery_latency.p99 * 1.1';
    const values = 'pubsub.delivery_latency.p99 = 115, baseline.pubsub.delivery_latency.p99 = 100';
    expect(evaluate([expr], 115, baseline(100))).toEqual([{ expression: expr, ok: false, values }]);
    expect(thresholdReason({ expression: expr, ok: false, values }, aggregate(115))).toBe(`threshold \`${expr}\` breached: ${values}`);
    expect(evaluate([expr], 109, baseline(100))).toEqual([{ expression: expr, ok: true }]);
    expect(evaluate(['vusers.failed <= baseline.vusers.failed'], 100, baseline(100))).toEqual([{ expression: 'vusers.failed <= baseline.vusers.failed', ok: true }]);
  });

  test('the short form: a bare statistic is the headline latency (delivery where there is one), on both sides', () => {
    expect(evaluate(['p99 <= baseline.p99 * 1.1'], 115, baseline(100))).toEqual([
      { expression: 'p99 <= baseline.p99 * 1.1', ok: false, values: 'pubsub.delivery_latency.p99 = 115, baseline.pubsub.delivery_latency.p99 = 100' },
    ]);
    expect(evaluate(['p99 <= baseline.p99 * 1.1', 'p95 < 100'], 105, baseline(100))).toEqual([
      { expression: 'p99 <= baseline.p99 * 1.1', ok: true },
      { expression: 'p95 < 100', ok: true },
    ]);
    expect(expandBareStatistics('p99 <= baseline.p99 * 1.1 and max(p95, 1) < ws.connect_time.p99', aggregate(1))).toEqual({
      expanded: 'pubsub.delivery_latency.p99 <= baseline.pubsub.delivery_latency.p99 * 1.1 and max(pubsub.delivery_latency.p95, 1) < ws.connect_time.p99',
    });
    // Connect time when the scenario delivers no messages; the only histogram of a user's script.
    expect(headlineLatency({ counters: {}, rates: {}, summaries: { 'ws.connect_time': hist(1, 2, 3), 'vusers.session_length': hist(1, 2, 3) } })).toEqual({ name: 'ws.connect_time' });
    expect(headlineLatency({ counters: {}, rates: {}, summaries: { 'checkout.time': hist(1, 2, 3), 'clock.rtt_ms': hist(1, 2, 3) } })).toEqual({ name: 'checkout.time' });
  });

  test('a bare statistic with no or several candidate histograms cannot be evaluated, and says what to write', () => {
    const two = { counters: {}, rates: {}, summaries: { 'a.time': hist(1, 2, 3), 'b.time': hist(1, 2, 3) } };
    const [r] = evaluateWithBaseline(['p99 < 10'], two, undefined, evaluateThresholds);
    expect(r).toEqual({ expression: 'p99 < 10', ok: false, error: 'a bare statistic is ambiguous here (histograms: a.time, b.time); name one, e.g. a.time.p99 <= baseline.a.time.p99 * 1.1' });
    const [none] = evaluateWithBaseline(['p99 < 10'], { counters: {}, rates: {}, summaries: {} }, undefined, evaluateThresholds);
    expect(none?.ok).toBe(false);
    expect(none?.error).toMatch(/recorded none/);
  });

  test('a baseline of another scenario or load is not compared: the expression fails with the differences', () => {
    const [r] = evaluate(['p99 <= baseline.p99 * 1.1'], 50, baseline(100, ['vusers: baseline 120, this run 60']));
    expect(r).toEqual({ expression: 'p99 <= baseline.p99 * 1.1', ok: false, error: 'not compared: baseline base ran a different scenario or load (vusers: baseline 120, this run 60)' });
    // Expressions that do not read the baseline are evaluated as always.
    expect(evaluate(['vusers.failed == 0'], 50, baseline(100, ['x']))).toEqual([{ expression: 'vusers.failed == 0', ok: true }]);
  });

  test('a name the baseline lacks, or baseline.* without a baseline, fails with the reason (never read as 0)', () => {
    expect(evaluate(['ws.dropped <= baseline.ws.dropped'], 50, baseline(100))).toEqual([{ expression: 'ws.dropped <= baseline.ws.dropped', ok: false, error: 'baseline base has no ws.dropped' }]);
    expect(evaluate(['p99 <= baseline.p99'], 50)).toEqual([{ expression: 'p99 <= baseline.p99', ok: false, error: 'it reads baseline.* but the run has no --baseline' }]);
  });

  test("a run's checks: --ensure flags read the baseline, a script's own checks keep Artillery's semantics (no baseline, no bare statistic)", () => {
    const script = { expression: 'p99 <= baseline.p99 * 1.1', evaluate: 'p99 <= baseline.p99 * 1.1', strict: true, source: 'script' as const };
    const results = evaluateRunChecks([...flagEnsureChecks(['p99 <= baseline.p99 * 1.1']), script], aggregate(105), baseline(100));
    expect(results[0]).toEqual({ expression: 'p99 <= baseline.p99 * 1.1', ok: true });
    expect(results[1]?.ok).toBe(false);
    expect(results[1]?.values).toBeUndefined();
  });
});
