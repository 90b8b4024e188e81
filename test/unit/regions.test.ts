import { GeneratorLimits, Phase, PlanError, splitPhases } from '../../scripts/core/plan';
import { largestRemainder, planRegions, splitByRegion } from '../../scripts/core/regions';
import { prng, randomPhase } from '../helpers/random-phases';

const FIELDS = ['arrivalCount', 'arrivalRate', 'rampTo', 'maxVusers'] as const;
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

/**
 * Each field of phase i over `parts` adds up to `whole`'s: exactly for whole numbers, to 1e-9 otherwise. The
 * planner shares every ramp over load processes in even fractions (scripts/core/split.ts, each with its place
 * among Artillery's workers), and the regional split shares a ramp with one fractional end fractionally at both
 * ends: hence `rampAsOne` (set where the parts are a generator level or a ramp region level).
 */
function expectSums(whole: Phase, parts: Phase[], ctx: string, rampAsOne = false): void {
  const fractionalRamp = rampAsOne && whole.rampTo !== undefined;
  for (const f of FIELDS) {
    const total = whole[f];
    if (total === undefined || whole.pause !== undefined) continue;
    const s = sum(parts.map((p) => (p[f] as number | undefined) ?? 0));
    if (Number.isInteger(total) && !(fractionalRamp && f !== 'maxVusers')) expect({ ctx, f, s }).toEqual({ ctx, f, s: total });
    else expect(Math.abs(s - total)).toBeLessThan(1e-9);
  }
}

describe('largestRemainder', () => {
  test('sums exactly, each share within one of its quota, ties to the lowest index', () => {
    expect(largestRemainder(96000, [1, 1])).toEqual([48000, 48000]);
    expect(largestRemainder(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(largestRemainder(7, [3, 1])).toEqual([5, 2]);
    const rnd = prng(7);
    for (let run = 0; run < 2000; run++) {
      const weights = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => 1 + Math.floor(rnd() * 10));
      const total = Math.floor(rnd() * 100_000);
      const shares = largestRemainder(total, weights);
      expect(sum(shares)).toBe(total);
      shares.forEach((s, i) => expect(Math.abs(s - (total * (weights[i] ?? 0)) / sum(weights))).toBeLessThan(1));
    }
  });
});

describe('splitByRegion (property)', () => {
  test('over 1500 random profiles and weights: every level (regions, then each region\'s generators) sums to the whole, every phase kind', () => {
    const rnd = prng(20261123);
    for (let run = 0; run < 1500; run++) {
      const phases = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => randomPhase(rnd));
      const regions = Array.from({ length: 1 + Math.floor(rnd() * 5) }, (_, k) => ({ region: `r${k}`, weight: 1 + Math.floor(rnd() * 9) }));
      let byRegion: Phase[][];
      try {
        byRegion = splitByRegion(phases, regions);
      } catch (err) {
        // Refused only for a maxVusers smaller than the regions (a region's part of 0 would be idle to Artillery).
        expect(String(err)).toMatch(/maxVusers (\d+) is fewer than the (\d+) generator regions that run the phase/);
        const [, index, mv, k] = /config\.phases\[(\d+)\]\.maxVusers (\d+) is fewer than the (\d+)/.exec(String(err)) ?? [];
        expect(Number(mv)).toBeLessThan(Number(k));
        expect(Number(k)).toBeLessThanOrEqual(regions.length);
        // Only a phase that creates vusers (an idle one's cap is left out where it is 0).
        const refused = phases[Number(index)] as Phase;
        expect((refused.arrivalCount ?? 0) + (refused.arrivalRate ?? 0) + (refused.rampTo ?? 0)).toBeGreaterThan(0);
        continue;
      }
      expect(byRegion).toHaveLength(regions.length);
      phases.forEach((orig, i) => {
        const parts = byRegion.map((list) => {
          expect(list).toHaveLength(phases.length);
          return list[i] as Phase;
        });
        const ctx = `run ${run}, phase ${i}: ${JSON.stringify(orig)} over ${JSON.stringify(regions)}`;
        expectSums(orig, parts, ctx, true);
        for (const p of parts) {
          // Same wall-clock shape; no negative share; a ramp keeps its direction in every region.
          expect(p.duration ?? p.pause).toEqual(orig.duration ?? orig.pause);
          for (const f of FIELDS) expect((p[f] as number | undefined) ?? 0).toBeGreaterThanOrEqual(0);
          if (orig.arrivalRate !== undefined && orig.rampTo !== undefined && p.rampTo !== undefined) {
            expect(Math.sign((p.rampTo) - (p.arrivalRate ?? 0)) * Math.sign(orig.rampTo - orig.arrivalRate)).toBeGreaterThanOrEqual(0);
          }
        }
        // Then across each region's generators (the planner's split): still the whole.
        const m = 1 + Math.floor(rnd() * 6);
        const perGenerator = byRegion.flatMap((list) => splitPhases(list, m).map((g) => g[i] as Phase));
        expectSums(orig, perGenerator, `${ctx}, ${m} generators per region`, true);
      });
    }
  });

  test('--vusers 96000 over eu-west-2:3, us-east-1:1 → 72,000 and 24,000', () => {
    const [eu, us] = splitByRegion([{ duration: 600, arrivalCount: 96000 }], [{ region: 'eu-west-2', weight: 3 }, { region: 'us-east-1', weight: 1 }]);
    expect(eu?.[0]?.arrivalCount).toBe(72000);
    expect(us?.[0]?.arrivalCount).toBe(24000);
  });

  test('a region with no share of a phase pauses for its duration (time-aligned with the shared start)', () => {
    const [, b] = splitByRegion([{ duration: 30, arrivalCount: 1, name: 'warm' }], [{ region: 'a', weight: 1 }, { region: 'b', weight: 1 }]);
    expect(b).toEqual([{ name: 'warm', pause: 30 }]);
  });

  test("maxVusers: every region that runs the phase gets at least 1 (Artillery reads 0 as idle), the rest by weight; fewer than the regions is refused", () => {
    const [a, b] = splitByRegion([{ duration: 10, arrivalRate: 10, maxVusers: 3 }], [{ region: 'a', weight: 9 }, { region: 'b', weight: 1 }]);
    expect([a?.[0]?.maxVusers, b?.[0]?.maxVusers]).toEqual([2, 1]);
    expect(() => splitByRegion([{ duration: 10, arrivalRate: 10, maxVusers: 1 }], [{ region: 'a', weight: 1 }, { region: 'b', weight: 1 }])).toThrow(
      'config.phases[0].maxVusers 1 is fewer than the 2 generator regions that run the phase, and a region\'s part needs at least 1 (Artillery creates no vuser in a phase whose maxVusers is 0); raise it to at least 2, or run in fewer regions',
    );
  });

  test('an idle phase with a cap below the regions is not refused: nobody creates vusers in it', () => {
    const split = splitByRegion([{ duration: 10, arrivalRate: 0, maxVusers: 1 }, { duration: 10, arrivalRate: 5 }], [{ region: 'a', weight: 1 }, { region: 'b', weight: 1 }]);
    expect(split.map((list) => list[0])).toEqual([{ duration: 10, arrivalRate: 0, maxVusers: 1 }, { duration: 10, arrivalRate: 0 }]);
  });

  test('bad weights are refused', () => {
    expect(() => splitByRegion([{ duration: 1, arrivalCount: 1 }], [{ region: 'a', weight: 0 }])).toThrow(PlanError);
    expect(() => splitByRegion([{ duration: 1, arrivalCount: 1 }], [])).toThrow(/at least one generator region/);
  });
});

describe('planRegions', () => {
  const limits: GeneratorLimits = { processes: 2, openFiles: 65536, ephemeralPorts: 64512, sourceAddresses: 1, memoryBytes: 4e9, bytesPerVuser: 50_000, socketsPerVuser: 1 };

  test('plans each region with its own generators, numbers them across regions, totals exact', () => {
    const phases: Phase[] = [{ duration: 100, arrivalCount: 9000 }];
    const r = planRegions({ phases, sessionSeconds: 60, generators: 5, regions: [{ region: 'eu-west-2', weight: 2, limits }, { region: 'us-east-1', weight: 1, limits }] });
    expect(r.regions.map((x) => x.generatorIndices)).toEqual([[0, 1, 2], [3, 4]]);
    expect(r.plan.generators.map((g) => g.index)).toEqual([0, 1, 2, 3, 4]);
    expect(r.plan.totalArrivals).toBe(9000);
    expect(r.regions.map((x) => x.plan.totalArrivals)).toEqual([6000, 3000]);
  });

  test('--generators fewer than the regions is refused; a region over its limit is named', () => {
    const regions = [{ region: 'eu-west-2', weight: 1, limits }, { region: 'us-east-1', weight: 1, limits, maxGenerators: 1 }];
    expect(() => planRegions({ phases: [{ duration: 10, arrivalCount: 10 }], sessionSeconds: 1, generators: 1, regions })).toThrow(/at least one generator per region/);
    expect(() => planRegions({ phases: [{ duration: 10, arrivalCount: 10 }], sessionSeconds: 1, generators: 6, regions })).toThrow(/^region us-east-1: /);
  });
});
