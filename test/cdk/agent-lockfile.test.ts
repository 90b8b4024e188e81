import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AGENT_PACKAGES, Lockfile, agentTree } from '../../lib/agent-lockfile';
import { writeAgentTree } from '../../lib/user-data';

const ROOT = path.resolve(__dirname, '..', '..');
const repoLock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as Lockfile;

describe('the generators\' exact npm tree, cut from the repository lockfile', () => {
  test('a small lockfile: nested copies resolve where Node would find them, dev markers dropped, optional misses skipped', () => {
    const lock: Lockfile = {
      lockfileVersion: 3,
      packages: {
        '': { name: 'repo', devDependencies: { a: '1.0.0' } },
        'node_modules/a': { version: '1.0.0', resolved: 'https://r/a-1.0.0.tgz', integrity: 'sha512-a', dev: true, dependencies: { b: '^2', c: '^1' }, optionalDependencies: { gone: '*' } },
        'node_modules/a/node_modules/b': { version: '2.0.0', integrity: 'sha512-b2', dev: true },
        'node_modules/b': { version: '1.0.0', integrity: 'sha512-b1', dev: true },
        'node_modules/c': { version: '1.1.0', integrity: 'sha512-c', devOptional: true, dependencies: { b: '^1' } },
        'node_modules/unrelated': { version: '9.0.0' },
      },
    };
    const tree = agentTree(lock, ['a']);
    expect(tree.packageJson.dependencies).toEqual({ a: '1.0.0' });
    expect(Object.keys(tree.packageLock.packages)).toEqual(['', 'node_modules/a', 'node_modules/a/node_modules/b', 'node_modules/b', 'node_modules/c']);
    expect(tree.packageLock.packages['node_modules/a']).toEqual({ version: '1.0.0', resolved: 'https://r/a-1.0.0.tgz', integrity: 'sha512-a', dependencies: { b: '^2', c: '^1' }, optionalDependencies: { gone: '*' } });
    expect(tree.packageLock.packages['node_modules/c']).toMatchObject({ optional: true });
    expect(tree.packageLock.packages['']).toEqual({ name: 'loadtest-rig-agent', version: '0.0.0', dependencies: { a: '1.0.0' } });
  });

  test('a package or a required dependency the lockfile lacks is refused with the fix', () => {
    expect(() => agentTree(repoLock, ['no-such-package-xyz'])).toThrow('package-lock.json has no "no-such-package-xyz". Fix: npm install --save-exact no-such-package-xyz');
    const broken: Lockfile = { lockfileVersion: 3, packages: { 'node_modules/a': { version: '1.0.0', dependencies: { missing: '1' } } } };
    expect(() => agentTree(broken, ['a'])).toThrow('node_modules/a needs missing');
  });

  test('the agent packages keep the repository\'s exact versions and integrity hashes', () => {
    const tree = agentTree(repoLock, AGENT_PACKAGES);
    for (const name of AGENT_PACKAGES) {
      expect(tree.packageJson.dependencies[name]).toBe(repoLock.packages[`node_modules/${name}`]?.version);
      expect(tree.packageLock.packages[`node_modules/${name}`]?.integrity).toBe(repoLock.packages[`node_modules/${name}`]?.integrity);
    }
    expect(tree.packageJson.dependencies.artillery).toBe('2.0.34');
    // Nothing outside the agent's closure (the CDK, jest, TypeScript) is in it.
    for (const k of ['node_modules/aws-cdk-lib', 'node_modules/jest', 'node_modules/typescript']) expect(tree.packageLock.packages[k]).toBeUndefined();
  });

  test('npm ci accepts the written tree as in sync (dry run, no download)', () => {
    const dir = writeAgentTree(AGENT_PACKAGES);
    const res = spawnSync('npm', ['ci', '--omit=dev', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund', '--offline'], { cwd: dir, encoding: 'utf8', env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' }, timeout: 120_000 });
    expect({ status: res.status, stderr: res.stderr.split('\n').filter((l) => !l.startsWith('npm warn')).join('\n') }).toEqual({ status: 0, stderr: '' });
    expect(res.stdout).toMatch(/added \d+ packages/);
    // Reproducible: the same content every synth, so the asset hash (and the launch template) only changes with the lockfile.
    expect(fs.readFileSync(path.join(writeAgentTree(AGENT_PACKAGES), 'package-lock.json'), 'utf8')).toBe(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
  });

  test('every synth of the same tree reuses one folder named by its content, holding the two files only (a folder per synth piled up in the temp directory)', () => {
    const dir = writeAgentTree(AGENT_PACKAGES);
    expect(writeAgentTree(AGENT_PACKAGES)).toBe(dir);
    expect(path.basename(dir)).toMatch(/^loadtest-rig-agent-tree-[0-9a-f]{16}$/);
    expect(fs.readdirSync(dir).sort()).toEqual(['package-lock.json', 'package.json']);
    expect(writeAgentTree(AGENT_PACKAGES.slice(0, 1))).not.toBe(dir);
  });
});

describe('install-generator.sh', () => {
  test('refuses an agent folder without the lockfile (exit 2), and retries a failing network step with backoff', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-install-'));
    const res = spawnSync('bash', [path.join(ROOT, 'load-generators', 'install-generator.sh'), empty], { encoding: 'utf8' });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('has no package.json + package-lock.json');
    // The retry function itself: fails twice, then succeeds, sleeping 2 s then 4 s (sleep stubbed to record).
    const script = fs.readFileSync(path.join(ROOT, 'load-generators', 'install-generator.sh'), 'utf8');
    const retryFn = /retry\(\) \{[\s\S]*?\n\}\n/.exec(script)?.[0] ?? '';
    const counter = path.join(empty, 'n');
    const run = spawnSync('bash', ['-c', `sleep() { echo "slept $1" >&2; }\n${retryFn}\nflaky() { n=$(cat ${counter} 2>/dev/null || echo 0); echo $((n+1)) > ${counter}; [ "$n" -ge 2 ]; }\nretry 5 flaky && echo ok`], { encoding: 'utf8' });
    expect(run.stdout.trim()).toBe('ok');
    expect(run.stderr.match(/slept \d+/g)).toEqual(['slept 2', 'slept 4']);
  });
});
