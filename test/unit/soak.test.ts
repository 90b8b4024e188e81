/**
 * `npm run soak`: its own flags are checked before the first run (one line, exit 2; --help is usage, exit 0),
 * a first run refused as bad input stops the soak at once (exit 2), and the work folder is kept only when it
 * holds a failed run's folder.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SOAK_USAGE, soak, soakSettings } from '../../scripts/soak';
import { UsageError } from '../../scripts/errors';
import { runCli } from '../helpers/cli';

const refusal = (argv: string[]): string => {
  try {
    soakSettings(argv, {});
  } catch (err) {
    if (err instanceof UsageError) return err.message;
    throw err;
  }
  throw new Error('expected a UsageError');
};

describe('soak flags', () => {
  test('defaults', () => expect(soakSettings([], {})).toEqual({ settings: { runs: 100, vusers: 4, generators: 2 } }));
  test.each([['--help'], ['-h']])('%s asks for the usage', (flag) => expect(soakSettings([flag], {})).toEqual({ help: true }));
  test.each([
    [['--bogus'], /^unknown option --bogus; usage: npm run soak/],
    [['--runs'], /^--runs needs a value; usage: npm run soak/],
    [['2'], /^unexpected argument "2"; usage: npm run soak/],
    [['--runs', '0'], /^--runs "0" must be a whole number of at least 1, e.g. --runs 100$/],
    [['--vusers', 'abc'], /^--vusers "abc" must be a whole number of at least 1, e.g. --vusers 4$/],
    [['--generators', '0'], /^--generators "0" must be a whole number of at least 1, e.g. --generators 2$/],
  ])('%j is refused in one line', (argv, line) => {
    const message = refusal(argv);
    expect(message).toMatch(line);
    expect(message).not.toContain('\n');
  });
  test('usage names every flag', () => {
    for (const flag of ['--runs', '--vusers', '--generators']) expect(SOAK_USAGE).toContain(flag);
  });
});

describe('the soak loop', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'soak-test-'));
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
  const run = async (codes: number[], makeFolder: boolean) => {
    const work = fs.mkdtempSync(path.join(base, 'work-'));
    const lines: string[] = [];
    const argvs: (readonly string[])[] = [];
    let i = 0;
    const code = await soak({ runs: codes.length, vusers: 4, generators: 2 }, {
      work: () => work,
      runOnce: async (args) => {
        argvs.push(args);
        const out = args[args.indexOf('--out') + 1] as string;
        if (makeFolder) fs.mkdirSync(out, { recursive: true });
        const c = codes[i++] as number;
        return { code: c, last: c === 0 ? '' : c === 2 ? 'error: bad input' : 'rig failure: lost' };
      },
      log: (l) => lines.push(l),
      stopped: () => false,
    });
    return { code, lines, work, ran: i, argvs };
  };

  test('a first run refused as bad input stops the soak: exit 2, no more runs, no folder left', async () => {
    const r = await run([2, 2, 2], false);
    expect(r.code).toBe(2);
    expect(r.ran).toBe(1);
    expect(fs.existsSync(r.work)).toBe(false);
    expect(r.lines.join('\n')).not.toContain('kept');
  });

  test('all runs pass: exit 0 and the work folder is removed', async () => {
    const r = await run([0, 0], true);
    expect(r.code).toBe(0);
    expect(fs.existsSync(r.work)).toBe(false);
  });

  test('every run is local, even where cdk-outputs.json would make the CLI pick aws', async () => {
    const r = await run([0, 0], false);
    expect(r.argvs).toHaveLength(2);
    for (const argv of r.argvs) expect(argv.slice(argv.indexOf('--platform'), argv.indexOf('--platform') + 2)).toEqual(['--platform', 'local']);
  });

  test('a failed run leaves its folder: kept and named, exit 3', async () => {
    const r = await run([0, 3], true);
    expect(r.code).toBe(3);
    expect(fs.readdirSync(r.work)).toEqual(['run-2']);
    expect(r.lines.join('\n')).toContain(`run folders kept in ${r.work}`);
  });

  test('failed runs that wrote no folder: nothing is called kept, the work folder is removed', async () => {
    const r = await run([0, 3], false);
    expect(r.code).toBe(3);
    expect(fs.existsSync(r.work)).toBe(false);
    expect(r.lines.join('\n')).not.toContain('kept');
  });
});

describe('npm run soak (the process)', () => {
  test('--help: the usage on stdout, exit 0', async () => {
    const r = await runCli(['--help'], { script: 'soak.ts', timeoutMs: 60_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: npm run soak');
  }, 60_000);
  test('--bogus: one line, exit 2, no stack', async () => {
    const r = await runCli(['--bogus'], { script: 'soak.ts', timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: unknown option --bogus; usage: npm run soak/)]);
  }, 60_000);
});
