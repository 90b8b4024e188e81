import { averagePerSecond, clockRows, peakConcurrent, peakPerSecond, peakRateFromPeriods, scenarioFigures } from '../../scripts/report/scenario-figures';

const row = (rows: Array<{ label: string; text: string }>, label: string) => rows.find((r) => r.label === label)?.text;

test('per-second families: peak, average, concurrency', () => {
  const c = { 'rooms.sent_per_s.100': 5, 'rooms.sent_per_s.101': 20, 'rooms.sent_per_s.103': 5, other: 1 };
  expect(peakPerSecond(c, 'rooms.sent_per_s.')).toBe(20);
  expect(averagePerSecond(c, 'rooms.sent_per_s.')).toBe(30 / 4);
  expect(peakPerSecond({}, 'x.')).toBeUndefined();
  const conns = { 'o.1': 10, 'o.2': 10, 'c.2': 5, 'o.3': 1, 'c.3': 10, 'c.4': 6 };
  expect(peakConcurrent(conns, 'o.', 'c.')).toBe(20);
});

test('peak rate from 10-s periods', () => {
  const periods = [
    { period: 0, counters: { m: 100 }, summaries: {} },
    { period: 10_000, counters: { m: 250 }, summaries: {} },
  ];
  expect(peakRateFromPeriods(periods, 'm')).toBe(25);
});

test('rooms shows every row of the Relaybox table', () => {
  const rows = scenarioFigures(
    'rooms',
    {
      counters: { 'vusers.created': 10, 'vusers.completed': 9, 'vusers.failed': 1, 'pubsub.messages_sent': 90, 'ws.connected': 10, 'rooms.sent_per_s.5': 30, 'rooms.sent_per_s.6': 60, 'rooms.conn_open.5': 10, 'rooms.conn_close.9': 10 },
      summaries: { 'vusers.session_length': { min: 1, max: 3, mean: 2, median: 2, p95: 3, p99: 3 }, 'pubsub.delivery_latency': { min: 1, max: 9, mean: 4, p95: 8, p99: 9 } },
    },
    [],
  );
  for (const l of ['virtual users created', 'virtual users completed', 'virtual users failed', 'session length min', 'session length max', 'session length mean', 'session length median', 'session length p95', 'session length p99', 'messages sent', 'average send rate', 'peak send rate', 'delivery time min', 'delivery time max', 'delivery time mean', 'delivery time p95', 'delivery time p99', 'peak concurrent connections', 'total sessions']) {
    expect(row(rows, l)).toBeDefined();
  }
  expect(row(rows, 'peak send rate')).toBe('60/sec');
  expect(row(rows, 'average send rate')).toBe('45/sec');
  expect(row(rows, 'peak concurrent connections')).toBe('10');
});

test('pubsub and presence rows', () => {
  const p = scenarioFigures('pubsub', { counters: { 'pubsub.messages_received': 50, 'pubsub.messages_expected': 100, 'pubsub.vusers_zero_messages': 2, 'ws.connected': 10 }, summaries: { 'pubsub.delivery_latency': { p50: 400, p95: 410, p99: 420 }, 'clock.offset_ms': { min: -1, max: 2, count: 2 } } }, []);
  expect(row(p, 'receipt ratio')).toBe('50 %');
  expect(row(p, 'vusers with zero messages')).toBe('2 of 10 connected (20 %)');
  expect(row(p, 'delivery latency p50')).toBe('400 ms');
  expect(row(p, 'clock offset vs target (per process)')).toBeUndefined(); // rig-internal: shown with the plan
  expect(clockRows({ counters: {}, summaries: { 'clock.offset_ms': { min: -1, max: 2, count: 2 } } })[0]?.text).toBe('-1 ms … 2 ms over 2 process(es)');
  expect(p.find((r) => r.label === 'receipt ratio')).toMatchObject({ value: 50, unit: '%' });
  const pr = scenarioFigures('presence', { counters: { 'presence.announcements_received': 90, 'presence.target_announcements_sent': 100 }, summaries: { 'target.peak_send_rate_per_sec': { max: 1200 } } }, []);
  expect(row(pr, 'received / sent')).toBe('90 %');
  expect(row(pr, 'target peak send rate')).toBe('1,200/s');
  expect(scenarioFigures('connect', { counters: {}, summaries: {} }, [])).toEqual([]);
});
