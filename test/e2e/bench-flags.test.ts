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
  [['--trial', 'soon'], 'bench: --trial "soon" is not a duration; use seconds or a unit, e.g. --trial 90s, --trial 20m or --trial 1h30m'],
  [['--hold', '0'], 'bench: --hold "0" must be longer than zero; e.g. --hold 90s or --hold 20m'],
  // A negative number after a space is taken for a flag by parseArgs (was: "Option '--budget' argument is ambiguous.").
  [['--budget', '-1'], 'bench: --budget needs a value, and the next argument starts with "-"; if that is its value, write --budget=<value>; usage: npm run bench -- [--pin [--target-cpus LIST] [--generator-cpus LIST]] [--rates 50,75,100,…] [--trial DUR] [--hold DUR] [--repeat N] [--mem-rate R] [--mem-seconds DUR] [--budget MIN|DUR] [--workers N] [--target URL] [--json FILE]'],
  // Empty (an unset CI variable): the bench ran as if the flag were not given.
  [['--json='], 'bench: --json is empty; give it a value or leave the flag out'],
  [['--target='], 'bench: --target is empty; give it a value or leave the flag out'],
  // Found after the whole bench (~15 min of trials), when the figures could not be written: now before it starts.
  [['--json', os.tmpdir()], `bench: --json ${os.tmpdir()} is a folder; pass a file name, e.g. --json summary.json`],
  [['--json', '/nonexistent-rig-dir/b.json'], 'bench: --json /nonexistent-rig-dir/b.json: /nonexistent-rig-dir is not an existing folder; create it or pass another path'],
  // The memory trials come first and the ladder stops a minute before the budget: no ladder trial would run.
  [['--budget', '0.5'], 'bench: --budget 0.5 leaves no time for the ladder (the memory trials take ~6 min first, and no trial starts in the last minute); give at least --budget 8'],
  // Durations as `npm run loadtest` takes them (was: "--trial must be a positive number (got \"5m\")"); --budget's own unit is minutes.
  // Minutes are its unit: the shared duration line ("use seconds") would lead to --budget 900, i.e. 15 hours.
  [['--budget', 'abc'], 'bench: --budget "abc" is not minutes or a duration; e.g. --budget 15 (minutes), --budget 90m or --budget 1h'],
  [['--budget', '90s'], 'bench: --budget 90s leaves no time for the ladder (the memory trials take ~6 min first, and no trial starts in the last minute); give at least --budget 8'],
  [['--budget', '7', '--trial', '5m'], 'bench: --budget 7 leaves no time for the ladder (the memory trials take ~6 min first, and no trial starts in the last minute); give at least --budget 12'],
  [['--budget', '14', '--mem-seconds', '5m'], 'bench: --budget 14 leaves no time for the ladder (the memory trials take ~22 min first, and no trial starts in the last minute); give at least --budget 24'],
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
