/**
 * The agent's last write, done.json, rides out a failing run store as every other store write does
 * (load-generators/lib/store-tolerance.js: retried with backoff within the heartbeat budget). Before, one failed PUT
 * left the generator without done.json: the orchestrator waited on for a generator that had ended.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { endRun } from '../../load-generators/lib/agent-end';
import { COMPLETED, generatorKeys } from '../../load-generators/lib/run-protocol';
import { localStore } from '../../load-generators/lib/run-store';
import { storeTolerance } from '../../load-generators/lib/store-tolerance';

const slowDown = () => Object.assign(new Error('Please reduce your request rate.'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } });
const accessDenied = () => Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
const keys = generatorKeys('g01');

/** An agent whose one load process completed, over a local store whose put() of `failing` throws what `fail` returns. */
function agentEnd(fail: (attempt: number) => Error | undefined) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-agent-end-'));
  const inner = localStore(dir);
  let attempts = 0;
  const store = {
    ...inner,
    async put(key: string, body: string | Buffer) {
      if (key === keys.done) {
        const err = fail(++attempts);
        if (err) throw err;
      }
      await inner.put(key, body);
    },
  };
  // Time moves only by the backoff's sleeps: no real waiting.
  let t = 0;
  const clock = { now: () => t, sleep: async (ms: number) => void (t += ms) };
  const lines: string[] = [];
  const log = (l: string) => void lines.push(l);
  let stopped: string | undefined;
  const sup = { procs: [{ k: 0, exit: 0, why: '', asked: null, failedAfterLoad: null }] as never, stopping: () => stopped, stopAll: (r: string) => void (stopped ??= r) };
  const ended = endRun({ store, doneKey: keys.done, spool: { finish: async () => undefined }, sup, writes: storeTolerance({ clock, budgetMs: 30_000, log }), clock, log });
  const done = () => inner.get(keys.done);
  return { ended, done, lines, attempts: () => attempts, dir };
}

test('a done.json PUT that fails twice (S3 503) and then succeeds is written; the agent exits 0', async () => {
  const a = agentEnd((n) => (n <= 2 ? slowDown() : undefined));
  await expect(a.ended).resolves.toEqual({ stopping: undefined, exitCode: 0 });
  expect(a.attempts()).toBe(3);
  expect(JSON.parse((await a.done()) ?? '{}')).toMatchObject({ reason: COMPLETED, exitCodes: [0] });
  expect(a.lines[0]).toMatch(/^run store error \(SlowDown: Please reduce your request rate\.\); the load goes on, retrying for up to 30 s$/);
  fs.rmSync(a.dir, { recursive: true, force: true });
});

test('a done.json that cannot be written (refused, or failing past the budget) ends the agent with exit 3 and one line naming the store', async () => {
  for (const fail of [accessDenied, slowDown]) {
    const a = agentEnd(() => fail());
    await expect(a.ended).resolves.toMatchObject({ exitCode: 3 });
    expect(await a.done()).toBeUndefined();
    expect(a.lines.at(-1)).toMatch(new RegExp(`^done\\.json not written: cannot use the run store ${a.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${fail().name} `));
    fs.rmSync(a.dir, { recursive: true, force: true });
  }
});
