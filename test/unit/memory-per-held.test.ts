/** Memory per held vuser is RSS growth over what was held, measured where it can be; nothing held, no figure. */
import { memoryPerHeldVuser, peakHeldOf } from '../../scripts/report/write';
import type { HealthSample } from '../../scripts/core/verdict';
import type { TargetSample } from '../../scripts/adapters/target-metrics';

const MB = 1024 * 1024;
/** Two samples of one load process: RSS grows by `growMb`, holding `sockets` at the second. */
const health = (growMb: number, sockets: number): HealthSample[] => [
  { at: 0, generator: 'g01', process: 'p0', rssBytes: 100 * MB, socketsEstablished: 0 },
  { at: 5000, generator: 'g01', process: 'p0', rssBytes: (100 + growMb) * MB, socketsEstablished: sockets },
];

describe('memoryPerHeldVuser', () => {
  test("the reference target's connections are the held count when it reports them", () => {
    const target: TargetSample[] = [{ at: 0, connections: 0, rssBytes: 50 * MB }, { at: 5000, connections: 1000, rssBytes: 70 * MB }];
    const h = health(20, 1000);
    const m = memoryPerHeldVuser(peakHeldOf(1000, target, h), 5000, h, target);
    expect(m).toEqual({ peakHeld: 1000, generatorBytes: (20 * MB) / 1000, targetBytes: (20 * MB) / 1000 });
  });

  test("a user's own target (no /metrics): the generators' established sockets, not the plan's peak", () => {
    const h = health(10, 5000);
    const m = memoryPerHeldVuser(peakHeldOf(undefined, [], h), 8000, h, []);
    expect(m.peakHeld).toBe(5000);
    expect(m.generatorBytes).toBe((10 * MB) / 5000);
    expect(m.targetBytes).toBeUndefined();
  });

  test('a run that held no connection (HTTP-only steps) has no figure, instead of start-up growth ÷ the plan (was 2,286 KB "per held vuser" for 8 vusers)', () => {
    const h = health(18, 0);
    const m = memoryPerHeldVuser(peakHeldOf(8, [], h), 8, h, []);
    expect(m).toEqual({ peakHeld: 0, generatorBytes: undefined, targetBytes: undefined });
  });

  test('fewer than 1,000 held: no figure (start-up growth would dominate: 10 held read as 2,692 KB each), the peak kept', () => {
    const h = health(26, 10);
    expect(memoryPerHeldVuser(peakHeldOf(20, [], h), 20, h, [])).toEqual({ peakHeld: 10, generatorBytes: undefined, targetBytes: undefined });
    const enough = health(20, 1000);
    expect(memoryPerHeldVuser(peakHeldOf(undefined, [], enough), 1000, enough, []).generatorBytes).toBe((20 * MB) / 1000);
  });

  test('no socket counts at all (no health samples with them): the plan is the fallback', () => {
    const h: HealthSample[] = [{ at: 0, generator: 'g01', process: 'p0', rssBytes: 100 * MB }, { at: 5000, generator: 'g01', process: 'p0', rssBytes: 104 * MB }];
    expect(memoryPerHeldVuser(peakHeldOf(undefined, [], h), 4000, h, [])).toMatchObject({ peakHeld: 4000, generatorBytes: (4 * MB) / 4000 });
  });
});

describe('peakHeldOf', () => {
  const at = (t: number, sockets: number): HealthSample => ({ at: t, generator: 'g01', process: 'p0', rssBytes: 100 * MB, socketsEstablished: sockets });
  test('sessions shorter than the 5-s sampling: not sampled, no count caught by chance (was 0 with 20 vusers held 2 s)', () => {
    const h = [at(0, 0), at(5000, 0), at(10_000, 0)];
    expect(peakHeldOf(20, [], h, { p50: 2100 })).toEqual({ requested: 20, notSampled: 'sessions shorter than the 5-s sampling' });
    expect(peakHeldOf(20, [], h)).toEqual({ requested: 20, generatorSockets: 0 });
    // Nor a memory figure: nothing measured was held, and growth ÷ the plan's 5,000 is the figure the sampling replaced.
    const grown = [{ ...at(0, 0), rssBytes: 100 * MB }, { ...at(5000, 0), rssBytes: 160 * MB }];
    expect(memoryPerHeldVuser(peakHeldOf(5000, [], grown, { p50: 2100 }), 5000, grown, [])).toEqual({ peakHeld: 0, generatorBytes: undefined, targetBytes: undefined });
  });
  test('sessions of the sampling interval or longer: the sampled peak', () => {
    expect(peakHeldOf(20, [{ at: 5000, connections: 20 }], [at(0, 0), at(5000, 20)], { p50: 12_000 })).toEqual({ requested: 20, targetConnections: 20, generatorSockets: 20 });
  });
});
