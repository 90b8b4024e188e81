import * as path from 'node:path';

process.env.RIG_CALM_TIMERS = '0'; // this test patches its own copies
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { calm, toNs, turnedOff } = require('../../load-generators/lib/calm-timers') as { calm(c: unknown): boolean; toNs(s: string): number; turnedOff(v: string | undefined): boolean };

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

  // The schedule is checked on a fake clock (setTimeout, setImmediate and process.hrtime faked together),
  // so it is exact whatever else the machine is doing; the real clock is used only for what a fake one
  // cannot show: that waiting costs little CPU (nanotimer's busy-wait spins ~500 ms of CPU here).
  test('same schedule on a fake clock: tick k at start + k × interval, no drift, late ticks catch up one per turn, cleared from inside the task', () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] });
    try {
      const NanoTimer = freshNanotimer();
      calm(NanoTimer);
      const timer = new NanoTimer();
      // A stall of the event loop is a jump of the monotonic clock between two timer callbacks: the
      // clock the calmed timer reads is the fake one plus `stall`, raised by 60 ms inside tick 8.
      const fakeBigint = process.hrtime.bigint;
      let stall = 0n;
      const now = () => fakeBigint() + stall;
      process.hrtime.bigint = now;
      try {
        const t0 = now();
        const at: number[] = [];
        let cleared = false;
        timer.setInterval(() => {
          at.push(Number(now() - t0) / 1e6);
          if (at.length === 8) stall += 60_000_000n; // tick 8's task keeps the loop busy for 60 ms
          if (at.length === 40) timer.clearInterval();
        }, '', '12500u', () => { cleared = true; });
        jest.advanceTimersByTime(1000);
        expect(cleared).toBe(true);
        expect(at).toHaveLength(40);
        const late = at.map((ms, i) => ms - (i + 1) * 12.5);
        late.forEach((l) => expect(l).toBeGreaterThanOrEqual(0)); // never early
        late.slice(0, 8).forEach((l) => expect(l).toBeLessThan(1)); // on time: setTimeout's 1-ms rounding
        // ticks 9..12 fell due during the stall: they run at once, one per turn (setImmediate, which the
        // fake clock advances by 1 ms each) …
        at.slice(8, 12).forEach((ms, i) => expect(ms).toBeCloseTo(160 + (i + 1), 6));
        // … tick 13 (due at 162.5, after those four fake milliseconds) comes next, and from tick 14 on the
        // schedule is start + k × interval again: no drift
        expect(at[12]!).toBeCloseTo(165, 6);
        late.slice(13).forEach((l) => expect(l).toBeLessThan(1));
        expect(jest.getTimerCount()).toBe(0); // nothing left scheduled after clearInterval
      } finally {
        process.hrtime.bigint = fakeBigint;
      }
    } finally {
      jest.useRealTimers();
    }
  });

  test('real clock: never early, all 40 ticks, cleared from inside the task, and little CPU while waiting', async () => {
    const NanoTimer = freshNanotimer();
    expect(calm(NanoTimer)).toBe(true);
    expect(calm(NanoTimer)).toBe(false); // once
    const timer = new NanoTimer();
    const t0 = process.hrtime.bigint();
    const at: number[] = [];
    // The main thread's own CPU (Node ≥ 22.19), where a busy-wait would spin: the process's total also counts GC
    // and compiler threads, which on a busy CI machine added up to 380 ms in this 0.5-s window with no spin at all.
    const threadCpu = (prev?: NodeJS.CpuUsage): NodeJS.CpuUsage => {
      const own = (process as unknown as { threadCpuUsage?: (p?: NodeJS.CpuUsage) => NodeJS.CpuUsage }).threadCpuUsage;
      return own ? own.call(process, prev) : process.cpuUsage(prev);
    };
    const cpu0 = threadCpu();
    let cleared = false;
    await new Promise<void>((resolve) => {
      timer.setInterval(() => {
        at.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (at.length === 40) timer.clearInterval();
      }, '', '12500u', () => { cleared = true; resolve(); });
    });
    const cpu = threadCpu(cpu0);
    expect(cleared).toBe(true);
    expect(at).toHaveLength(40);
    at.forEach((ms, i) => expect(ms).toBeGreaterThanOrEqual((i + 1) * 12.5 - 0.01));
    // CPU time, not wall time: a loaded machine delays the ticks but does not make this process spin.
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(250);
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

test('RIG_CALM_TIMERS turns the fix off with 0 as documented, and with false/off/no as people write it; anything else keeps it on', () => {
  for (const off of ['0', 'false', 'FALSE', 'off', 'no', ' 0 ']) expect([off, turnedOff(off)]).toEqual([off, true]);
  for (const on of [undefined, '', '1', 'true', 'on']) expect([on, turnedOff(on)]).toEqual([on, false]);
});
