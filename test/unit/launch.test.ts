/**
 * scripts/launch.js, the start of `npm run loadtest` / `report` / `bench` / `leftovers`: a TypeScript entry
 * runs transpiled once, later starts read the cached JavaScript without loading TypeScript, an edit is
 * picked up at the next start, and modules keep their source paths.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const LAUNCH = path.join(ROOT, 'scripts', 'launch.js');

function launch(args: string[], cache: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, RIG_LAUNCH_CACHE: cache };
  delete env.NODE_COMPILE_CACHE;
  const r = spawnSync(process.execPath, [LAUNCH, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('scripts/launch.js', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-launch-test-'));
  const cache = path.join(dir, 'cache');
  const entry = path.join(dir, 'entry.ts');
  const helper = path.join(dir, 'helper.ts');
  // Reports whether TypeScript was loaded in this process, whether it is the main module (entries guard on
  // `require.main === module`), its own folder, a value from a .ts import, and its args.
  const write = (value: string) => {
    fs.writeFileSync(helper, `export const value: string = ${JSON.stringify(value)};\n`);
    fs.writeFileSync(
      entry,
      [
        "import { value } from './helper';",
        'interface Out { ts: boolean; main: boolean; dir: string; value: string; args: string[] }',
        "const out: Out = { ts: Object.keys(require.cache).some((k) => /[\\\\/]node_modules[\\\\/]typescript[\\\\/]/.test(k)), main: require.main === module, dir: __dirname, value, args: process.argv.slice(2) };",
        'process.stdout.write(JSON.stringify(out));',
        '',
      ].join('\n'),
    );
  };
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('transpiles on the first start only; an edited source is transpiled again', () => {
    write('one');
    const first = launch([entry, '--flag', 'x'], cache);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ ts: true, main: true, dir, value: 'one', args: ['--flag', 'x'] });

    const second = launch([entry], cache);
    expect(JSON.parse(second.stdout)).toEqual({ ts: false, main: true, dir, value: 'one', args: [] });

    write('two');
    const edited = launch([entry], cache);
    expect(JSON.parse(edited.stdout)).toMatchObject({ ts: true, value: 'two' });
  });

  test('--warm fills the cache for every module of scripts/ and lib/, so the first run after npm ci loads no TypeScript', () => {
    const warmCache = path.join(dir, 'warm');
    const warm = launch(['--warm'], warmCache);
    expect(warm.code).toBe(0);
    const sources = ['scripts', 'lib'].flatMap((d) => fs.readdirSync(path.join(ROOT, d), { recursive: true, encoding: 'utf8' })).filter((f) => String(f).endsWith('.ts') && !String(f).endsWith('.d.ts')).length;
    expect(fs.readdirSync(warmCache).filter((f) => f.endsWith('.js'))).toHaveLength(sources);
    // The real CLI, started from the warmed cache: its usage error, and TypeScript never loaded.
    const env = { ...process.env, RIG_LAUNCH_CACHE: warmCache, NODE_OPTIONS: `--require ${path.join(dir, 'probe.js')}` };
    fs.writeFileSync(path.join(dir, 'probe.js'), "process.on('exit', () => { if (Object.keys(require.cache).some((k) => /[\\\\/]node_modules[\\\\/]typescript[\\\\/]/.test(k))) process.stderr.write('TYPESCRIPT LOADED\\n'); });\n");
    const r = spawnSync(process.execPath, [LAUNCH, path.join(ROOT, 'scripts', 'cli.ts'), '--vusers', 'abc'], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--vusers "abc" must be a whole number/);
    expect(r.stderr).not.toMatch(/TYPESCRIPT LOADED/);
  });

  test('a cache folder others may write to is never used (it would hold code this process runs)', () => {
    write('three');
    const open = path.join(dir, 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    expect(JSON.parse(launch([entry], open).stdout)).toMatchObject({ ts: true, value: 'three' });
    expect(fs.readdirSync(open)).toEqual([]);
    // Still correct, only not cached: the next start transpiles again.
    expect(JSON.parse(launch([entry], open).stdout)).toMatchObject({ ts: true, value: 'three' });
  });

  test('without an entry: a usage line and exit 2', () => {
    const r = launch([], cache);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/usage: node scripts\/launch\.js/);
  });
});
