/** A clock for tests of polling loops: time moves only as the test fires timers, in order. */
/** A virtual clock: sleeps are timers in a queue; run() fires them in time order, letting each woken task run. */
export function virtualClock(t0 = 1_700_000_000_000) {
  let t = t0;
  const timers: Array<{ at: number; seq: number; wake: () => void }> = [];
  let seq = 0;
  const clock = {
    now: () => t,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const timer = { at: t + ms, seq: seq++, wake: resolve };
        timers.push(timer);
        signal?.addEventListener('abort', () => {
          timers.splice(timers.indexOf(timer), 1);
          resolve();
        }, { once: true });
      }),
  };
  const settle = () => new Promise<void>((r) => setImmediate(r));
  /** Fires every timer due up to `until` (epoch ms), in order; `at` hooks run when their instant comes. */
  const run = async (until: number, at: Array<[number, () => void]> = []) => {
    const hooks = [...at].sort((a, b) => a[0] - b[0]);
    for (;;) {
      await settle();
      timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = Math.min(timers[0]?.at ?? Infinity, hooks[0]?.[0] ?? Infinity);
      if (next > until) break;
      t = Math.max(t, next);
      if (hooks[0] && hooks[0][0] <= t) (hooks.shift() as [number, () => void])[1]();
      else timers.shift()?.wake();
    }
    t = until;
    await settle();
  };
  return { clock, run, t0 };
}

