/**
 * Runs over several generator regions as ONE run: a run store that routes each generator's keys to its own
 * region's store and writes the run's control keys (start instant, heartbeat, abort) to every region, and a fleet
 * that launches each region's generators with that region's fleet. The orchestrator, the live merge and the report
 * see one store and one fleet, so the start instant is one value written once — to every region.
 */
import type { RunStore } from '../../../load-generators/lib/run-store';
import type { Fleet, LaunchSecrets } from '../../contracts';

/** One region's store and the generator ids that run there. */
export interface RegionStore {
  readonly region: string;
  readonly store: RunStore;
  readonly generatorIds: readonly string[];
}

const GENERATOR_KEY = /^generators\/([^/]+)(\/|$)/;

/** Where another region's own keys (its SSM output, its preflight, …) appear in the one store: `regions/<region>/<key>`. */
export const REGION_PREFIX = 'regions/';

/**
 * One store over the regions' stores. `generators/<id>/…` goes to (and is read from) the region of `<id>`; every
 * other key written through it (run.json, control/*, target/*) is written to every region — the agents of each
 * region read control/start.json from their own region's bucket — and read from the first (home) region. `list` is
 * the union: the home region's keys, each generator's keys from its own region, and another region's own keys (its
 * SSM output, its preflight) under `regions/<region>/`, so copying the store copies every region's data once.
 */
export function regionalStore(regions: readonly RegionStore[]): RunStore {
  const home = regions[0];
  if (!home) throw new Error('regionalStore: no regions');
  const byGenerator = new Map<string, RunStore>();
  for (const r of regions) for (const id of r.generatorIds) byGenerator.set(id, r.store);
  const shared = new Set<string>();
  const route = (key: string): RunStore | undefined => {
    const id = GENERATOR_KEY.exec(key)?.[1];
    return id === undefined ? undefined : byGenerator.get(id) ?? home.store;
  };
  /** `regions/<region>/<key>` → that region and the key in its own store. */
  const regional = (key: string): { store: RunStore; key: string } | undefined => {
    if (!key.startsWith(REGION_PREFIX)) return undefined;
    const rest = key.slice(REGION_PREFIX.length);
    const r = regions.slice(1).find((x) => rest.startsWith(`${x.region}/`));
    return r ? { store: r.store, key: rest.slice(r.region.length + 1) } : undefined;
  };
  return {
    location: regions.map((r) => `${r.store.location} (${r.region})`).join(', '),
    async put(key, body) {
      const own = regional(key);
      if (own) return own.store.put(own.key, body);
      const one = route(key);
      if (one) return one.put(key, body);
      shared.add(key);
      await Promise.all(regions.map((r) => r.store.put(key, body)));
    },
    async get(key) {
      const own = regional(key);
      if (own) return own.store.get(own.key);
      return (route(key) ?? home.store).get(key);
    },
    async list(prefix) {
      // One generator's keys (what the live merge and the report list): its own region only, one request.
      const one = /^generators\/[^/]+\//.test(prefix) ? route(prefix) : undefined;
      if (one) return one.list(prefix);
      const lists = await Promise.all(regions.map(async (r, i) => {
        if (i === 0) return (await r.store.list(prefix)).filter((k) => (route(k) ?? home.store) === home.store);
        // A generator's keys from its own region as they are.
        const generators = (await r.store.list(prefix)).filter((k) => route(k) === r.store);
        // The region's own keys under regions/<region>/ (not the copies of the keys written to every region).
        const under = `${REGION_PREFIX}${r.region}/`;
        const inner = prefix.startsWith(under) ? prefix.slice(under.length) : under.startsWith(prefix) ? '' : undefined;
        const own = inner === undefined ? [] : (await r.store.list(inner)).filter((k) => route(k) === undefined && !shared.has(k)).map((k) => `${under}${k}`);
        return [...generators, ...own];
      }));
      return [...new Set(lists.flat())].filter((k) => k.startsWith(prefix)).sort();
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
