/**
 * `npm run bench -- --pin`: which CPUs the bench's target and the generator side (either system's load
 * processes) may run on. Pure: parses and checks the CPU lists; ./sampling applies them with taskset.
 */

/** A bad --pin setting: the bench's usage error (one line, exit 2, nothing started). */
export class PinError extends Error {}

/** Parses a CPU list as taskset and cpuset write it ("1", "0,2", "0-3,6"). @throws PinError */
export function parseCpuList(flag: string, text: string): number[] {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    const lo = m ? Number(m[1]) : NaN;
    const hi = m?.[2] !== undefined ? Number(m[2]) : lo;
    if (!m || hi < lo) throw new PinError(`--${flag} must be a CPU list like 1, 0,2 or 0-3 (got ${JSON.stringify(text)})`);
    for (let c = lo; c <= hi; c++) out.add(c);
  }
  return [...out].sort((a, b) => a - b);
}

/** Where the bench pins what. */
export interface PinPlan {
  /** CPUs of the bench's own target; undefined with --target (the target is not the bench's). */
  readonly targetCpus?: readonly number[];
  readonly generatorCpus: readonly number[];
}

/**
 * The pin plan from the flags and the CPUs this process may use (its affinity). @throws PinError when a list
 * names a CPU that is not available, when the lists overlap, or when no generator CPU is left.
 */
export function pinPlan(opts: { readonly targetCpus: string; readonly generatorCpus: string; readonly available: readonly number[]; readonly ownTarget: boolean }): PinPlan {
  const available = new Set(opts.available);
  const generatorCpus = parseCpuList('generator-cpus', opts.generatorCpus);
  const targetCpus = opts.ownTarget ? parseCpuList('target-cpus', opts.targetCpus) : undefined;
  const list = [...available].sort((a, b) => a - b).join(',');
  for (const [flag, cpus] of [['generator-cpus', generatorCpus], ['target-cpus', targetCpus ?? []]] as const) {
    const missing = cpus.filter((c) => !available.has(c));
    if (missing.length) throw new PinError(`--${flag} names CPU ${missing.join(',')}, which this machine does not let the bench use (available: ${list}); pick from those`);
  }
  const shared = (targetCpus ?? []).filter((c) => generatorCpus.includes(c));
  if (shared.length) throw new PinError(`--target-cpus and --generator-cpus share CPU ${shared.join(',')}; pinning is for keeping them apart, give each its own CPUs`);
  return { ...(targetCpus ? { targetCpus } : {}), generatorCpus };
}

/** A CPU list as taskset takes it. */
export function cpuListText(cpus: readonly number[]): string {
  return cpus.join(',');
}
