import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { entryFailureSummary } from '../../scripts/cli-summary';
import { type EntryFailure, runEntry } from '../../scripts/entry';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const shared = require('../../load-generators/lib/run-entry') as { runEntry(name: string, main: () => Promise<number>, onError: (err: unknown) => number, opts?: { proc?: unknown; report?: string }): void };

/** A stand-in for `process`: its events, its stderr and its exit code. */
function fakeProcess() {
  const events = new EventEmitter();
  const written: string[] = [];
  const proc = { once: events.once.bind(events), stderr: { write: (s: string) => written.push(s) }, exitCode: undefined as number | undefined };
  return { proc: proc as never as Pick<NodeJS.Process, 'once' | 'stderr' | 'exitCode'> & { exitCode: number | undefined }, events, written };
}

const flush = () => new Promise((r) => setImmediate(r));
const ENTRY = path.join(__dirname, '..', '..', 'scripts', 'entry.ts');

describe('runEntry: a command never ends with exit 0 by running out of work', () => {
  test("out of work while main is pending (a promise nothing can settle): one line, exit 3 (was: Node's exit 0, a CI gate read PASS)", async () => {
    const { proc, events, written } = fakeProcess();
    runEntry('npm run loadtest', () => new Promise<number>(() => undefined), () => 9, { proc });
    await flush();
    events.emit('beforeExit', 0);
    expect(proc.exitCode).toBe(3);
    // An `npm run …` command asks for the command that was run; no RIG_DEBUG (nothing read it: it showed nothing more).
    expect(written).toEqual(['rig failure: npm run loadtest stopped before it finished, with nothing left to wait for: a rig bug (please report it with the command you ran)\n']);
  });

  test("the generator's agent and preflight, which no user runs, ask for what the caller names, else only for the report (was: \"the command you ran\")", async () => {
    for (const [report, said] of [[undefined, 'please report it'], ['please report it with the run folder', 'please report it with the run folder']] as const) {
      const { proc, events, written } = fakeProcess();
      shared.runEntry('agent', () => new Promise<number>(() => undefined), () => 9, { proc, ...(report ? { report } : {}) });
      await flush();
      events.emit('beforeExit', 0);
      expect(written).toEqual([`rig failure: agent stopped before it finished, with nothing left to wait for: a rig bug (${said})\n`]);
    }
  });

  test("main's code, or onError's for a rejection, is the exit code; the end after it says nothing", async () => {
    const ok = fakeProcess();
    runEntry('x', async () => 1, () => 9, { proc: ok.proc });
    await flush();
    ok.events.emit('beforeExit', 1);
    expect([ok.proc.exitCode, ok.written]).toEqual([1, []]);
    const failed = fakeProcess();
    runEntry('x', async () => Promise.reject(new Error('boom')), (err) => ((err as Error).message === 'boom' ? 3 : 9), { proc: failed.proc });
    await flush();
    failed.events.emit('beforeExit', 3);
    expect([failed.proc.exitCode, failed.written]).toEqual([3, []]);
  });

  test("an exception nothing caught after main settled: the run's own code stands (its summary is written), one line", async () => {
    const { proc, events, written } = fakeProcess();
    const exits: number[] = [];
    runEntry('npm run loadtest', async () => 1, () => 9, { proc: Object.assign(proc, { exit: (c: number) => void exits.push(c) }) as never });
    await flush();
    events.emit('uncaughtException', new Error('late\n    at cb'));
    expect([proc.exitCode, exits]).toEqual([1, [1]]);
    expect(written).toEqual(['rig failure: npm run loadtest failed after it finished (late): a rig bug (please report it with the command you ran)\n']);
  });

  test('a real Node process whose main never settles exits 3, not 0', () => {
    const code = `require(${JSON.stringify(ENTRY)}).runEntry('t', () => new Promise(() => {}), () => 9);`;
    const r = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', code], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/^rig failure: t stopped before it finished/);
  });
});

// README: `--output` is written whatever the exit code. These two exit-3 paths wrote none (was: no summary at all).
describe('onFailure: told of every exit code that is not main\'s own, for the CLI\'s failure summary', () => {
  test('out of work while main is pending: exit 3 and its line; a rejection: onError\'s code and the error\'s first line; main\'s own code: nothing', async () => {
    const told: EntryFailure[] = [];
    const pending = fakeProcess();
    runEntry('npm run loadtest', () => new Promise<number>(() => undefined), () => 9, { proc: pending.proc, onFailure: (f) => told.push(f) });
    await flush();
    pending.events.emit('beforeExit', 0);
    const rejected = fakeProcess();
    runEntry('x', async () => Promise.reject(new Error('boom\n    at somewhere')), () => 3, { proc: rejected.proc, onFailure: (f) => told.push(f) });
    const ok = fakeProcess();
    runEntry('x', async () => 1, () => 9, { proc: ok.proc, onFailure: (f) => told.push(f) });
    await flush();
    ok.events.emit('beforeExit', 1);
    expect(told).toEqual([
      { exitCode: 3, error: 'npm run loadtest stopped before it finished, with nothing left to wait for: a rig bug (please report it with the command you ran)' },
      { exitCode: 3, error: 'boom' },
    ]);
  });

  test('a hook that throws leaves exit 3, and says so in one line', async () => {
    const { proc, events, written } = fakeProcess();
    runEntry('x', () => new Promise<number>(() => undefined), () => 9, { proc, onFailure: () => { throw new Error('disk gone'); } });
    await flush();
    events.emit('beforeExit', 0);
    expect(proc.exitCode).toBe(3);
    expect(written[1]).toBe('rig failure: x could not write its failure summary (disk gone)\n');
  });

  test("the CLI's hook writes the rig-failure summary to --output, naming the run once it has one", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-entry-summary-'));
    const file = path.join(dir, 'summary.json');
    entryFailureSummary(['--scenario', 'connect', `--output=${file}`], { runInfo: { runId: 'r1', runDir: '/runs/r1' } })({ exitCode: 3, error: 'main stopped' });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ runId: 'r1', runDir: '/runs/r1', status: 'rig-failure', exitCode: 3, error: 'main stopped' });
  });

  test("a real Node process whose main never settles, with the CLI's hook: exit 3, and --output and --json hold the summary", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-entry-summary-'));
    const file = path.join(dir, 'summary.json');
    const argv = ['--json', '--output', file];
    const hook = path.join(__dirname, '..', '..', 'scripts', 'cli-summary.ts');
    const code = `const { entryFailureSummary } = require(${JSON.stringify(hook)});
      require(${JSON.stringify(ENTRY)}).runEntry('npm run loadtest', () => new Promise(() => {}), () => 9, { onFailure: entryFailureSummary(${JSON.stringify(argv)}, { runInfo: {} }) });`;
    const r = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', code], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(3);
    const summary = { status: 'rig-failure', exitCode: 3, error: expect.stringMatching(/^npm run loadtest stopped before it finished, with nothing left to wait for: a rig bug/) };
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(summary);
    expect(JSON.parse(r.stdout)).toEqual(summary);
  });

  // The tests above build the CLI's wiring themselves; this one runs the CLI's own (scripts/cli.ts runCli, what
  // `npm run loadtest` runs), with a stand-in for main: a CLI that dropped its hook would pass them all.
  test.each([
    ['main never settles', 'new Promise(() => {})', /^npm run loadtest stopped before it finished, with nothing left to wait for: a rig bug/],
    ['main rejects once its run has opened', "(async () => { reached.runInfo = { runId: 'r1', runDir: '/runs/r1' }; throw new Error('boom\\n    at main'); })()", /^boom$/],
    // Node's own end of an uncaught exception was exit 1 with a stack, which the README gives to a breached threshold.
    ['an exception nothing caught, thrown from a callback', "new Promise(() => setTimeout(() => { throw new Error('kaput\\n    at cb'); }, 10))", /^kaput$/],
  ])("the CLI's own entry (cli.ts runCli) hands its hook to runEntry: %s, exit 3, and --output and --json hold the summary", (_case, body, error) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-entry-summary-'));
    const file = path.join(dir, 'summary.json');
    const argv = ['--json', '--output', file];
    const cli = path.join(__dirname, '..', '..', 'scripts', 'cli.ts');
    const code = `require(${JSON.stringify(cli)}).runCli(${JSON.stringify(argv)}, (_argv, reached) => ${body});`;
    const r = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', code], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(3);
    const ran = body.includes('runId') ? { runId: 'r1', runDir: '/runs/r1' } : {};
    const summary = { ...ran, status: 'rig-failure', exitCode: 3, error: expect.stringMatching(error) };
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(summary);
    expect(JSON.parse(r.stdout)).toEqual(summary);
  });
});
