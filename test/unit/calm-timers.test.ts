import * as path from 'node:path';

process.env.RIG_CALM_TIMERS = '0'; // this test patches its own copies
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { calm, toNs } = require('../../load-generators/lib/calm-timers') as { calm(c: unknown): boolean; toNs(s: string): number };

/** A fresh copy of nanotimer (not the cached one other tests or Artillery may use). */
function freshNanotimer(): new () => {
  setInterval(task: () => void, args: string, interval: string, cb?: () => void): void;
  clearInterval(): void;
} {
  const arrivalsDir = path.dirname(require.resolve('arrivals/package.json'));
  const file = require.resolve('nanotimer', { paths: [arrivalsDir] });
  let NanoTimer: ReturnType<typeof freshNanotimer> | undefined;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    NanoTimer = require(file);
  });
  return NanoTimer!;
}

describe('calm timers (nanotimer without the busy-wait)', () => {
  test('durations parse like nanotimer', () => {
    expect(toNs('2s')).toBe(2e9);
    expect(toNs('12m')).toBe(12e6);
    expect(toNs('12500u')).toBe(12.5e6);
    expect(toNs('7n')).toBe(7);
  });

  test('same schedule: tick k at start + k × interval, no drift, cleared from inside the task; little CPU', async () => {
    const NanoTimer = freshNanotimer();
    expect(calm(NanoTimer)).toBe(true);
    expect(calm(NanoTimer)).toBe(false); // once
    const timer = new NanoTimer();
    const t0 = process.hrtime.bigint();
    const at: number[] = [];
    const cpu0 = process.cpuUsage();
    let cleared = false;
    await new Promise<void>((resolve) => {
      timer.setInterval(() => {
        at.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (at.length === 40) timer.clearInterval();
      }, '', '12500u', () => { cleared = true; resolve(); });
    });
    const cpu = process.cpuUsage(cpu0);
    expect(cleared).toBe(true);
    expect(at).toHaveLength(40);
    at.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual((i + 1) * 12.5 - 0.01);
      expect(ms).toBeLessThan((i + 1) * 12.5 + 40); // late by timer granularity and test-machine load, never drifting
    });
    expect(at[39]!).toBeLessThan(500 + 40);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(250); // nanotimer spins ~500 ms of CPU here
  });

  test('Artillery arrivals through the calmed timer: the same count over the same duration', async () => {
    const NanoTimer = freshNanotimer();
    calm(NanoTimer);
    const timer = new NanoTimer();
    let n = 0;
    const max = Math.floor(300_000 / 7_000); // arrivals' own count for 7-ms ticks over 300 ms
    await new Promise<void>((resolve) => {
      timer.setInterval(() => {
        n++;
        if (n === max) { timer.clearInterval(); resolve(); }
      }, '', '7000u');
    });
    expect(n).toBe(42);
  });
});
