import * as os from 'node:os';
import {
  comparisonRate,
  cpuMsPerVuser,
  cpuMsPerVuserAt,
  median,
  ratioOf,
  ceilingLine,
  cpuSecondsPerThousand,
  cpuSplit,
  generatorBytesPerVuser,
  machineBound,
  periodLagProblems,
  searchLadder,
  sustainsRate,
  targetBytesPerVuser,
  trialProblems,
} from '../../scripts/bench/figures';
import { PinError, parseCpuList, pinPlan } from '../../scripts/bench/pinning';
import { allowedCpus, pinnedCommand } from '../../scripts/bench/sampling';

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

  test('CPU split of an arrival window: machine busy share, load and target cores', () => {
    // 2 cores for 10 s = 2,000 ticks: 1,900 busy; load processes 1,100 ticks, target 700.
    const split = cpuSplit({ busy: 5000, idle: 9000 }, { busy: 6900, idle: 9100 }, 1100, 700, 10);
    expect(split).toEqual({ machineBusy: 0.95, loadCores: 1.1, targetCores: 0.7 });
    expect(cpuSplit({ busy: 0, idle: 0 }, { busy: 1000, idle: 1000 }, 500, undefined, 10)).toEqual({ machineBusy: 0.5, loadCores: 0.5 });
    expect(cpuSplit({ busy: 1, idle: 1 }, { busy: 1, idle: 1 }, 0, 0, 10)).toBeUndefined();
    expect(cpuSplit({ busy: 0, idle: 0 }, { busy: 10, idle: 10 }, 0, 0, 0)).toBeUndefined();
  });

  test('a ceiling is the machine\'s when its CPU was >= 90% busy, the generator\'s when CPU was left idle', () => {
    expect(machineBound({ machineBusy: 0.9, loadCores: 1 })).toBe(true);
    expect(machineBound({ machineBusy: 0.89, loadCores: 1 })).toBe(false);
    expect(machineBound(undefined)).toBe(false);
    expect(ceilingLine('rig', 1000, { machineBusy: 0.97, loadCores: 1.12, targetCores: 0.8 })).toBe(
      "rig at 1000/s: machine CPU 97% busy (load processes 1.12 cores, target 0.80 cores): the machine's CPU bound it, not the generator",
    );
    expect(ceilingLine('plain', 1200, { machineBusy: 0.6, loadCores: 1.02 })).toMatch(/60% busy \(load processes 1\.02 cores\): CPU was left idle: the generator itself/);
    expect(ceilingLine('plain', 1200, undefined)).toBe('plain at 1200/s: no CPU reading');
  });

  test('CPU ms per vuser: window CPU over vusers created, compared at the highest rate both sustained', () => {
    expect(cpuMsPerVuser(1.5, 1000)).toBeCloseTo(1.5);
    expect(cpuMsPerVuser(1, 0)).toBeUndefined();
    expect(cpuMsPerVuser(undefined, 10)).toBeUndefined();
    const t = (system: 'plain' | 'rig', rate: number, sustained: boolean, windowCpuSeconds?: number, created = rate * 20) =>
      ({ system, rate, sustained, created, ...(windowCpuSeconds !== undefined ? { windowCpuSeconds } : {}) });
    const trials = [
      t('plain', 100, true, 2), t('rig', 100, true, 1),
      t('plain', 1200, true, 20), t('plain', 1400, false, 27),
      t('rig', 1200, true, 12), t('rig', 1400, true, 13),
      t('rig', 800, true), // no CPU window reading: not comparable
    ];
    // 1,400 is the rig's alone (plain did not sustain it): 1,200 is where both did.
    expect(comparisonRate(trials)).toBe(1200);
    expect(cpuMsPerVuserAt(trials, 'plain', 1200)).toBeCloseTo((20 * 1000) / 24000);
    expect(cpuMsPerVuserAt(trials, 'rig', 1200)).toBeCloseTo((12 * 1000) / 24000);
    // Two sustained trials at one rate: their CPU and vusers pooled.
    expect(cpuMsPerVuserAt([...trials, t('rig', 1200, true, 14)], 'rig', 1200)).toBeCloseTo((26 * 1000) / 48000);
    expect(comparisonRate([t('plain', 100, true, 1), t('rig', 200, true, 1)])).toBeUndefined();
    // --repeat: a rate where one of a system's trials missed is not that system's, even if another trial sustained it.
    expect(comparisonRate([...trials, t('plain', 1200, false, 21)])).toBe(100);
    expect(cpuMsPerVuserAt(trials, 'rig', undefined)).toBeUndefined();
  });

  test("plain without its timer spin: its own CPU figure, never a rate both sustained or plain's as-run figure", () => {
    const t = (system: 'plain' | 'rig', rate: number, windowCpuSeconds: number, withoutSpin = false) =>
      ({ system, rate, sustained: true, created: rate * 20, windowCpuSeconds, ...(withoutSpin ? { withoutSpin } : {}) });
    const trials = [t('plain', 800, 20), t('rig', 800, 18), t('rig', 1000, 19), t('plain', 800, 16, true), t('plain', 1000, 17, true)];
    // Plain's spin-free trial at 1,000/s does not make 1,000 a rate plain sustained.
    expect(comparisonRate(trials)).toBe(800);
    expect(cpuMsPerVuserAt(trials, 'plain', 800)).toBeCloseTo((20 * 1000) / 16000);
    expect(cpuMsPerVuserAt(trials, 'plain', 800, true)).toBeCloseTo((16 * 1000) / 16000);
    expect(cpuMsPerVuserAt(trials, 'rig', 800, true)).toBeUndefined();
  });

  test('--repeat: a rate is sustained only when every trial there is; trials stop at the first miss', async () => {
    const run = (outcomes: boolean[]) => {
      const tried: boolean[] = [];
      return sustainsRate(3, async () => {
        const ok = outcomes[tried.length]!;
        tried.push(ok);
        return ok;
      }).then((sustained) => ({ sustained, tried: tried.length }));
    };
    expect(await run([true, true, true])).toEqual({ sustained: true, tried: 3 });
    expect(await run([true, false, true])).toEqual({ sustained: false, tried: 2 });
    expect(await run([false, true, true])).toEqual({ sustained: false, tried: 1 });
    let once = 0;
    expect(await sustainsRate(1, async () => (once++, true))).toBe(true);
    expect(once).toBe(1); // the default: one trial per rate, as before
  });

  test('median and rig/plain ratios', () => {
    expect(median([3, undefined, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([undefined])).toBeUndefined();
    expect(ratioOf(3, 2)).toBe(1.5);
    expect(ratioOf(3, 0)).toBeUndefined();
    expect(ratioOf(undefined, 2)).toBeUndefined();
  });

  test('--pin CPU lists: parsed like taskset, checked against the CPUs allowed, kept apart', () => {
    expect(parseCpuList('x', '0')).toEqual([0]);
    expect(parseCpuList('x', '3,0-1, 5')).toEqual([0, 1, 3, 5]);
    expect(() => parseCpuList('target-cpus', '2-1')).toThrow(/--target-cpus must be a CPU list/);
    expect(() => parseCpuList('target-cpus', 'one')).toThrow(PinError);
    // Defaults for 2 cores: target on CPU 1, generators on CPU 0.
    expect(pinPlan({ targetCpus: '1', generatorCpus: '0', available: [0, 1], ownTarget: true })).toEqual({ targetCpus: [1], generatorCpus: [0] });
    // A target elsewhere (--target) is not pinned; only the generators are.
    expect(pinPlan({ targetCpus: '1', generatorCpus: '0-1', available: [0, 1], ownTarget: false })).toEqual({ generatorCpus: [0, 1] });
    expect(() => pinPlan({ targetCpus: '1', generatorCpus: '1', available: [0, 1], ownTarget: true })).toThrow(/share CPU 1/);
    expect(() => pinPlan({ targetCpus: '2', generatorCpus: '0', available: [0, 1], ownTarget: true })).toThrow(/--target-cpus names CPU 2.*available: 0,1/);
  });

  test('a pinned trial starts under taskset -c (same pid, children inherit); unpinned, as given', () => {
    expect(pinnedCommand([0, 2], ['node', 'run.js', '--x'])).toEqual(['taskset', '-c', '0,2', 'node', 'run.js', '--x']);
    expect(pinnedCommand(undefined, ['node', 'run.js'])).toEqual(['node', 'run.js']);
    // This process's own affinity, as the --pin checks read it: a non-empty subset of the online CPUs.
    const cpus = allowedCpus(os.cpus().length);
    expect(cpus.length).toBeGreaterThan(0);
    expect(cpus.every((c) => c >= 0 && c < os.cpus().length)).toBe(true);
  });
});
