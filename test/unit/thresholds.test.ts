import { evaluateThresholds, metricVariables } from '../../scripts/report/thresholds';

const aggregate = {
  counters: { 'vusers.created': 300, 'vusers.failed': 0, 'errors.ETIMEDOUT': 3, 'pubsub.messages_received': 950, 'pubsub.messages_expected': 1000 },
  rates: { 'pubsub.messages_per_sec': 12.5 },
  summaries: {
    'pubsub.delivery_latency': { min: 1, max: 410, count: 950, mean: 40, p50: 30, median: 30, p75: 50, p90: 120, p95: 180, p99: 290.4, p999: 400 },
    'ws.connect_time': { min: 1, max: 80, count: 300, mean: 9, p50: 6, median: 6, p75: 9, p90: 15, p95: 20, p99: 47.9, p999: 80 },
  },
};

describe('evaluateThresholds', () => {
  test('the issue examples over the merged aggregate', () => {
    expect(evaluateThresholds(['pubsub.delivery_latency.p99 < 300', 'vusers.failed == 0'], aggregate)).toEqual([
      { expression: 'pubsub.delivery_latency.p99 < 300', ok: true },
      { expression: 'vusers.failed == 0', ok: true },
    ]);
  });

  test('a breached expression is not ok', () => {
    const [r] = evaluateThresholds(['ws.connect_time.p99 < 20'], aggregate);
    expect(r).toEqual({ expression: 'ws.connect_time.p99 < 20', ok: false });
  });

  test('filtrex operators: and/or/not, arithmetic, ratios of counters', () => {
    const results = evaluateThresholds(
      [
        'pubsub.messages_received / pubsub.messages_expected >= 0.95',
        'errors.ETIMEDOUT < 5 and vusers.created == 300',
        'not (vusers.failed > 0) or vusers.created < 10',
        'pubsub.messages_per_sec > 10',
        'pubsub.delivery_latency.p99 < 300 and pubsub.delivery_latency.max < 400',
      ],
      aggregate,
    );
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, false]);
  });

  test('a metric the run never produced counts as 0, like a counter, and the result names it', () => {
    const results = evaluateThresholds(['ws.dropped == 0', 'errors.ECONNRESET < 1'], aggregate);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results[0]?.note).toBe('ws.dropped was not recorded by this run (counted as 0)');
    expect(evaluateThresholds(['ws.dropped > 0'], aggregate)[0]?.ok).toBe(false);
    // Names the run recorded carry no note.
    expect(evaluateThresholds(['vusers.failed == 0'], aggregate)[0]).toEqual({ expression: 'vusers.failed == 0', ok: true });
  });

  test('a misspelt name still holds as 0, but the note names the recorded name it is closest to', () => {
    const [r] = evaluateThresholds(['vusers.faild == 0'], aggregate);
    expect(r).toEqual({ expression: 'vusers.faild == 0', ok: true, note: 'vusers.faild was not recorded by this run (counted as 0; did you mean vusers.failed?)' });
  });

  test('an undotted name is a metric name too (was left undefined: `garbage` read as breached with no reason)', () => {
    const [r] = evaluateThresholds(['garbage < 1'], aggregate);
    expect(r).toMatchObject({ ok: true, note: 'garbage was not recorded by this run (counted as 0)' });
    const own = { counters: { myCounter: 4 }, rates: {}, summaries: {} };
    expect(evaluateThresholds(['myCounter == 4'], own)[0]).toEqual({ expression: 'myCounter == 4', ok: true });
  });

  test("a statistic of a histogram the run never recorded, or one histograms lack, cannot be evaluated (not 0)", () => {
    expect(evaluateThresholds(['http.response_time.p99 < 300'], aggregate)[0]).toEqual({
      expression: 'http.response_time.p99 < 300',
      ok: false,
      error: 'this run recorded no histogram http.response_time (histograms: pubsub.delivery_latency, ws.connect_time), so http.response_time.p99 has no value',
    });
    expect(evaluateThresholds(['ws.connect_time.p98 < 300'], aggregate)[0]?.error).toBe('ws.connect_time has no statistic p98; use one of min, max, mean, median, count, p50, p75, p90, p95, p99, p999');
  });

  test('a histogram of a family the run recorded, absent because nothing fell in it, reads 0 with a note (no 5xx: no 5xx latency)', () => {
    const [r] = evaluateThresholds(['ws.connect_time.5xx.p99 < 300'], aggregate);
    expect(r).toMatchObject({ ok: true, note: 'ws.connect_time.5xx.p99 was not recorded by this run (counted as 0)' });
  });

  test("filtrex's functions and words, and quoted strings, are not metric names", () => {
    const [r] = evaluateThresholds(['max(ws.connect_time.p99, pubsub.delivery_latency.p99) < 300 and not (vusers.failed > 0)'], aggregate);
    expect(r).toEqual({ expression: 'max(ws.connect_time.p99, pubsub.delivery_latency.p99) < 300 and not (vusers.failed > 0)', ok: true });
    expect(evaluateThresholds(['"a.b" == "a.b"'], aggregate)[0]).toEqual({ expression: '"a.b" == "a.b"', ok: true });
  });

  test('a name that is a prefix of another is replaced whole (longest first)', () => {
    const agg = { counters: { 'a.b': 1, 'a.b.c': 100 }, rates: {}, summaries: {} };
    expect(evaluateThresholds(['a.b.c == 100 and a.b == 1'], agg)[0]?.ok).toBe(true);
  });

  test('an expression that does not parse is reported as breached, with the reason', () => {
    const [r] = evaluateThresholds(['vusers.failed =='], aggregate);
    expect(r?.ok).toBe(false);
    expect(r?.error).toMatch(/cannot evaluate/);
  });

  test('metricVariables flattens counters, rates and every histogram stat', () => {
    const vars = metricVariables(aggregate);
    expect(vars.get('vusers.created')).toBe(300);
    expect(vars.get('pubsub.messages_per_sec')).toBe(12.5);
    expect(vars.get('ws.connect_time.p99')).toBe(47.9);
    expect(vars.get('pubsub.delivery_latency.p999')).toBe(400);
  });
});
