import type { Phase } from '../../scripts/core/plan';

/** mulberry32: small seeded PRNG so failures reproduce. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random phase of every kind: pause, arrivalCount, arrivalRate, ramp (up or down), rampTo alone; some with maxVusers. */
export function randomPhase(rnd: () => number): Phase {
  const int = (max: number): number => Math.floor(rnd() * (max + 1));
  const num = (max: number): number => (rnd() < 0.5 ? int(max) : Math.round(rnd() * max * 1000) / 1000);
  const duration = rnd() < 0.7 ? 1 + int(120) : `${1 + int(5)}m`;
  // Whole maxVusers and steady rates only: Artillery 2.0.34's dist.js refuses fractions of both (normalizePhase).
  // maxVusers ≥ 1: Artillery reads 0 as an idle phase, which normalizePhase refuses; small ones are fewer than the slots.
  const withCap = (p: Phase): Phase => (rnd() < 0.3 ? { ...p, maxVusers: 1 + int(rnd() < 0.5 ? 4 : 49) } : p);
  switch (int(4)) {
    case 0:
      return { name: 'p', pause: rnd() < 0.5 ? 1 + int(60) : '30s' };
    case 1:
      return withCap({ duration, arrivalCount: int(rnd() < 0.5 ? 5 : 5000), extraKey: { x: 1 } });
    case 2:
      return withCap({ name: 'steady', duration, arrivalRate: int(rnd() < 0.5 ? 4 : 300) });
    case 3:
      return withCap({ duration, arrivalRate: num(100), rampTo: num(400) });
    default:
      return withCap({ duration, rampTo: num(50) });
  }
}
