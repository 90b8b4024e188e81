/**
 * A lost generator is reported with its real cause: the signal's name or exit code from the fleet, plus
 * what the agent wrote in its done.json — never a bare "exit 128".
 */
import type { Fleet } from '../../scripts/contracts';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { localStore } from '../../load-generators/lib/run-store';
import { planLoad } from '../../scripts/core/plan';
import { orchestrate } from '../../scripts/orchestrator';

function fakeClock() {
  let t = 1_800_000_000_000;
  return { now: () => t, sleep: async (ms: number) => { t += ms; await new Promise((r) => setImmediate(r)); } };
}

const limits = { openFiles: 1e6, ephemeralPorts: 1e6, memoryBytes: 1e12, bytesPerVuser: 1, socketsPerVuser: 1, sourceAddresses: 1, processes: 1 };

async function runWith(ends: Record<string, { code: number; signal?: string; done?: string; readyFirst?: boolean }>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-unit-orch-'));
  const store = localStore(dir);
  const ids = Object.keys(ends);
  const status = new Map<string, number | undefined>(ids.map((id) => [id, undefined]));
  let started = false;
  const fleet: Fleet = {
    async launch() {
      for (const [id, e] of Object.entries(ends)) {
        if (e.readyFirst !== false) await store.put(`generators/${id}/ready.json`, '{}');
        else {
          if (e.done) await store.put(`generators/${id}/done.json`, JSON.stringify({ reason: e.done }));
          status.set(id, e.code);
        }
      }
    },
    status() {
      if (!started && fs.existsSync(path.join(dir, 'control', 'start.json'))) {
        started = true;
        for (const [id, e] of Object.entries(ends)) {
          if (e.readyFirst === false) continue;
          if (e.done) fs.mkdirSync(path.join(dir, 'generators', id), { recursive: true });
          if (e.done) fs.writeFileSync(path.join(dir, 'generators', id, 'done.json'), JSON.stringify({ reason: e.done }));
          status.set(id, e.code);
        }
      }
      return status;
    },
    exitReason(id) {
      const e = ends[id];
      return status.get(id) === undefined || !e ? undefined : e.signal ? { signal: e.signal } : { code: e.code };
    },
    async stop() {},
  };
  const plan = planLoad({ phases: [{ duration: 1, arrivalCount: ids.length }], generators: ids.length, limits, sessionSeconds: 1 });
  const spec = { runId: 'r', scriptDir: dir, plan, generators: ids.map((id) => ({ id, processes: [] })), expectedSeconds: 5, heartbeatTimeoutMs: 30_000, readyTimeoutMs: 10_000, startLeadMs: 0, meta: {} };
  try {
    return await orchestrate(spec, { store, fleet, clock: fakeClock(), progress: () => undefined, interrupted: new Promise(() => undefined) });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('lost generators keep their real cause', () => {
  it('killed by a signal: the signal name, never 128', async () => {
    const outcome = await runWith({ g01: { code: 0 }, g02: { code: 137, signal: 'SIGKILL' } });
    expect(outcome.lostGenerators).toEqual([{ id: 'g02', reason: 'agent killed by SIGKILL' }]);
  });
  it("exited with a code: the code and the agent's own reason", async () => {
    const outcome = await runWith({ g01: { code: 0 }, g02: { code: 1, done: 'load process p0 exit code 1' } });
    expect(outcome.lostGenerators).toEqual([{ id: 'g02', reason: 'agent exit 1: load process p0 exit code 1' }]);
  });
  it('stopped before it was ready: the signal name in the one-line failure', async () => {
    await expect(runWith({ g01: { code: 143, signal: 'SIGTERM', readyFirst: false } })).rejects.toThrow(/generator g01 stopped before it was ready \(killed by SIGTERM\)/);
  });
});
