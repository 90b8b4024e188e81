/**
 * What a user meets through npm itself: no warning on every `npm run`, flags npm took for itself named
 * with the right form, `npm run -s … --json` as valid JSON, and no browser download at install.
 */
import { spawnSync } from 'node:child_process';
import { ROOT } from '../helpers/cli';

function npm(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('npm', args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('npm and the rig', () => {
  it('`npm run` prints no warning about the project .npmrc', () => {
    const r = npm(['run', 'loadtest', '--', '--help']);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/Unknown project config/);
  });

  it('`npm run loadtest --vusers 300` (no "--"): exit 2, one line naming the flag and the form npm passes through', () => {
    const r = npm(['run', 'loadtest', '--vusers', '300']);
    expect(r.status).toBe(2);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toEqual(['error: npm took --vusers for itself because no "--" came before the flags; put "--" first: npm run loadtest -- --vusers …']);
  });

  it.each([
    [['run', 'report', '--compare', 'runs/a', 'runs/b'], 'error: npm took --compare for itself because no "--" came before the flags; put "--" first: npm run report -- --compare …'],
    [['run', 'soak', '--runs', '3'], 'error: npm took --runs for itself because no "--" came before the flags; put "--" first: npm run soak -- --runs …'],
    [['run', 'bench', '--pin'], 'bench: npm took --pin for itself because no "--" came before the flags; put "--" first: npm run bench -- --pin …'],
    [['run', 'leftovers', '--region', 'eu-west-1'], 'error: npm took --region for itself because no "--" came before the flags; put "--" first: npm run leftovers -- --region …'],
  ])('every npm script names flags npm took for itself: npm %j → exit 2, nothing run', (args, line) => {
    const r = npm(args);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n').filter((l) => /^(error|bench):/.test(l))).toEqual([line]);
  });

  it('`npm run -s loadtest -- … --json` puts only the summary JSON on stdout', () => {
    const r = npm(['run', '-s', 'loadtest', '--', '--vusers', '0', '--json']);
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'bad-input', exitCode: 2 });
    // Even a flag the parser rejects leaves a summary a script can read.
    const unknown = npm(['run', '-s', 'loadtest', '--', '--vusrs', '3', '--json']);
    expect(unknown.status).toBe(2);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ status: 'bad-input', exitCode: 2, error: expect.stringMatching(/unknown option '--vusrs'/) });
  });

  it("the install-script policy skips Playwright's browser download (npm rebuild runs no install script)", () => {
    const r = npm(['rebuild', '@playwright/browser-chromium', '--foreground-scripts']);
    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/install\.js|Downloading|chromium/i);
  });
});
