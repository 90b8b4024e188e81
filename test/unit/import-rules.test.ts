/**
 * The import rules `npm test` checks (.dependency-cruiser.cjs, `npm run deps`): the real dependency-cruiser
 * with the project's own config over small planted trees. A tree that breaks a rule must fail, and a tree
 * that keeps them must pass, so the check in `npm test` can fail and does not fail by itself.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
const FOLDERS = ['scripts', 'lib', 'load-generators', 'target-stack', 'bin'];

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
}

/**
 * Writes the files into a fresh folder (with the folders the check names) and cruises it twice: as
 * `npm run deps` does (its exit code) and with JSON output (which rules were broken, by which import).
 */
function cruise(files: Record<string, string>): { code: number | null; violations: Violation[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-import-rules-'));
  try {
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { allowJs: true, module: 'commonjs', moduleResolution: 'node' } }));
    for (const folder of FOLDERS) fs.mkdirSync(path.join(dir, folder), { recursive: true });
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    const run = (...flags: string[]) => spawnSync(process.execPath, [DEPCRUISE, '--config', CONFIG, ...flags, ...FOLDERS], { cwd: dir, encoding: 'utf8' });
    const asNpmTest = run();
    const json = run('--output-type', 'json');
    if (!json.stdout) throw new Error(`dependency-cruiser printed nothing (exit ${json.status}): ${json.stderr}`);
    const out = JSON.parse(json.stdout) as { summary: { violations: Violation[] } };
    return { code: asNpmTest.status, violations: out.summary.violations };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const rulesOf = (violations: Violation[]) => [...new Set(violations.map((v) => v.rule.name))].sort();

test('a tree that keeps the rules passes: downward imports, a shared types module', () => {
  const r = cruise({
    'scripts/report/types.ts': 'export interface Summary { readonly ok: boolean }\n',
    'scripts/report/summary.ts': "import type { Summary } from './types';\nexport const build = (): Summary => ({ ok: true });\n",
    'scripts/report/write.ts': "import { build } from './summary';\nimport type { Summary } from './types';\nexport const write = (): Summary => build();\n",
    'lib/nag.ts': 'export const nag = 1;\n',
    'target-stack/target-stack.ts': "import { nag } from '../lib/nag';\nexport const stack = nag;\n",
    'bin/rig.ts': "import { stack } from '../target-stack/target-stack';\nimport { nag } from '../lib/nag';\nexport const rig = stack + nag;\n",
    'load-generators/agent.js': "const store = require('./lib/store');\nmodule.exports = store;\n",
    'load-generators/lib/store.js': 'module.exports = { key: 1 };\n',
  });
  expect(r.violations).toEqual([]);
  expect(r.code).toBe(0);
});

test('a planted import cycle (summary ↔ write, as the report had) fails the check', () => {
  const r = cruise({
    'scripts/report/summary.ts': "import type { Report } from './write';\nexport interface Summary { readonly ok: boolean }\nexport const ok = (r: Report): boolean => r.ok;\n",
    'scripts/report/write.ts': "import { ok } from './summary';\nimport type { Summary } from './summary';\nexport type Report = Summary;\nexport const write = (r: Report) => ok(r);\n",
  });
  expect(rulesOf(r.violations)).toEqual(['no-circular']);
  expect(r.code).not.toBe(0);
});

test('a cycle through JavaScript requires fails too', () => {
  const r = cruise({
    'target-stack/app/a.js': "const b = require('./b');\nmodule.exports = { b };\n",
    'target-stack/app/b.js': "const a = require('./a');\nmodule.exports = { a };\n",
  });
  expect(rulesOf(r.violations)).toEqual(['no-circular']);
  expect(r.code).not.toBe(0);
});

test('lib/ importing target-stack/ (while target-stack/ imports lib/) fails the check', () => {
  const r = cruise({
    'lib/nag.ts': 'export const nag = 1;\n',
    'lib/rig.ts': "import { stack } from '../target-stack/target-stack';\nexport const rig = stack;\n",
    'target-stack/target-stack.ts': "import { nag } from '../lib/nag';\nexport const stack = nag;\n",
  });
  expect(rulesOf(r.violations)).toEqual(['lib-not-to-target-stack']);
  expect(r.violations.map((v) => `${v.from} → ${v.to}`)).toEqual(['lib/rig.ts → target-stack/target-stack.ts']);
  expect(r.code).not.toBe(0);
});

test('upward imports fail: the runtime code or the CDK importing the orchestrator, anything importing bin/', () => {
  const r = cruise({
    'scripts/core/plan.ts': 'export const plan = 1;\n',
    'load-generators/agent.js': "const { plan } = require('../scripts/core/plan');\nmodule.exports = plan;\n",
    'lib/fleet.ts': "import { plan } from '../scripts/core/plan';\nexport const fleet = plan;\n",
    'bin/app.ts': 'export const app = 1;\n',
    'scripts/cli.ts': "import { app } from '../bin/app';\nexport const cli = app;\n",
  });
  expect(rulesOf(r.violations)).toEqual(['building-blocks-not-to-bin', 'no-orchestrator-from-cdk-or-runtime', 'runtime-code-stands-alone']);
  expect(r.code).not.toBe(0);
});
