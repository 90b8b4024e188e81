/**
 * An agent rides out a run store that fails for a while: a PUT that fails (S3 503 past the client's attempts) and
 * then succeeds does not stop the load — the spooler's file lands on the next pass — while a full disk stops it at
 * once, and a store down for longer than the heartbeat timeout stops it with the store's error.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spooler } from '../../load-generators/lib/agent-spooler';
import { generatorKeys } from '../../load-generators/lib/run-protocol';
import { localStore } from '../../load-generators/lib/run-store';
import { isTransient, storeTolerance } from '../../load-generators/lib/store-tolerance';
import { virtualClock } from '../helpers/virtual-clock';

const slowDown = () => Object.assign(new Error('Please reduce your request rate.'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } });

/** One load process whose spool holds one period; a local store whose put() throws what `fail` returns. */
function setup(fail: (key: string) => Error | undefined) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-tolerance-'));
  const spool = path.join(dir, 'spool');
  fs.mkdirSync(path.join(spool, 'periods'), { recursive: true });
  fs.writeFileSync(path.join(spool, 'periods', '1700000000000.json'), '{}');
  fs.writeFileSync(path.join(dir, 'log'), 'artillery log');
  const inner = localStore(path.join(dir, 'store'));
  const store = {
    ...inner,
    async put(key: string, body: string | Buffer) {
      const err = fail(key);
      if (err) throw err;
      await inner.put(key, body);
    },
  };
  const { clock } = virtualClock();
  const keys = generatorKeys('g01');
  // exit set: no health sample of a live process (no `ss`, no /proc reads of a child).
  const procs = [{ k: 0, spool, child: {} as never, exit: 0, why: '', pushed: new Set<string>(), logFile: path.join(dir, 'log'), asked: null, failedAfterLoad: null }];
  const spool0 = spooler({ store, keys, procs, sources: [''], targets: [undefined], clock, healthIntervalMs: 5000, nic: { sample: async () => undefined } as never });
  const lines: string[] = [];
  let t = 0;
  const tick = { now: () => t, sleep: async (ms: number) => void (t += ms) };
  const writes = storeTolerance({ clock: tick, budgetMs: 30_000, log: (l) => lines.push(l) });
  const period = keys.process(0, 'periods/1700000000000.json');
  return { writes, spool: spool0, inner, period, lines, advance: (ms: number) => void (t += ms), cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

test('a PUT that fails (503 SlowDown) and then succeeds: the load goes on and the period lands on the next pass, said once each way', async () => {
  let failures = 1;
  const s = setup((key) => (key.includes('/periods/') && failures-- > 0 ? slowDown() : undefined));
  try {
    expect(await s.writes.attempt(() => s.spool.step())).toBe(false);
    expect(await s.inner.get(s.period)).toBeUndefined();
    s.advance(250);
    expect(await s.writes.attempt(() => s.spool.step())).toBe(true);
    expect(await s.inner.get(s.period)).toBe('{}');
    expect(s.lines).toEqual(['run store error (SlowDown: Please reduce your request rate.); the load goes on, retrying for up to 30 s', 'run store answers again after 0 s']);
  } finally {
    s.cleanup();
  }
});

test('settle() retries the last pass until it succeeds', async () => {
  let failures = 3;
  const s = setup(() => (failures-- > 0 ? slowDown() : undefined));
  try {
    await s.writes.settle(() => s.spool.finish());
    expect(await s.inner.get(s.period)).toBe('{}');
    expect(await s.inner.get(generatorKeys('g01').artilleryLog(0))).toBe('artillery log');
  } finally {
    s.cleanup();
  }
});

test('a full disk or a refused request stops the load at once; a store down past the budget stops it with its error', async () => {
  const full = setup(() => Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
  const denied = setup(() => Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }));
  const down = setup(() => slowDown());
  try {
    await expect(full.writes.attempt(() => full.spool.step())).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(denied.writes.attempt(() => denied.spool.step())).rejects.toMatchObject({ name: 'AccessDenied' });
    expect(await down.writes.attempt(() => down.spool.step())).toBe(false);
    down.advance(30_000);
    expect(await down.writes.attempt(() => down.spool.step())).toBe(false);
    down.advance(1);
    await expect(down.writes.attempt(() => down.spool.step())).rejects.toMatchObject({ name: 'SlowDown' });
  } finally {
    for (const s of [full, denied, down]) s.cleanup();
  }
});

test('control reads ridden out answer "nothing yet", so the watcher polls again', async () => {
  let failures = 1;
  const s = setup(() => undefined);
  try {
    await s.inner.put('control/start.json', '{"startAt":1}');
    const flaky = { get: async (key: string) => (failures-- > 0 ? Promise.reject(slowDown()) : s.inner.get(key)) };
    const reads = s.writes.reads(flaky);
    expect(await reads.get('control/start.json')).toBeUndefined();
    expect(await reads.get('control/start.json')).toBe('{"startAt":1}');
  } finally {
    s.cleanup();
  }
});

test('errors without a status or code are not ridden out unless the SDK says they may pass: an expired SSO session, a bug', () => {
  // The SDK's CredentialsProviderError (an expired `aws sso login`) and a TypeError carry neither $metadata nor code.
  const expiredSso = Object.assign(new Error('The SSO session associated with this profile has expired.'), { name: 'CredentialsProviderError' });
  expect(isTransient(expiredSso)).toBe(false);
  expect(isTransient(new TypeError("Cannot read properties of undefined (reading 'Body')"))).toBe(false);
  // What may pass: the SDK's own timeout, an error it marks retryable, a network code, a 5xx/429.
  expect(isTransient(Object.assign(new Error('timed out'), { name: 'TimeoutError' }))).toBe(true);
  expect(isTransient(Object.assign(new Error('throttled'), { $retryable: { throttling: true } }))).toBe(true);
  expect(isTransient(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBe(true);
  expect(isTransient(slowDown())).toBe(true);
});
