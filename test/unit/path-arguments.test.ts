/**
 * Paths users hand the rig's commands: `~` in a path flag is the home folder, as the shell would have read it
 * (without this, `--out=~/runs/x` made a folder named `~` in the working directory), and `npm run report`'s
 * run-folder arguments given carelessly are named as what they are.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildProgram } from '../../scripts/cli';
import { expandHome, invocationDir, userPath } from '../../scripts/home-path';
import { main as reportMain } from '../../scripts/report-cli';
import { runCli, tempDir } from '../helpers/cli';

describe('expandHome', () => {
  it('reads a leading ~ or ~/ as the home folder and leaves every other path as written', () => {
    expect(expandHome('~', '/home/me')).toBe('/home/me');
    expect(expandHome('~/runs/a', '/home/me')).toBe('/home/me/runs/a');
    expect(expandHome('~other/runs', '/home/me')).toBe('~other/runs'); // another user's home: only the shell knows it
    expect(expandHome('runs/~/a', '/home/me')).toBe('runs/~/a');
    expect(expandHome('./~', '/home/me')).toBe('./~');
    expect(expandHome('/abs/x', '/home/me')).toBe('/abs/x');
  });
});

describe('every path flag of npm run loadtest', () => {
  it('reads ~ in --scenario, --out, --output and --baseline, with a space or with =', () => {
    const program = buildProgram('/home/me');
    program.parse(['--scenario', '~/my.yml', '--out=~/runs/x', '--output', '~/s.json', '--baseline=~/runs/b'], { from: 'user' });
    expect(program.opts()).toMatchObject({ scenario: '/home/me/my.yml', out: '/home/me/runs/x', output: '/home/me/s.json', baseline: '/home/me/runs/b' });
  });

  it('keeps built-in scenario names and the default as they are', () => {
    const program = buildProgram('/home/me');
    program.parse([], { from: 'user' });
    expect(program.opts().scenario).toBe('connect');
    const named = buildProgram('/home/me');
    named.parse(['--scenario', 'pubsub'], { from: 'user' });
    expect(named.opts().scenario).toBe('pubsub');
  });

  it('writes the bad-input summary of --output=~/… into the home folder, not into a folder named ~', async () => {
    const home = tempDir('rig-home-');
    try {
      const r = await runCli(['--no-such-flag', '--output=~/summary.json'], { env: { HOME: home }, timeoutMs: 60_000 });
      expect(r.code).toBe(2);
      expect(JSON.parse(fs.readFileSync(path.join(home, 'summary.json'), 'utf8'))).toMatchObject({ status: 'bad-input', exitCode: 2 });
      expect(fs.existsSync(path.join(process.cwd(), '~'))).toBe(false);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('relative paths start where the command was run (npm run starts scripts in the package root, and says where it was run in INIT_CWD)', () => {
  it('invocationDir reads INIT_CWD; userPath resolves from it, leaving "" and "-" for the flags to refuse', () => {
    expect(invocationDir({ INIT_CWD: '/work/sub' }, '/work/main')).toBe('/work/sub');
    expect(invocationDir({}, '/work/main')).toBe('/work/main');
    expect(userPath('runs/x', '/home/me', '/work/sub')).toBe('/work/sub/runs/x');
    expect(userPath('~/x', '/home/me', '/work/sub')).toBe('/home/me/x');
    expect(userPath('/abs', '/home/me', '/work/sub')).toBe('/abs');
    expect([userPath('', '/h', '/b'), userPath('-', '/h', '/b')]).toEqual(['', '-']);
  });

  it('every path flag of npm run loadtest; a built-in scenario name stays a name', () => {
    const program = buildProgram('/home/me', '/work/sub');
    program.parse(['--scenario', './my.yml', '--out=runs/x', '--output', 's.json', '--baseline', '../b'], { from: 'user' });
    expect(program.opts()).toMatchObject({ scenario: '/work/sub/my.yml', out: '/work/sub/runs/x', output: '/work/sub/s.json', baseline: '/work/b' });
    const named = buildProgram('/home/me', '/work/sub');
    named.parse(['--scenario', 'pubsub'], { from: 'user' });
    expect(named.opts().scenario).toBe('pubsub');
  });

  it('end to end: a script beside the folder npm was run in is found (was: "no such file", looked for in the package root)', async () => {
    const sub = tempDir('rig-invoked-');
    fs.writeFileSync(path.join(sub, 'mine.yml'), 'config:\n  target: "http://127.0.0.1:1"\n  phases: [{ duration: 1, arrivalCount: 1 }]\nscenarios:\n  - flow: [ { get: { url: / } } ]\n');
    const r = await runCli(['--scenario', './mine.yml', '--platform', 'local'], { env: { INIT_CWD: sub }, timeoutMs: 60_000 });
    // Found and read: the refusal is the target's (nothing listens on port 1: exit 3), not the file's.
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^target: http:\/\/127\.0\.0\.1:1 \(config\.target of mine\.yml/m);
    expect(r.stderr).not.toMatch(/no such file/);
  }, 60_000);
});

describe('npm run report', () => {
  it('reads ~ in a run folder', async () => {
    await expect(reportMain(['~/runs/none'], () => undefined, () => undefined, {}, '/home/nobody-here')).rejects.toThrow('run /home/nobody-here/runs/none does not exist');
    await expect(reportMain(['--compare', '~/a', '~/b'], () => undefined, () => undefined, {}, '/home/nobody-here')).rejects.toThrow('baseline /home/nobody-here/a does not exist');
  });
});

describe('npm run report: careless arguments', () => {
  const runDir = tempDir('rig-report-args-');
  fs.writeFileSync(path.join(runDir, 'run.json'), '{}');
  fs.writeFileSync(path.join(runDir, 'report.html'), '<html>');
  const noop = () => undefined;
  it("a run's report.html passed instead of its folder names the folder", async () => {
    await expect(reportMain([path.join(runDir, 'report.html')], noop, noop)).rejects.toThrow(`run ${path.join(runDir, 'report.html')} is a file, not a run folder; pass its folder, ${runDir}`);
  });
  it('the same folder twice for --compare, and two folders without --compare, are named as such', async () => {
    await expect(reportMain(['--compare', runDir, `${runDir}/`], noop, noop)).rejects.toThrow(/--compare got the same run folder twice/);
    await expect(reportMain([runDir, '/tmp/other'], noop, noop)).rejects.toThrow(`two run folders without --compare; to compare them: npm run report -- --compare ${runDir} /tmp/other`);
  });
  it('the same folder twice without --compare is not told to compare it with itself', async () => {
    const err = await reportMain([runDir, `${runDir}/`], noop, noop).catch((e: Error) => e);
    expect(String(err)).toContain(`the same run folder twice (${runDir}); to rebuild its report: npm run report -- ${runDir}`);
    expect(String(err)).not.toContain('--compare');
  });
  it.each([['--help'], ['-h']])('%s prints the usage on stdout and exits 0', async (flag) => {
    const printed: string[] = [];
    await expect(reportMain([flag], (t) => printed.push(t), noop)).resolves.toBe(0);
    expect(printed.join('\n')).toMatch(/^usage: npm run report -- runs\/<run-id>/);
  });
  it('an --ensure that does not parse is refused before any folder is read or written', async () => {
    const before = fs.readdirSync(runDir).sort();
    // The folders do not even exist: the expression is checked first.
    await expect(reportMain(['--compare', '/tmp/no-such-base', '/tmp/no-such-run', '--ensure', 'p99 <'], noop, noop)).rejects.toThrow(/^--ensure "p99 <" is not a valid ensure expression \(/);
    await expect(reportMain(['--compare', runDir, '/tmp/no-such-run', '--ensure', 'vusers.failed == 0', '--ensure', 'p99 <'], noop, noop)).rejects.toThrow(/--ensure "p99 <" is not a valid/);
    expect(fs.readdirSync(runDir).sort()).toEqual(before);
  });
});
