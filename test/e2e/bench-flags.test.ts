/**
 * `npm run bench`'s bad flags: one line naming the flag, exit 2, before any target or trial starts (the bench's
 * first step after its flags is the reference target; a refused flag never gets there, so no rig-bench-* folder).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { runCli } from '../helpers/cli';

const benchFolders = () => new Set(fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('rig-bench-')));

test.each([
  [['--repeat', '0'], 'bench: --repeat must be a positive number (got "0")'],
  [['--repeat', '1.5'], 'bench: --repeat must be a whole number of trials (got "1.5")'],
  [['--trial', 'soon'], 'bench: --trial must be a positive number (got "soon")'],
  // Empty (an unset CI variable): the bench ran as if the flag were not given.
  [['--json='], 'bench: --json is empty; give it a value or leave the flag out'],
  [['--target='], 'bench: --target is empty; give it a value or leave the flag out'],
  // Found after the whole bench (~15 min of trials), when the figures could not be written: now before it starts.
  [['--json', os.tmpdir()], `bench: --json ${os.tmpdir()} is a folder; pass a file name, e.g. --json summary.json`],
  [['--json', '/nonexistent-rig-dir/b.json'], 'bench: --json /nonexistent-rig-dir/b.json: /nonexistent-rig-dir is not an existing folder; create it or pass another path'],
  // The memory trials come first and the ladder stops a minute before the budget: no ladder trial would run.
  [['--budget', '0.5'], 'bench: --budget 0.5 leaves no time for the ladder (the memory trials take ~6 min first, and no trial starts in the last minute); give at least --budget 8'],
  [['--budget', '7', '--trial', '300'], 'bench: --budget 7 leaves no time for the ladder (the memory trials take ~6 min first, and no trial starts in the last minute); give at least --budget 12'],
  [['--budget', '14', '--mem-seconds', '300'], 'bench: --budget 14 leaves no time for the ladder (the memory trials take ~22 min first, and no trial starts in the last minute); give at least --budget 24'],
])('bench %j: one line, exit 2, nothing started', async (args, line) => {
  const before = benchFolders();
  const r = await runCli(args, { script: 'bench.ts', timeoutMs: 60_000 });
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split('\n').filter((l) => !/^npm warn/.test(l))).toEqual([line]);
  expect([...benchFolders()].filter((n) => !before.has(n))).toEqual([]);
});

test.each([['--help'], ['-h']])('bench %s: the usage on stdout, exit 0, nothing started', async (flag) => {
  const before = benchFolders();
  const r = await runCli([flag], { script: 'bench.ts', timeoutMs: 60_000 });
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^usage: npm run bench -- /);
  for (const f of ['--pin', '--rates', '--trial', '--budget', '--json', '--target']) expect(r.stdout).toContain(f);
  expect([...benchFolders()].filter((n) => !before.has(n))).toEqual([]);
});

test('bench --bogus: one line naming the option and the usage, exit 2', async () => {
  const r = await runCli(['--bogus'], { script: 'bench.ts', timeoutMs: 60_000 });
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split('\n').filter((l) => !/^npm warn/.test(l))).toEqual([expect.stringMatching(/^bench: unknown option --bogus; usage: npm run bench -- /)]);
});
