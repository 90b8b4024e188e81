/** The terminal summary shows the engine's metrics the way Artillery's own summary prints them. */
import { artillerySummaryLines, padded, suppressedMetricNames } from '../../scripts/report/artillery-format';

const h = { min: 1, max: 9.5, count: 4, mean: 4.1, p50: 3, median: 3, p75: 5, p90: 8, p95: 9, p99: 9.5, p999: 9.5 };

test("Artillery's padded line: name, a space, dots to column 79, a space, the value", () => {
  const line = padded('http.codes.200:', 12);
  expect(line).toBe(`http.codes.200: ${'.'.repeat(79 - 'http.codes.200:'.length)} 12`);
  expect(line.indexOf(' 12')).toBe(80);
});

test('every counter, histogram and rate sorted by name; histograms as min/max/mean/median/p95/p99; bookkeeping left out', () => {
  const lines = artillerySummaryLines({
    counters: { 'socketio.emit': 40, 'http.codes.200': 12, 'my.custom_counter': 3, 'websocket.messages_sent': 7, 'rooms.sent_per_s.1763900000': 5 },
    rates: { 'http.request_rate': 2 },
    summaries: { 'my.custom_histogram': h },
  });
  expect(lines).toEqual([
    padded('http.codes.200:', 12),
    `${padded('http.request_rate:', 2)}/sec`,
    padded('my.custom_counter:', 3),
    'my.custom_histogram:',
    padded('  min:', 1),
    padded('  max:', 9.5),
    padded('  mean:', 4.1),
    padded('  median:', 3),
    padded('  p95:', 9),
    padded('  p99:', 9.5),
    padded('socketio.emit:', 40),
    padded('websocket.messages_sent:', 7),
  ]);
});

describe("metrics Artillery's console leaves out (cmds/run.js getPluginMetricsToSuppress)", () => {
  test('metrics-by-endpoint by default; any plugin that says suppressOutput; not a metrics-by-endpoint the script configures', () => {
    expect(suppressedMetricNames(undefined)).toEqual(['plugins.metrics-by-endpoint']);
    expect(suppressedMetricNames({ expect: {}, publish: { suppressOutput: true } })).toEqual(['plugins.publish', 'plugins.metrics-by-endpoint']);
    expect(suppressedMetricNames({ 'metrics-by-endpoint': { useOnlyRequestNames: true } })).toEqual([]);
  });
  test('left out of the printed lines by containment, as console-reporter.js does', () => {
    const section = { counters: { 'plugins.metrics-by-endpoint./a.codes.200': 1, 'plugins.expect.ok': 1, 'http.codes.200': 1 }, rates: {}, summaries: {} };
    const lines = artillerySummaryLines(section, suppressedMetricNames(undefined)).join('\n');
    expect(lines).not.toContain('metrics-by-endpoint');
    expect(lines).toContain('plugins.expect.ok');
    expect(artillerySummaryLines(section).join('\n')).toContain('metrics-by-endpoint');
  });
});
