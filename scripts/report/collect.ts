/**
 * Reads a run's raw data back from the run store: every generator's periods, start records, health
 * samples and end state. Used at the end of a run and by `npm run report` to rebuild from the folder.
 */
import { KEY_KIND, generatorKeys } from '../../load-generators/lib/run-protocol';
import type { DoneMarker, HealthRecord, RunStore, StartedMarker } from '../contracts';
import { PeriodMetrics, deserializePeriod } from '../core/merge';
import type { HealthSample } from '../core/verdict';

/** Everything one generator left in the store. */
export interface GeneratorData {
  readonly id: string;
  readonly periods: PeriodMetrics[];
  /** When each load thread really started (epoch ms). */
  readonly startedAt: number[];
  readonly plannedStartAt?: number;
  readonly health: HealthSample[];
  readonly done?: DoneMarker;
}

/** Reads every generator's data; a generator with nothing written still appears (empty). */
export async function collectRun(store: RunStore, generatorIds: readonly string[]): Promise<GeneratorData[]> {
  const out: GeneratorData[] = [];
  for (const id of generatorIds) {
    const keys = await store.list(generatorKeys(id).prefix);
    const periods: PeriodMetrics[] = [];
    const startedAt: number[] = [];
    let plannedStartAt: number | undefined;
    const health: HealthSample[] = [];
    for (const key of keys) {
      if (KEY_KIND.period.test(key)) {
        const text = await store.get(key);
        if (text) periods.push(deserializePeriod(text));
      } else if (KEY_KIND.started.test(key)) {
        const s = JSON.parse((await store.get(key)) ?? '{}') as Partial<StartedMarker>;
        if (typeof s.actualAt === 'number') startedAt.push(s.actualAt);
        if (typeof s.plannedAt === 'number') plannedStartAt = s.plannedAt;
      } else if (KEY_KIND.health.test(key)) {
        const h = JSON.parse((await store.get(key)) ?? '{}') as HealthRecord & { samples?: Array<Omit<HealthSample, 'at' | 'generator'>> };
        for (const s of h.samples ?? []) health.push({ ...s, at: h.at, generator: id });
      }
    }
    const doneText = await store.get(generatorKeys(id).done);
    out.push({ id, periods, startedAt, plannedStartAt, health, done: doneText ? JSON.parse(doneText) : undefined });
  }
  return out;
}
