/**
 * Runs over several generator regions as ONE run: a run store that routes each generator's keys to its own
 * region's store and writes the run's control keys (start instant, heartbeat, abort) to every region, and a fleet
 * that launches each region's generators with that region's fleet. The orchestrator, the live merge and the report
 * see one store and one fleet, so the start instant is one value written once — to every region.
 */
import type { RunStore } from '../../../load-generators/lib/run-store';
import type { Fleet, LaunchSecrets } from '../../adapters/local-fleet';

/** One region's store and the generator ids that run there. */
export interface RegionStore {
  readonly region: string;
  readonly store: RunStore;
  readonly generatorIds: readonly string[];
}

const GENERATOR_KEY = /^generators\/([^/]+)(\/|$)/;

/**
 * One store over the regions' stores. `generators/<id>/…` goes to (and is read from) the region of `<id>`; every
 * other key (run.json, control/*, target/*) is written to every region — the agents of each region read
 * control/start.json from their own region's bucket — and read from the first (home) region. `list` is the union.
 */
export function regionalStore(regions: readonly RegionStore[]): RunStore {
  const home = regions[0];
  if (!home) throw new Error('regionalStore: no regions');
  const byGenerator = new Map<string, RunStore>();
  for (const r of regions) for (const id of r.generatorIds) byGenerator.set(id, r.store);
  const route = (key: string): RunStore | undefined => {
    const id = GENERATOR_KEY.exec(key)?.[1];
    return id === undefined ? undefined : byGenerator.get(id) ?? home.store;
  };
  return {
    location: regions.map((r) => `${r.store.location} (${r.region})`).join(', '),
    async put(key, body) {
      const one = route(key);
      if (one) return one.put(key, body);
      await Promise.all(regions.map((r) => r.store.put(key, body)));
    },
    async get(key) {
      return (route(key) ?? home.store).get(key);
    },
    async list(prefix) {
      const lists = await Promise.all(regions.map(async (r) => {
        const keys = await r.store.list(prefix);
        // A generator's keys only from its own region; shared keys only from home (the copies are identical).
        return keys.filter((k) => (route(k) ?? home.store) === r.store);
      }));
      return [...new Set(lists.flat())].sort();
    },
  };
}

/** One region's fleet and the generator ids it runs. */
export interface RegionFleet {
  readonly region: string;
  readonly fleet: Fleet;
  readonly generatorIds: readonly string[];
}

/** One fleet over the regions' fleets: each launches its own generators (in parallel), status and stop span all. */
export function regionalFleet(regions: readonly RegionFleet[]): Fleet {
  const fleetOf = (id: string): Fleet | undefined => regions.find((r) => r.generatorIds.includes(id))?.fleet;
  return {
    async launch(ids: readonly string[], secrets?: LaunchSecrets) {
      const results = await Promise.allSettled(regions.map((r) => {
        const mine = ids.filter((id) => r.generatorIds.includes(id));
        return mine.length ? r.fleet.launch(mine, secrets) : Promise.resolve();
      }));
      const failed = results.find((x): x is PromiseRejectedResult => x.status === 'rejected');
      if (failed) throw failed.reason;
    },
    status() {
      const all = new Map<string, number | null | undefined>();
      for (const r of regions) for (const [id, code] of r.fleet.status()) all.set(id, code);
      return all;
    },
    exitReason(id: string) {
      return fleetOf(id)?.exitReason?.(id);
    },
    async stop() {
      await Promise.all(regions.map((r) => r.fleet.stop()));
    },
  };
}
