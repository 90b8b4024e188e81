/**
 * The shared start instant is computed once and every retry of its write sends the same body: a PUT that timed out
 * after S3 had stored it (ambiguous) may already have been read by some agents, so a retry with a later instant
 * would give the fleet two start instants.
 */
import { planLoad } from '../../scripts/core/plan';
import type { Fleet } from '../../scripts/contracts';
import { orchestrate } from '../../scripts/orchestrator';
import { virtualClock } from '../helpers/virtual-clock';

const limits = { openFiles: 1e6, ephemeralPorts: 1e6, memoryBytes: 1e12, bytesPerVuser: 1, socketsPerVuser: 1, sourceAddresses: 1, processes: 1 };
const IDS = ['g01', 'g02'];

test('a start write that timed out after it was stored is retried with the same startAt, and the run uses that one', async () => {
  const { clock, run, t0 } = virtualClock();
  const data = new Map<string, string>();
  const startBodies: string[] = [];
  const store = {
    location: 'memory',
    async put(key: string, body: string | Buffer) {
      data.set(key, String(body));
      if (key === 'control/start.json') {
        startBodies.push(String(body));
        // The first PUT lands, then its answer is lost (a socket timeout): the SDK reports a failure.
        if (startBodies.length === 1) throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
      }
    },
    async get(key: string) {
      return data.get(key);
    },
    async list(prefix: string) {
      return [...data.keys()].filter((k) => k.startsWith(prefix)).sort();
    },
  };
  const startAt = () => (data.has('control/start.json') ? (JSON.parse(data.get('control/start.json') as string) as { startAt: number }).startAt : undefined);
  const fleet: Fleet = {
    async launch() {
      for (const id of IDS) data.set(`generators/${id}/ready.json`, '{}');
    },
    status() {
      const at = startAt();
      return new Map(IDS.map((id) => [id, at !== undefined && clock.now() >= at + 60_000 ? 0 : undefined]));
    },
    exitReason: () => undefined,
    async stop() {},
  };
  const plan = planLoad({ phases: [{ duration: 60, arrivalCount: 2 }], generators: 2, limits, sessionSeconds: 1 });
  const spec = { runId: 'r', scriptDir: '/nowhere', plan, generators: IDS.map((id) => ({ id, processes: [] })), expectedSeconds: 60, heartbeatTimeoutMs: 30_000, readyTimeoutMs: 60_000, startLeadMs: 5000, meta: {} };
  const outcome = orchestrate(spec, { store, fleet, clock, progress: () => undefined, interrupted: new Promise(() => undefined) });
  await run(t0 + 300_000);
  const result = await outcome;
  expect(startBodies).toHaveLength(2);
  expect(startBodies[1]).toBe(startBodies[0]);
  expect(result.startAt).toBe((JSON.parse(startBodies[0] as string) as { startAt: number }).startAt);
});
