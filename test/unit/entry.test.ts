import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import * as path from 'node:path';
import { runEntry } from '../../scripts/entry';

/** A stand-in for `process`: its events, its stderr and its exit code. */
function fakeProcess() {
  const events = new EventEmitter();
  const written: string[] = [];
  const proc = { once: events.once.bind(events), stderr: { write: (s: string) => written.push(s) }, exitCode: undefined as number | undefined };
  return { proc: proc as never as Pick<NodeJS.Process, 'once' | 'stderr' | 'exitCode'> & { exitCode: number | undefined }, events, written };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('runEntry: a command never ends with exit 0 by running out of work', () => {
  test("out of work while main is pending (a promise nothing can settle): one line, exit 3 (was: Node's exit 0, a CI gate read PASS)", async () => {
    const { proc, events, written } = fakeProcess();
    runEntry('npm run loadtest', () => new Promise<number>(() => undefined), () => 9, proc);
    await flush();
    events.emit('beforeExit', 0);
    expect(proc.exitCode).toBe(3);
    expect(written).toEqual([expect.stringMatching(/^rig failure: npm run loadtest stopped before it finished, with nothing left to wait for: a rig bug/)]);
  });

  test("main's code, or onError's for a rejection, is the exit code; the end after it says nothing", async () => {
    const ok = fakeProcess();
    runEntry('x', async () => 1, () => 9, ok.proc);
    await flush();
    ok.events.emit('beforeExit', 1);
    expect([ok.proc.exitCode, ok.written]).toEqual([1, []]);
    const failed = fakeProcess();
    runEntry('x', async () => Promise.reject(new Error('boom')), (err) => ((err as Error).message === 'boom' ? 3 : 9), failed.proc);
    await flush();
    failed.events.emit('beforeExit', 3);
    expect([failed.proc.exitCode, failed.written]).toEqual([3, []]);
  });

  test('a real Node process whose main never settles exits 3, not 0', () => {
    const entry = path.join(__dirname, '..', '..', 'scripts', 'entry.ts');
    const code = `require(${JSON.stringify(entry)}).runEntry('t', () => new Promise(() => {}), () => 9);`;
    const r = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', code], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/^rig failure: t stopped before it finished/);
  });
});
