/**
 * Reads a run's raw data back from the run store: every generator's periods, start records, health
 * samples and end state. Used at the end of a run and by `npm run report` to rebuild from the folder.
 */
import { KEY_KIND, generatorKeys } from '../../load-generators/lib/run-protocol';
import type { DoneMarker, HealthRecord, ReadyMarker, RunStore, StartedMarker } from '../contracts';
import { PeriodMetrics, deserializePeriod } from '../core/merge';
import type { HealthSample } from '../core/verdict';
import { readRunFile } from './run-files';

/** Everything one generator left in the store. */
export interface GeneratorData {
  readonly id: string;
  readonly periods: PeriodMetrics[];
  /** When each load thread really started (epoch ms). */
  readonly startedAt: number[];
  readonly plannedStartAt?: number;
  readonly health: HealthSample[];
  readonly done?: DoneMarker;
  /**
   * The builds of the OS packages the generator's boot installed unpinned (ready.json's `osPackages`: name →
   * version-release.arch, load-generators/lib/os-packages.js); absent where it recorded none (local, older boots).
   */
  readonly osPackages?: Readonly<Record<string, string>>;
}

/** ready.json's `osPackages` when it is a name → build map of strings (anything else is left out). Pure. */
export function osPackagesOf(ready: Partial<ReadyMarker> | undefined): Record<string, string> | undefined {
  const p: unknown = ready?.osPackages;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return undefined;
  const out = Object.fromEntries(Object.entries(p).filter((e): e is [string, string] => typeof e[1] === 'string'));
  return Object.keys(out).length ? out : undefined;
}

/**
 * Reads every generator's data; a generator with nothing written still appears (empty). A bad period or done.json
 * throws RunDataError; a bad start record or health sample is skipped, said through `note` (scripts/report/run-files.ts).
 */
export async function collectRun(store: RunStore, generatorIds: readonly string[], note: (line: string) => void = () => undefined): Promise<GeneratorData[]> {
  const out: GeneratorData[] = [];
  for (const id of generatorIds) {
    const keys = await store.list(generatorKeys(id).prefix);
    const periods: PeriodMetrics[] = [];
    const startedAt: number[] = [];
    let plannedStartAt: number | undefined;
    const health: HealthSample[] = [];
    for (const key of keys) {
      if (KEY_KIND.period.test(key)) {
        const period = await readRunFile(store, key, 'period', note, deserializePeriod);
        if (period) periods.push(period);
      } else if (KEY_KIND.started.test(key)) {
        const s = await readRunFile<Partial<StartedMarker>>(store, key, 'started', note);
        if (typeof s?.actualAt === 'number') startedAt.push(s.actualAt);
        if (typeof s?.plannedAt === 'number') plannedStartAt = s.plannedAt;
      } else if (KEY_KIND.health.test(key)) {
        const h = await readRunFile<HealthRecord & { samples: Array<Omit<HealthSample, 'at' | 'generator'>> }>(store, key, 'health', note);
        for (const s of h?.samples ?? []) health.push({ ...s, at: h!.at, generator: id });
      }
    }
    const done = await readRunFile<DoneMarker>(store, generatorKeys(id).done, 'done', note);
    const osPackages = osPackagesOf(await readRunFile<Partial<ReadyMarker>>(store, generatorKeys(id).ready, 'ready', note));
    out.push({ id, periods, startedAt, plannedStartAt, health, done, ...(osPackages ? { osPackages } : {}) });
  }
  return out;
}
