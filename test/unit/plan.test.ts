import {
  GeneratorLimits,
  Phase,
  PlanError,
  capacityPerGenerator,
  estimateArrivals,
  estimatePeakConcurrent,
  peakArrivalRate,
  planLoad,
  splitLoad,
  splitPhases,
} from '../../scripts/core/plan';
import { prng, randomPhase } from '../helpers/random-phases';
import { rampSecondArrivals } from '../../scripts/core/capacity';
import { normalizeProfile, phasesWithNumbers } from '../../scripts/core/phases';

const FIELDS = ['arrivalCount', 'arrivalRate', 'rampTo', 'maxVusers'] as const;

describe('splitPhases (property)', () => {
  test('over 800 random profiles: totals exact, shares within one, same shape, zero shares pause', () => {
    const rnd = prng(20240601);
    for (let run = 0; run < 800; run++) {
      const phases = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => randomPhase(rnd));
      const m = 1 + Math.floor(rnd() * 12);
      const split = splitPhases(phases, m);
      expect(split).toHaveLength(m);
      phases.forEach((orig, i) => {
        const parts = split.map((list) => {
          expect(list).toHaveLength(phases.length);
          return list[i] as Phase;
        });
        const ctx = `run ${run}, phase ${i}: ${JSON.stringify(orig)} over ${m}`;
        if (orig.pause !== undefined) {
          for (const p of parts) expect(p).toEqual(orig);
          return;
        }
        const originalIdle = (orig.arrivalCount ?? 0) === 0 && (orig.arrivalRate ?? 0) === 0 && (orig.rampTo ?? 0) === 0;
        for (const field of FIELDS) {
          const v = orig[field];
          const got = parts.map((p) => p[field] ?? 0);
          if (v === undefined) {
            for (const p of parts) expect(p[field]).toBeUndefined();
            continue;
          }
          const sum = got.reduce((a, b) => a + b, 0);
          if (Number.isInteger(v) && got.every(Number.isInteger)) {
            expect({ ctx, field, sum }).toEqual({ ctx, field, sum: v });
          } else {
            expect(Math.abs(sum - v)).toBeLessThan(1e-9 * Math.max(1, v));
          }
        }
        // Integer fields among the generators that may run the phase (all of them, or maxVusers of them) differ by at most one.
        const running = parts.filter((p) => p.pause === undefined);
        const mayRun = orig.maxVusers === undefined || originalIdle ? m : Math.min(m, orig.maxVusers);
        for (const field of ['arrivalCount', 'arrivalRate', 'rampTo'] as const) {
          const v = orig[field];
          if (v === undefined || !Number.isInteger(v)) continue;
          const got = [...running.map((p) => p[field] ?? 0), ...Array<number>(mayRun - running.length).fill(0)];
          expect(Math.max(...got) - Math.min(...got)).toBeLessThanOrEqual(1);
        }
        // Artillery reads a part with maxVusers 0 as idle and drops a process of idle phases: none is handed out.
        if (orig.maxVusers !== undefined && !originalIdle) {
          expect({ ctx, running: running.length <= orig.maxVusers }).toEqual({ ctx, running: true });
          for (const p of running) expect({ ctx, maxVusers: (p.maxVusers ?? 0) >= 1 }).toEqual({ ctx, maxVusers: true });
        }
        parts.forEach((p) => {
          const zero = (p.arrivalCount ?? 0) === 0 && (p.arrivalRate ?? 0) === 0 && (p.rampTo ?? 0) === 0;
          if (p.pause !== undefined) {
            expect(p.pause).toEqual(orig.duration);
            expect(p.name).toEqual(orig.name);
          } else {
            expect(p.duration).toEqual(orig.duration);
            if (!originalIdle) expect({ ctx, zero }).toEqual({ ctx, zero: false });
          }
          if (orig.extraKey !== undefined) expect(p.extraKey).toEqual(orig.extraKey);
          if (p.arrivalRate !== undefined && p.rampTo !== undefined && orig.arrivalRate !== undefined && orig.rampTo !== undefined) {
            // Each generator's ramp keeps the original direction.
            expect(Math.sign(p.rampTo - p.arrivalRate) * Math.sign(orig.rampTo - orig.arrivalRate)).toBeGreaterThanOrEqual(0);
          }
        });
      });
    }
  });

  test('301 over 3 is 101/100/100', () => {
    const split = splitPhases([{ name: 'x', duration: 60, arrivalCount: 301 }], 3);
    expect(split.map((s) => s[0]?.arrivalCount)).toEqual([101, 100, 100]);
    expect(split.map((s) => s[0]?.name)).toEqual(['x', 'x', 'x']);
  });

  test('a whole arrivalCount is spread, and generators without a share pause for the duration', () => {
    const split = splitPhases([{ duration: '20m', arrivalCount: 2, maxVusers: 5 }], 4);
    expect(split.map((s) => s[0])).toEqual([
      { duration: '20m', arrivalCount: 1, maxVusers: 3 },
      { duration: '20m', arrivalCount: 1, maxVusers: 2 },
      { pause: '20m' },
      { pause: '20m' },
    ]);
  });

  test('ramps over 500 random shapes and slot counts: the slots create, second by second, what one run of the whole ramp creates', () => {
    const rnd = prng(7);
    for (let run = 0; run < 500; run++) {
      const seconds = 1 + Math.floor(rnd() * 12);
      const a = Math.floor(rnd() * 40) / (rnd() < 0.3 ? 4 : 1);
      const r = Math.floor(rnd() * 40) / (rnd() < 0.3 ? 4 : 1);
      const n = 1 + Math.floor(rnd() * 7);
      const whole = rampSecondArrivals(a, r, seconds);
      const parts = splitPhases([{ duration: seconds, arrivalRate: a, rampTo: r }], n).map((list) => list[0] as Phase);
      const perSecond = whole.map((_, i) => parts.reduce((sum, p) => {
        if (p.pause !== undefined) return sum;
        const place = p.rigWorker === undefined ? undefined : { worker: p.rigWorker as number, of: p.rigWorkers as number };
        return sum + (rampSecondArrivals(p.arrivalRate ?? 0, p.rampTo as number, seconds, place)[i] ?? 0);
      }, 0));
      // A second whose raw value is exactly x.5 is decided by floating-point error among Artillery's own workers
      // too (round(0.8333… × 3) is round(2.4999…)): there the split may create one fewer, as Artillery's does.
      const raw = whole.map((_, i) => (seconds === 1 ? (a + r) / 2 : ((r - a) / (seconds - 1)) * i + a));
      const expected = perSecond.map((got, i) => (Math.abs((raw[i]! % 1) - 0.5) < 1e-9 && Math.abs(got - whole[i]!) <= 1 ? got : whole[i]));
      expect({ a, r, seconds, n, perSecond }).toEqual({ a, r, seconds, n, perSecond: expected });
    }
    // Rounded alone, two shares of 2→4 over 3 s would make 1+2+2 each: 10 where one run makes 9.
    expect(rampSecondArrivals(1, 2, 3).reduce((x, y) => x + y, 0) * 2).toBe(10);
    expect(rampSecondArrivals(2, 4, 3)).toEqual([2, 3, 4]);
  });

  test("ramps: even shares of both ends, each slot with its place, so each process rounds as one of Artillery's workers", () => {
    const split = splitPhases([{ duration: 60, arrivalRate: 5, rampTo: 7 }], 3);
    expect(split.map((s) => [s[0]?.arrivalRate, s[0]?.rampTo])).toEqual([[5 / 3, 7 / 3], [5 / 3, 7 / 3], [5 / 3, 7 / 3]]);
    expect(split.map((s) => [s[0]?.rigWorker, s[0]?.rigWorkers])).toEqual([[1, 3], [2, 3], [3, 3]]);
    expect(splitPhases([{ duration: 60, arrivalRate: 5, rampTo: 7 }], 1)[0]?.[0]).toEqual({ duration: 60, arrivalRate: 5, rampTo: 7 });
    const frac = splitPhases([{ duration: 60, arrivalRate: 3, rampTo: 3.5 }], 2);
    expect(frac.map((s) => [s[0]?.arrivalRate, s[0]?.rampTo])).toEqual([[1.5, 1.75], [1.5, 1.75]]);
  });

  test('a fractional steady rate is refused (each load process\'s Artillery would assert on its share), a fractional ramp is split', () => {
    expect(() => splitPhases([{ duration: 10, arrivalRate: 0.5 }], 4)).toThrow(/arrivalRate must be a whole number \(got 0\.5\)/);
    expect(splitPhases([{ duration: 10, arrivalRate: 0.5, rampTo: 1 }], 1)[0]?.[0]).toMatchObject({ arrivalRate: 0.5, rampTo: 1 });
  });
});

const isZero = (p: Phase): boolean => (p.arrivalCount ?? 0) === 0 && (p.arrivalRate ?? 0) === 0 && (p.rampTo ?? 0) === 0;
const sumOf = (parts: readonly Phase[], field: (typeof FIELDS)[number]): number => parts.reduce((a, p) => a + (p[field] ?? 0), 0);

/** `got` equals `want`: exactly for whole numbers, to rounding for fractions. */
function expectSum(ctx: string, got: number, want: number): void {
  if (Number.isInteger(want) && Number.isInteger(got)) expect({ ctx, got }).toEqual({ ctx, got: want });
  else expect({ ctx, off: Math.abs(got - want) < 1e-9 * Math.max(1, Math.abs(want)) }).toEqual({ ctx, off: true });
}

describe('splitLoad and planLoad: one exact split (property)', () => {
  test('over 250 random plans: processes sum to their generator, generators to the whole, at every phase and field', () => {
    const rnd = prng(20261123);
    const roomy: GeneratorLimits = { openFiles: 1e9, ephemeralPorts: 1e9, sourceAddresses: 1, processes: 1, memoryBytes: 1e15, bytesPerVuser: 1, socketsPerVuser: 1 };
    for (let run = 0; run < 250; run++) {
      const phases = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => randomPhase(rnd));
      const m = 1 + Math.floor(rnd() * 8);
      const processes = 1 + Math.floor(rnd() * 6);
      const plan = planLoad({ phases, generators: m, limits: { ...roomy, processes }, sessionSeconds: 30 });
      expect(plan.generators).toHaveLength(m);
      expect(splitLoad(phases, m, processes)).toEqual(plan.generators.map((g) => g.processes.map((p) => p.phases)));
      const all = plan.generators.flatMap((g) => g.processes);
      expect(all).toHaveLength(m * processes);
      // The planned arrivals are what the processes create (Artillery rounds each one's rates on its own).
      expectSum(`run ${run}: arrivals`, plan.generators.reduce((a, g) => a + g.arrivals, 0), plan.totalArrivals);
      for (const g of plan.generators) expectSum(`run ${run}: g${g.index} arrivals`, g.processes.reduce((a, p) => a + p.arrivals, 0), g.arrivals);
      phases.forEach((orig, i) => {
        const ctx = `run ${run}, phase ${i}: ${JSON.stringify(orig)} over ${m} × ${processes}`;
        const procParts = all.map((p) => p.phases[i] as Phase);
        if (orig.pause !== undefined) {
          for (const part of [...procParts, ...plan.generators.map((g) => g.phases[i] as Phase)]) expect(part).toEqual(orig);
          return;
        }
        for (const field of FIELDS) {
          const v = orig[field];
          if (v === undefined) {
            for (const part of procParts) expect(part[field]).toBeUndefined();
            continue;
          }
          // Every level sums to the whole: all processes, all generators, and each generator's processes.
          expectSum(`${ctx} ${field} (processes)`, sumOf(procParts, field), v);
          expectSum(`${ctx} ${field} (generators)`, sumOf(plan.generators.map((g) => g.phases[i] as Phase), field), v);
          for (const g of plan.generators) {
            expectSum(`${ctx} ${field} (g${g.index})`, sumOf(g.processes.map((p) => p.phases[i] as Phase), field), (g.phases[i] as Phase)[field] ?? 0);
          }
        }
        const originalIdle = isZero(orig);
        // A maxVusers below the processes: at most that many run the phase, each with a maxVusers of at least 1 (Artillery
        // reads 0 as idle and drops a process whose phases are all idle).
        const limited = orig.maxVusers !== undefined && !originalIdle && orig.maxVusers < procParts.length;
        const running = procParts.filter((part) => part.pause === undefined);
        if (orig.maxVusers !== undefined && !originalIdle) {
          expect({ ctx, running: running.length <= orig.maxVusers }).toEqual({ ctx, running: true });
          for (const part of running) expect({ ctx, maxVusers: (part.maxVusers ?? 0) >= 1 }).toEqual({ ctx, maxVusers: true });
        }
        // No remainder piles up: whole shares of the arrival fields differ by at most one, process to process (among those
        // that may run the phase) and generator to generator (when every process may).
        for (const field of ['arrivalCount', 'arrivalRate', 'rampTo'] as const) {
          const v = orig[field];
          if (v === undefined || !Number.isInteger(v)) continue;
          const processShares = limited ? [...running.map((part) => part[field] ?? 0), ...Array<number>((orig.maxVusers ?? 0) - running.length).fill(0)] : procParts.map((part) => part[field] ?? 0);
          const generatorShares = limited ? [] : plan.generators.map((g) => (g.phases[i] as Phase)[field] ?? 0);
          for (const got of [processShares, generatorShares].filter((g) => g.length > 0)) {
            expect({ ctx, field, spread: Math.max(...got) - Math.min(...got) <= 1 }).toEqual({ ctx, field, spread: true });
          }
        }
        for (const part of procParts) {
          if (part.pause !== undefined) {
            expect(part.pause).toEqual(orig.duration);
          } else {
            expect(part.duration).toEqual(orig.duration);
            if (!originalIdle) expect({ ctx, zero: isZero(part) }).toEqual({ ctx, zero: false });
          }
          if (part.arrivalRate !== undefined && part.rampTo !== undefined && orig.arrivalRate !== undefined && orig.rampTo !== undefined) {
            expect(Math.sign(part.rampTo - part.arrivalRate) * Math.sign(orig.rampTo - orig.arrivalRate)).toBeGreaterThanOrEqual(0);
          }
        }
      });
      // Sequenced payloads: the processes' rows tile the arrivals once, in plan order.
      let next = 0;
      for (const p of all) {
        if (!p.payload) continue;
        expect(p.payload).toEqual({ start: next, count: Math.round(p.arrivals) });
        next += p.payload.count;
      }
    }
  });

  test('a remainder is not left on process 0 of every phase: 3 phases of 5 over 2 × 2', () => {
    const phases = [1, 2, 3].map(() => ({ duration: 10, arrivalCount: 5 }));
    const split = splitLoad(phases, 2, 2);
    const totals = split.flat().map((proc) => proc.reduce((a, p) => a + (p.arrivalCount ?? 0), 0));
    expect(totals.reduce((a, b) => a + b, 0)).toBe(15);
    expect(Math.max(...totals) - Math.min(...totals)).toBeLessThanOrEqual(1);
    expect(split.map((g) => g.map((proc) => proc[0]?.arrivalCount))).toEqual([[2, 1], [1, 1]]);
  });
});

describe('estimates', () => {
  test('arrivals follow Artillery arithmetic', () => {
    expect(estimateArrivals([{ duration: 10, arrivalCount: 100 }])).toBe(100);
    expect(estimateArrivals([{ duration: '90s', arrivalRate: 3 }])).toBe(270);
    expect(estimateArrivals([{ duration: 10, arrivalRate: 0 }, { pause: '1m' }])).toBe(0);
    // Ramp 0→9 over 10 s: one arrival per second step, trapezoid = 45.
    expect(estimateArrivals([{ duration: 10, arrivalRate: 0, rampTo: 9 }])).toBe(45);
    expect(estimateArrivals([{ duration: 1, arrivalRate: 1, rampTo: 2 }])).toBe(2); // (1+2)/2 rounded half up
    // Sub-microsecond interval: the `arrivals` timer's floor() yields a few extra, as Artillery does.
    expect(estimateArrivals([{ duration: 1, arrivalCount: 3000 }])).toBe(3003);
  });

  test('peak concurrency is the busiest session-length window, capped by maxVusers', () => {
    expect(estimatePeakConcurrent([{ duration: 100, arrivalRate: 10 }], 30)).toBe(300);
    expect(estimatePeakConcurrent([{ duration: 10, arrivalCount: 500 }], 3600)).toBe(500);
    expect(estimatePeakConcurrent([{ duration: 100, arrivalRate: 10, maxVusers: 120 }], 30)).toBe(120);
    expect(estimatePeakConcurrent([{ duration: 10, arrivalRate: 10 }, { pause: 100 }, { duration: 10, arrivalRate: 10 }], 50)).toBe(100);
    expect(estimatePeakConcurrent([{ duration: 10, arrivalRate: 2 }], 1.5)).toBe(3);
  });
});

const roomy: GeneratorLimits = {
  openFiles: 1000,
  ephemeralPorts: 1_000_000,
  sourceAddresses: 1,
  processes: 1,
  memoryBytes: 1e12,
  bytesPerVuser: 1,
  socketsPerVuser: 1,
};

describe('capacity', () => {
  test('the smallest limit binds', () => {
    expect(capacityPerGenerator({ ...roomy, openFiles: 65_000, processes: 2, ephemeralPorts: 28_232 })).toEqual({ vusers: 28_232, binding: 'ephemeralPorts' });
    expect(capacityPerGenerator({ ...roomy, memoryBytes: 999, bytesPerVuser: 2 })).toEqual({ vusers: 499, binding: 'memory' });
    expect(capacityPerGenerator({ ...roomy, socketsPerVuser: 3 })).toEqual({ vusers: 333, binding: 'openFiles' });
  });

  test('exactly at capacity fits one generator; one vuser over needs one more', () => {
    const at = planLoad({ phases: [{ duration: 10, arrivalCount: 1000 }], limits: roomy, sessionSeconds: 60 });
    expect(at.generators).toHaveLength(1);
    expect(at.peakConcurrent).toBe(1000);
    const over = planLoad({ phases: [{ duration: 10, arrivalCount: 1001 }], limits: roomy, sessionSeconds: 60 });
    expect(over.generatorsNeeded).toBe(2);
    expect(over.generators.map((g) => g.arrivals)).toEqual([501, 500]);
    expect(over.totalArrivals).toBe(1001);
  });

  test('a forced generator count that cannot hold the load says how many are needed and what binds', () => {
    const limits = { ...roomy, openFiles: 65_536, ephemeralPorts: 28_232 };
    const req = { phases: [{ duration: 600, arrivalCount: 60_000 }], limits, sessionSeconds: 3600, generators: 2 };
    expect(() => planLoad(req)).toThrow(PlanError);
    try {
      planLoad(req);
    } catch (e) {
      const err = e as PlanError;
      expect(err.kind).toBe('capacity');
      expect(err.generatorsNeeded).toBe(3);
      expect(err.message).toContain('need 3 generators');
      expect(err.message).toContain('ephemeral ports bind at 28,232');
      expect(err.message).toContain('--generators 3');
      expect(err.message).not.toContain('\n');
    }
    expect(planLoad({ ...req, generators: 3 }).generators).toHaveLength(3);
  });

  test('capacity errors fire exactly when a slice exceeds capacity (random)', () => {
    const rnd = prng(7);
    for (let run = 0; run < 300; run++) {
      const cap = 50 + Math.floor(rnd() * 500);
      const total = Math.floor(rnd() * 3000);
      const m = 1 + Math.floor(rnd() * 8);
      const req = { phases: [{ duration: 10, arrivalCount: total }], limits: { ...roomy, openFiles: cap }, sessionSeconds: 100, generators: m };
      const fits = Math.ceil(total / m) <= cap;
      if (fits) expect(planLoad(req).generators).toHaveLength(m);
      else expect(() => planLoad(req)).toThrow(expect.objectContaining({ kind: 'capacity', generatorsNeeded: Math.max(1, Math.ceil(total / cap)) }));
      expect(planLoad({ ...req, generators: undefined }).generatorsNeeded).toBe(Math.max(1, Math.ceil(total / cap)));
    }
  });

  test('a forced --generators past the limit is refused as such, with the limit and why', () => {
    const req = { phases: [{ duration: 10, arrivalCount: 50 }], limits: roomy, sessionSeconds: 60, maxGenerators: 4, maxGeneratorsWhy: "this machine's memory: …" };
    expect(() => planLoad({ ...req, generators: 40 })).toThrow(
      expect.objectContaining({ kind: 'max-generators', message: "--generators 40 is more than the 4 generators allowed here; this machine's memory: …; pass --generators 4 or fewer" }),
    );
    expect(planLoad({ ...req, generators: 4 }).generators).toHaveLength(4);
  });

  test('more generators than allowed is refused with the count needed', () => {
    expect(() => planLoad({ phases: [{ duration: 10, arrivalCount: 5000 }], limits: roomy, sessionSeconds: 60, maxGenerators: 4 })).toThrow(
      expect.objectContaining({ kind: 'max-generators', generatorsNeeded: 5 }),
    );
  });
});

describe('arrival rate', () => {
  const phases = [{ duration: 60, arrivalRate: 900 }];
  const req = { phases, limits: roomy, sessionSeconds: 1 };

  test('the peak arrival rate of a profile: a rate, the larger end of a ramp, a count over its duration', () => {
    expect(peakArrivalRate([{ duration: 10, arrivalRate: 5 }, { pause: 30 }, { duration: 60, arrivalRate: 20, rampTo: 100 }])).toBe(100);
    expect(peakArrivalRate([{ duration: 60, arrivalRate: 90, rampTo: 10 }])).toBe(90);
    expect(peakArrivalRate([{ duration: '20m', arrivalCount: 96_000 }])).toBe(80);
    expect(peakArrivalRate([{ pause: 5 }])).toBe(0);
  });

  test('separate machines: generators are added for the rate, exactly enough, and no warning then', () => {
    const plan = planLoad({ ...req, arrivalCapacity: { perSecond: 400, perGenerator: true } });
    expect(plan.peakArrivalRate).toBe(900);
    expect(plan.generators).toHaveLength(3); // ceil(900 / 400); concurrency alone needs 1
    expect(plan.warnings).toEqual([]);
    expect(planLoad({ ...req, arrivalCapacity: { perSecond: 450, perGenerator: true } }).generators).toHaveLength(2);
    expect(planLoad({ ...req, arrivalCapacity: { perSecond: 449, perGenerator: true } }).generators).toHaveLength(3);
  });

  test('a forced or capped generator count that cannot keep up is planned anyway, with one warning naming the fix', () => {
    const forced = planLoad({ ...req, generators: 1, arrivalCapacity: { perSecond: 400, perGenerator: true } });
    expect(forced.generators).toHaveLength(1);
    expect(forced.warnings).toEqual([expect.stringMatching(/^peak arrival rate 900\/s is above what 1 generator\(s\) create \(400\/s each.*rig-limited verdict; pass --generators 3 or spread/)]);
    const capped = planLoad({ ...req, maxGenerators: 2, arrivalCapacity: { perSecond: 400, perGenerator: true } });
    expect(capped.generators).toHaveLength(2);
    expect(capped.warnings).toEqual([expect.stringMatching(/above what 2 generator\(s\) create.*raise the generator limit \(2\)/)]);
    // Concurrency stays the hard bound: the rate never lowers the count it needs.
    expect(planLoad({ phases: [{ duration: 10, arrivalCount: 5000 }], limits: roomy, sessionSeconds: 60, arrivalCapacity: { perSecond: 10_000, perGenerator: true } }).generators).toHaveLength(5);
  });

  test('one machine shared by every generator: no generators added, a warning above its rate', () => {
    const over = planLoad({ ...req, arrivalCapacity: { perSecond: 800, perGenerator: false } });
    expect(over.generators).toHaveLength(1);
    expect(over.warnings).toEqual([expect.stringMatching(/^peak arrival rate 900\/s is above the ~800\/s this machine's cores sustain.*longer --ramp$/)]);
    expect(planLoad({ ...req, arrivalCapacity: { perSecond: 900, perGenerator: false } }).warnings).toEqual([]);
    expect(planLoad(req).warnings).toEqual([]); // no arrival capacity given: no rate bound
    expect(() => planLoad({ ...req, arrivalCapacity: { perSecond: 0, perGenerator: true } })).toThrow(/arrivalCapacity\.perSecond must be a positive number/);
  });
});

describe('invalid input', () => {
  const bad: Array<[Phase[], RegExp]> = [
    [[], /non-empty/],
    [[{ duration: 10 }], /config\.phases\[0\] has none of/],
    [[{ duration: 10, arrivalRate: 1 }, { duration: 10, arrivalRate: -1 }], /config\.phases\[1\]\.arrivalRate must not be negative/],
    [[{ duration: 10, arrivalRate: Number.NaN }], /config\.phases\[0\]\.arrivalRate must be a finite number/],
    [[{ duration: 0, arrivalRate: 1 }], /config\.phases\[0\]\.duration must be longer than zero/],
    [[{ duration: '10 parsecs', arrivalRate: 1 }], /config\.phases\[0\]\.duration: "10 parsecs" is not a valid duration/],
    [[{ duration: '25d', arrivalRate: 1 }], /config\.phases\[0\]\.duration: "25d" is longer than the 2147483 s \(~24\.8 days\) a timer can hold/],
    [[{ arrivalRate: 1 }], /config\.phases\[0\]\.duration is required/],
    [[{ duration: 10, arrivalCount: 2.5 }], /whole number/],
    // Artillery 2.0.34 dist.js: `assert(m === sum(result))` on whole shares stops a run on 1.5/s or maxVusers 2.5.
    [[{ duration: 10, arrivalRate: 1.5 }], /config\.phases\[0\]\.arrivalRate must be a whole number \(got 1\.5\): Artillery cannot split a fractional rate; use arrivalCount .*arrivalCount: 15/],
    [[{ duration: 10, arrivalRate: 2, maxVusers: 2.5 }], /config\.phases\[0\]\.maxVusers must be a whole number/],
    [[{ duration: 10, arrivalCount: 5, arrivalRate: 1 }], /cannot be combined/],
    [[{ name: 'warm', pause: 5, arrivalRate: 1 }], /config\.phases\[0\] \("warm"\): pause cannot be combined with arrivalRate/],
    [[{ pause: 0 }], /config\.phases\[0\]\.pause must be longer than zero/],
    // Artillery 2.0.34 reads such a string with ms(), untrimmed: "Invalid duration for phase: 2s ".
    [[{ duration: '2s ', arrivalRate: 1 }], /config\.phases\[0\]\.duration: "2s " has a space before or after it, which artillery run refuses \("Invalid duration for phase"\); write "2s"/],
    [[{ duration: 1, arrivalRate: 1 }, { pause: ' 1m' }], /config\.phases\[1\]\.pause: " 1m" has a space before or after it.*write "1m"/],
  ];
  test.each(bad)('%j is rejected', (phases, message) => {
    expect(() => splitPhases(phases, 2)).toThrow(message);
    expect(() => planLoad({ phases, limits: roomy, sessionSeconds: 10 })).toThrow(expect.objectContaining({ kind: 'invalid' }));
  });
  // Each refusal is one line that also says how to write it (it used to stop at "(got -5)" for most of them).
  test.each(bad)('%j: the refusal says how to fix it', (phases) => {
    expect(() => splitPhases(phases, 2)).toThrow(/; (write|add|keep|e\.g\.|a pause only waits)|\(try "90s"|: Artillery cannot split a fractional rate; use arrivalCount/);
  });

  test('bad generator counts, limits and session lengths are rejected', () => {
    const phases = [{ duration: 10, arrivalRate: 1 }];
    expect(() => planLoad({ phases, limits: roomy, sessionSeconds: 10, generators: 0 })).toThrow(/generators must be a whole number/);
    expect(() => planLoad({ phases, limits: roomy, sessionSeconds: 10, generators: 1.5 })).toThrow(PlanError);
    expect(() => planLoad({ phases, limits: { ...roomy, openFiles: -1 }, sessionSeconds: 10 })).toThrow(/limits\.openFiles must be a positive number/);
    expect(() => planLoad({ phases, limits: roomy, sessionSeconds: 0 })).toThrow(/sessionSeconds/);
  });
});

describe('numeric strings in phases (YAML quotes), read as Artillery reads them (Number)', () => {
  test('turned into numbers; other strings left for the checks to refuse', () => {
    expect(phasesWithNumbers([{ duration: '3s', arrivalRate: '2', maxVusers: ' 5 ' }, { pause: '5' }, { duration: 2, rampTo: '1.5' }])).toEqual([
      { duration: '3s', arrivalRate: 2, maxVusers: 5 },
      { pause: '5' },
      { duration: 2, rampTo: 1.5 },
    ]);
    const kept = phasesWithNumbers([{ duration: 1, arrivalRate: '{{ rate }}' }]) as Phase[];
    expect(() => splitPhases(kept, 1)).toThrow(/config\.phases\[0\]\.arrivalRate must be a finite number \(got "\{\{ rate \}\}"\)/);
    expect(phasesWithNumbers('not a list')).toBe('not a list');
  });
});

describe('a whole profile that creates no vusers is refused, as a phase with only a duration is', () => {
  test.each([
    [[{ duration: 2, arrivalCount: 0 }]],
    [[{ duration: 2, arrivalRate: 0 }]],
    [[{ duration: 2, arrivalRate: 0, rampTo: 0 }, { pause: 1 }]],
  ] as Phase[][][])('%j', (phases) => {
    expect(() => normalizeProfile(phases)).toThrow(/^the phases create no vusers \(every one is a pause or has 0 arrivals\), so the run would test nothing; give a phase arrivals \(e\.g\. arrivalRate: 10\) or pass --vusers N$/);
  });
  test('one phase with arrivals is enough; a slice of one load process may have none (only the profile is checked)', () => {
    expect(normalizeProfile([{ duration: 2, arrivalCount: 0 }, { duration: 1, arrivalRate: 0, rampTo: 2 }])).toHaveLength(2);
    expect(() => splitPhases([{ duration: 2, arrivalCount: 1 }], 2)).not.toThrow();
  });
});

// A user's `arrivalRate: 2, maxVusers: 1` over two load processes used to give one of them `maxVusers: 0`, which
// Artillery 2.0.34 reads as an idle phase (is-idle-phase.ts): that process ended before the start, a lost generator.
describe('maxVusers smaller than the load processes', () => {
  test('the phase runs on maxVusers of them, each with a cap of at least 1; the others pause', () => {
    expect(splitLoad([{ duration: 2, arrivalRate: 2, maxVusers: 1 }], 1, 2)).toEqual([[[{ duration: 2, arrivalRate: 2, maxVusers: 1 }], [{ pause: 2 }]]]);
    expect(splitLoad([{ duration: 4, arrivalCount: 9, maxVusers: 2 }], 1, 3)).toEqual([[[{ duration: 4, arrivalCount: 5, maxVusers: 1 }], [{ duration: 4, arrivalCount: 4, maxVusers: 1 }], [{ pause: 4 }]]]);
  });
  test('a cap of 0 is refused: Artillery creates no vuser in such a phase', () => {
    expect(() => normalizeProfile([{ duration: 2, arrivalRate: 2, maxVusers: 0 }])).toThrow(/^config\.phases\[0\]\.maxVusers must be at least 1 \(got 0\): Artillery creates no vuser in a phase whose maxVusers is 0; drop maxVusers, or use \{ pause: 2 \} for a phase that only waits$/);
  });
});
