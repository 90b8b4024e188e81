/**
 * Writes target-stack/app/package-lock.json: the reference target's exact npm tree, so an EC2 target's boot and the
 * Fargate image (`npm ci --omit=dev` in both) install what the repository's tests ran, not whatever the registry
 * resolves that day.
 *
 *   node scripts/launch.js scripts/target-app-lock.ts
 *
 * Run it after changing the app's dependencies (keep them equal to the root package.json's, which the tests use).
 * The tree is cut from the root package-lock.json (lib/agent-lockfile.ts: the same versions and integrity hashes),
 * then handed to npm (`npm install --package-lock-only`), which checks it against the app's package.json and
 * writes the file in its own format. test/cdk/target-app-lockfile.test.ts checks the result.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Lockfile, agentTree } from '../lib/agent-lockfile';

const ROOT = path.resolve(__dirname, '..');
const APP = path.join(ROOT, 'target-stack', 'app');

const pkg = JSON.parse(fs.readFileSync(path.join(APP, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string> };
const rootLock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as Lockfile;
const tree = agentTree(rootLock, Object.keys(pkg.dependencies), pkg.name);
for (const [name, wanted] of Object.entries(pkg.dependencies)) {
  const locked = tree.packageJson.dependencies[name];
  if (locked !== wanted) throw new Error(`target-stack/app/package.json wants ${name}@${wanted}, the root package-lock.json holds ${String(locked)}. Fix: pin the same version in both package.json files`);
}
fs.writeFileSync(path.join(APP, 'package-lock.json'), `${JSON.stringify(tree.packageLock, null, 2)}\n`);
execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: APP, stdio: 'inherit' });
