/** Latency distributions of the report (scripts/report/distribution.ts), from real DDSketches. */
import { DDSketch } from '@artilleryio/sketches-js';
import { distributionOf, distributionsOf } from '../../scripts/report/distribution';
import { histogramUnit } from '../../scripts/report/units';

const sketch = (values: number[]): DDSketch => {
  const s = new DDSketch({ relativeAccuracy: 0.01 });
  for (const v of values) s.accept(v);
  return s;
};

describe('distributionOf', () => {
  test('counts every sample once, in buckets and in ranges', () => {
    const d = distributionOf(sketch([3, 7, 12, 48, 120, 120, 900, 2600]));
    expect(d?.count).toBe(8);
    expect(d?.buckets.reduce((a, b) => a + b.count, 0)).toBe(8);
    expect(d?.ranges.reduce((a, r) => a + r.count, 0)).toBe(8);
    expect(d?.ranges.map((r) => r.label)).toEqual(['t < 10 ms', '10 ms ≤ t < 50 ms', '50 ms ≤ t < 100 ms', '100 ms ≤ t < 250 ms', '250 ms ≤ t < 500 ms', '500 ms ≤ t < 1 s', '1 s ≤ t < 2.5 s', 't ≥ 2.5 s']);
  });

  // Artillery records NaN for http.tls on a plain-HTTP connection (config.http.extendedMetrics): the sketch counts it
  // with no finite range, and the edges loop never ended (the run died at its end, "Invalid array length").
  test('a sketch of NaN samples has no distribution (and the report is still written)', () => {
    expect(distributionOf(sketch([NaN, NaN, NaN]))).toBeUndefined();
    expect(Object.keys(distributionsOf({ 'http.tls': sketch([NaN]), 'http.response_time': sketch([5, 6]) }))).toEqual(['http.response_time']);
  });

  // Artillery's histograms have no unit: its own, the engines' and the rig's are ms, a script's own are whatever it
  // records (events.emit('histogram', 'cart.items', 3)); they were labelled "ms" everywhere in the report.
  test("a script's own histogram keeps its values, without a unit; times keep ms", () => {
    const d = distributionsOf({ 'cart.items': sketch([3, 7, 12, 48]), 'p2.session_ms': sketch([3, 20]), 'http.response_time': sketch([3, 20]) });
    expect(d['cart.items']?.ranges.map((r) => r.label)).toEqual(['v < 10', 'v ≥ 10']);
    expect(d['p2.session_ms']?.ranges.map((r) => r.label)).toEqual(['t < 10 ms', 't ≥ 10 ms']);
    expect(d['http.response_time']?.ranges.map((r) => r.label)).toEqual(['t < 10 ms', 't ≥ 10 ms']);
  });

  test('which histograms are times: Artillery\'s, the engines\', the rig\'s, and names that say so', () => {
    for (const n of ['http.response_time', 'http.response_time.2xx', 'vusers.session_length', 'socketio.response_time', 'ws.connect_time', 'pubsub.delivery_latency', 'broadcast.latency', 'http.dns', 'http.total', 'plugins.metrics-by-endpoint.response_time./x', 'browser.page.FCP.https://x/', 'browser.page.dominteractive', 'browser.step.login', 'plugins.metrics-by-endpoint.server-timing./x', 'broadcast.echo_half_rtt', 'checkout.duration', 'p2.session_ms']) {
      expect([n, histogramUnit(n)]).toEqual([n, 'ms']);
    }
    for (const n of ['cart.items', 'cart.total', 'p2.rand', 'payload.bytes', 'browser.page.CLS.https://x/', 'browser.memory_used_mb', 'browser.page.CLS.https://x/delay-page', 'plugins.metrics-by-endpoint./latency.codes', 'queue.depth']) expect([n, histogramUnit(n)]).toEqual([n, undefined]);
  });

  test('an empty sketch has none', () => {
    expect(distributionOf(sketch([]))).toBeUndefined();
  });
});
