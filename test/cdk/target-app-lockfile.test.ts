import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { LockEntry, Lockfile, resolveFrom } from '../../lib/agent-lockfile';
import { Ec2Target } from '../../target-stack/ec2-target';
import { buildTestRig, launchTemplateUserData, targetOf } from './helpers';

const ROOT = path.resolve(__dirname, '..', '..');
const APP = path.join(ROOT, 'target-stack', 'app');
const appPkg = JSON.parse(fs.readFileSync(path.join(APP, 'package.json'), 'utf8')) as { name: string; version: string; dependencies: Record<string, string> };
const appLock = JSON.parse(fs.readFileSync(path.join(APP, 'package-lock.json'), 'utf8')) as Lockfile & { name: string; version: string };
const rootLock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as Lockfile;

/** Every package Node loads from the app's tree, walked from its top-level dependencies along `require` resolution. */
function walk(lock: Lockfile, top: readonly string[]): Array<{ chain: string[]; at: string }> {
  const seen = new Set<string>();
  const out: Array<{ chain: string[]; at: string }> = [];
  const queue = top.map((n) => ({ chain: [n], at: `node_modules/${n}` }));
  while (queue.length) {
    const item = queue.shift() as { chain: string[]; at: string };
    if (seen.has(item.at)) continue;
    seen.add(item.at);
    out.push(item);
    const entry = lock.packages[item.at] as LockEntry;
    for (const dep of [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {})]) {
      const found = resolveFrom(lock.packages, item.at, dep);
      if (found) queue.push({ chain: [...item.chain, dep], at: found });
    }
  }
  return out;
}

/** Where Node, in the tree of `lock`, lands following the same chain of requires from the top. */
function follow(lock: Lockfile, chain: readonly string[]): string | undefined {
  let at: string | undefined = '';
  for (const name of chain) {
    at = resolveFrom(lock.packages, at as string, name);
    if (!at) return undefined;
  }
  return at;
}

describe('the reference target app ships its own lockfile (target-stack/app/package-lock.json)', () => {
  test('its root entry is the app\'s package.json: same name, version and exact dependencies', () => {
    expect(appLock.lockfileVersion).toBeGreaterThanOrEqual(2);
    expect({ name: appLock.name, version: appLock.version }).toEqual({ name: appPkg.name, version: appPkg.version });
    expect(appLock.packages['']).toMatchObject({ name: appPkg.name, version: appPkg.version, dependencies: appPkg.dependencies });
    for (const [name, version] of Object.entries(appPkg.dependencies)) expect(appLock.packages[`node_modules/${name}`]?.version).toBe(version);
  });

  test('npm ci --omit=dev accepts it as in sync with package.json (dry run, offline, no download)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'target-app-lock-'));
    try {
      for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(APP, f), path.join(dir, f));
      const res = spawnSync('npm', ['ci', '--omit=dev', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund', '--offline'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
      expect({ status: res.status, stderr: res.stderr.split('\n').filter((l) => !l.startsWith('npm warn')).join('\n') }).toEqual({ status: 0, stderr: '' });
      expect(res.stdout).toMatch(/added \d+ packages/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('every package the app loads is the version and tarball the root lockfile gives the repository\'s tests (same require chain)', () => {
    const walked = walk(appLock, Object.keys(appPkg.dependencies));
    expect(walked.length).toBeGreaterThan(20);
    const mismatches: string[] = [];
    for (const { chain, at } of walked) {
      const rootAt = follow(rootLock, chain);
      const mine = appLock.packages[at] as LockEntry;
      const theirs = rootAt ? rootLock.packages[rootAt] : undefined;
      // The root holds every app dependency (its package.json lists them), so every chain resolves there too.
      if (!theirs || theirs.version !== mine.version || theirs.integrity !== mine.integrity) {
        mismatches.push(`${chain.join(' > ')}: app ${String(mine.version)}, root ${String(theirs?.version)}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  test('the Socket.IO server stack is pinned to the root\'s: socket.io, engine.io, and the ws engine.io loads (not the root\'s top-level ws 7)', () => {
    const v = (lock: Lockfile, chain: string[]): string | undefined => lock.packages[follow(lock, chain) ?? '']?.version;
    for (const chain of [['socket.io'], ['socket.io', 'engine.io'], ['socket.io', 'engine.io', 'ws'], ['socket.io', 'socket.io-adapter'], ['socket.io', 'socket.io-parser'], ['redis', '@redis/client']]) {
      expect({ chain, version: v(appLock, chain) }).toEqual({ chain, version: v(rootLock, chain) });
    }
    expect(v(appLock, ['socket.io', 'engine.io', 'ws'])).toMatch(/^8\./);
  });
});

describe('both deploy paths install the app with npm ci from its lockfile', () => {
  test('EC2 user-data runs npm ci --omit=dev, never npm install', () => {
    const userData = launchTemplateUserData(Template.fromStack(targetOf(buildTestRig({ targetKind: 'ec2' }).rig)));
    expect(userData).toContain('cd /opt/loadtest-rig/target-app && retry 5 npm ci --omit=dev');
    expect(userData).not.toMatch(/npm install/);
  });

  test('the EC2 app asset (S3) holds package-lock.json byte for byte', () => {
    const { app, rig } = buildTestRig({ targetKind: 'ec2' });
    const assembly = app.synth();
    const manifest = assetManifest(assembly.directory, assembly.getStackArtifact(targetOf(rig).artifactId).dependencies);
    const staged = Object.values(manifest.files ?? {}).map((f) => path.join(assembly.directory, f.source.path))
      .filter((dir) => fs.existsSync(path.join(dir, 'server.js')));
    expect(staged).toHaveLength(1);
    expect(fs.readFileSync(path.join(staged[0] as string, 'package-lock.json'), 'utf8')).toBe(fs.readFileSync(path.join(APP, 'package-lock.json'), 'utf8'));
  });

  test('the Fargate image copies package-lock.json and runs npm ci --omit=dev; its build context holds the lockfile', () => {
    const { app, rig } = buildTestRig({ targetKind: 'fargate' });
    const assembly = app.synth();
    const manifest = assetManifest(assembly.directory, assembly.getStackArtifact(targetOf(rig).artifactId).dependencies);
    const images = Object.values(manifest.dockerImages ?? {});
    expect(images).toHaveLength(1);
    const context = path.join(assembly.directory, images[0]?.source.directory as string);
    expect(fs.readFileSync(path.join(context, 'app', 'package-lock.json'), 'utf8')).toBe(fs.readFileSync(path.join(APP, 'package-lock.json'), 'utf8'));
    const dockerfile = fs.readFileSync(path.join(context, images[0]?.source.dockerFile ?? 'Dockerfile'), 'utf8');
    const lines = dockerfile.split('\n').filter((l) => !l.startsWith('#'));
    expect(lines).toContain('COPY app/package.json app/package-lock.json ./');
    expect(lines.some((l) => /^RUN npm ci --omit=dev\b/.test(l))).toBe(true);
    expect(lines.join('\n')).not.toMatch(/npm install/);
    // The lockfile is copied before npm ci runs.
    expect(lines.findIndex((l) => l.includes('package-lock.json'))).toBeLessThan(lines.findIndex((l) => l.startsWith('RUN npm ci')));
  });

  test('an EC2 app folder without package-lock.json is refused at synth, naming the fix', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'target-app-nolock-'));
    try {
      fs.copyFileSync(path.join(APP, 'package.json'), path.join(dir, 'package.json'));
      const stack = new Stack(new App(), 'S');
      const vpc = new ec2.Vpc(stack, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'p', subnetType: ec2.SubnetType.PUBLIC }] });
      expect(() => new Ec2Target(stack, 'T', {
        vpc, instanceType: new ec2.InstanceType('t3.small'), appDirectory: dir,
        minCapacity: 1, maxCapacity: 2, scaleOutCpuPercent: 40, scaleInCpuPercent: 20, breachDurationMinutes: 2,
      })).toThrow(/has no package-lock\.json, which its boot's npm ci needs\. Fix: npm install --package-lock-only/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

interface AssetManifest {
  files?: Record<string, { source: { path: string; packaging?: string } }>;
  dockerImages?: Record<string, { source: { directory: string; dockerFile?: string } }>;
}

function assetManifest(dir: string, deps: readonly unknown[]): AssetManifest {
  const file = deps.map((d) => d as { file?: string }).find((d) => d.file?.endsWith('.assets.json'))?.file;
  return JSON.parse(fs.readFileSync(path.resolve(dir, file as string), 'utf8')) as AssetManifest;
}
