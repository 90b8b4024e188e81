/** Latency distributions of the report (scripts/report/distribution.ts), from real DDSketches. */
import { DDSketch } from '@artilleryio/sketches-js';
import { distributionOf, distributionsOf } from '../../scripts/report/distribution';

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

  test('an empty sketch has none', () => {
    expect(distributionOf(sketch([]))).toBeUndefined();
  });
});
