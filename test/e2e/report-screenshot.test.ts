/**
 * `npm run report:screenshot`: its flags are parsed, not searched for (`--out=x.png` was not seen, so the demo run
 * started and the PNG went over the documentation's), and an interrupted screenshot stops its demo run instead of
 * leaving it running.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, runCli } from '../helpers/cli';
import { screenshotArgs } from '../../scripts/report-screenshot';
import { UsageError } from '../../scripts/errors';

describe('screenshotArgs', () => {
  test('--out FILE and --out=FILE, ~ read as home, relative paths from where it was run, at most one folder; unknown flags and empty values refused', () => {
    expect(screenshotArgs(['--out=shot.png', 'runs/a'], '/home/me', '/work/here')).toEqual({ out: '/work/here/shot.png', folder: '/work/here/runs/a' });
    expect(screenshotArgs(['runs/a', '--out', '~/shot.png'], '/home/me', '/work/here')).toEqual({ out: '/home/me/shot.png', folder: '/work/here/runs/a' });
    expect(screenshotArgs([], '/home/me', '/work/here')).toEqual({});
    expect(() => screenshotArgs(['--out='], '/home/me', '/work/here')).toThrow(/^--out is empty; usage: npm run report:screenshot/);
    expect(() => screenshotArgs(['--output', 'x.png'], '/home/me', '/work/here')).toThrow(UsageError);
    expect(() => screenshotArgs(['--output', 'x.png'], '/home/me', '/work/here')).toThrow(/^unknown option --output; usage:/);
    // The last one was kept silently, and this is the flag whose misreading overwrote the documentation's PNG.
    expect(() => screenshotArgs(['--out', 'a.png', '--out', 'b.png'], '/home/me', '/work/here')).toThrow(/^--out was given twice \("a.png", then "b.png"\); it takes one value: pass it once; usage: npm run report:screenshot/);
    expect(() => screenshotArgs(['runs/a', 'runs/b'], '/home/me', '/work/here')).toThrow(/^one run folder at a time/);
  });
});

test('a bad flag: one line, exit 2, no demo run started', async () => {
  const r = await runCli(['--out='], { script: 'report-screenshot.ts', timeoutMs: 60_000 });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^error: --out is empty/m);
  expect(r.stderr).not.toMatch(/local reference target/);
});

test('interrupted during its demo run (SIGINT to the screenshot alone): the demo run stops too, exit 130, no PNG', async () => {
  const png = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rig-shot-')), 'shot.png');
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'launch.js'), path.join(ROOT, 'scripts', 'report-screenshot.ts'), '--out', png], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const started = new Promise<void>((resolve) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/local reference target/.test(stderr)) resolve();
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await Promise.race([started, exited]);
  // The demo run's own process: a child of the screenshot, running cli.ts with the demo's --out.
  const demoPid = (): number | undefined => {
    for (const pid of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      try {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (cmd.includes('cli.ts') && cmd.includes('rig-report-demo-')) return Number(pid);
      } catch {
        /* gone */
      }
    }
    return undefined;
  };
  const demo = demoPid();
  expect(demo).toBeDefined();
  child.kill('SIGINT');
  expect(await exited).toBe(130);
  // Gone once the screenshot has exited (the demo run exits first: the screenshot waits for it).
  expect(fs.existsSync(`/proc/${demo}`) && !fs.readFileSync(`/proc/${demo}/stat`, 'utf8').includes(') Z')).toBe(false);
  expect(fs.existsSync(png)).toBe(false);
}, 120_000);
