import { cpuSecondsPerThousand, generatorBytesPerVuser, periodLagProblems, searchLadder, targetBytesPerVuser, trialProblems } from '../../scripts/bench/figures';

describe('bench figures', () => {
  test('generator bytes per vuser: per generator, process RSS summed per tick, peak minus first, over peak held', () => {
    const s = (at: number, generator: string, process: string, mb: number) => ({ at, generator, process, rssBytes: mb * 2 ** 20 });
    const samples = [
      s(0, 'g01', 'p0', 300), s(0, 'g01', 'p1', 300),
      s(5, 'g01', 'p0', 340), s(5, 'g01', 'p1', 350), // peak tick: 690
      s(10, 'g01', 'p0', 320), s(10, 'g01', 'p1', 330),
      s(0, 'g02', 'p0', 290), s(5, 'g02', 'p0', 300),
    ];
    expect(generatorBytesPerVuser(samples, 1000)).toBeCloseTo(((690 - 600) + (300 - 290)) * 2 ** 20 / 1000);
    expect(generatorBytesPerVuser(samples, 0)).toBeUndefined();
    expect(generatorBytesPerVuser([], 10)).toBeUndefined();
  });

  test('target bytes per vuser: (peak − first RSS) / peak connections', () => {
    expect(targetBytesPerVuser([{ at: 2, rssBytes: 300, connections: 10 }, { at: 1, rssBytes: 100, connections: 0 }])).toBe(20);
    expect(targetBytesPerVuser([{ at: 1, rssBytes: 100 }])).toBeUndefined();
  });

  test('a trial sustains its rate with < 1% failed and >= 99% of planned created', () => {
    expect(trialProblems({ planned: 1000, created: 995, failed: 9 })).toEqual([]);
    expect(trialProblems({ planned: 1000, created: 980, failed: 0 })[0]).toMatch(/arrival lag/);
    expect(trialProblems({ planned: 1000, created: 1000, failed: 10 })[0]).toMatch(/1\.0% failed/);
  });

  test('ladder search: up from the start while passing, down when the start fails', async () => {
    const upTo = (max: number) => async (i: number) => i <= max;
    expect(await searchLadder(6, 2, upTo(4), () => true)).toBe(4);
    expect(await searchLadder(6, 2, upTo(0), () => true)).toBe(0);
    expect(await searchLadder(6, 2, upTo(-1), () => true)).toBe(-1);
    expect(await searchLadder(6, 2, upTo(9), () => true)).toBe(5);
    const tried: number[] = [];
    await searchLadder(6, 0, async (i) => (tried.push(i), true), () => tried.length < 2);
    expect(tried).toEqual([0, 1]);
  });

  test('per-period arrival lag: a short interior period, or creations spilling past the window', () => {
    const ok = [{ period: 1_000_000_000, created: 500 }, { period: 1_000_010_000, created: 1000 }, { period: 1_000_020_000, created: 500 }];
    expect(periodLagProblems(ok, 100, 20)).toEqual([]);
    const bunched = [{ period: 1_000_000_000, created: 500 }, { period: 1_000_010_000, created: 700 }, { period: 1_000_020_000, created: 800 }];
    expect(periodLagProblems(bunched, 100, 20)[0]).toMatch(/700 created/);
    const late = [...ok, { period: 1_000_030_000, created: 3 }];
    expect(periodLagProblems(late, 100, 20).join('; ')).toMatch(/4 periods, the arrival window fits 3/);
    expect(periodLagProblems([], 100, 20)).toEqual([]);
  });

  test('CPU-seconds per 1,000 vusers', () => {
    expect(cpuSecondsPerThousand(12, 6000)).toBe(2);
    expect(cpuSecondsPerThousand(12, 0)).toBeUndefined();
  });
});
