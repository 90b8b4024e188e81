import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '../..');
const CFN_LINT = path.join(ROOT, '.venv/bin/cfn-lint');

// Synthesizes ec2, fargate, none and two generator regions and lints every template; four synths take a while.
test('cfn-lint reports no errors on any synthesized template (ec2, fargate, none, two regions)', () => {
  if (!fs.existsSync(CFN_LINT)) {
    throw new Error(`cfn-lint is missing at ${CFN_LINT}. Fix: bash scripts/python-tools.sh`);
  }
  const r = spawnSync('bash', [path.join(ROOT, 'scripts/cfn-lint.sh')], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`scripts/cfn-lint.sh exited ${String(r.status)}\n${r.stdout}\n${r.stderr}`);
  expect(r.stdout).toMatch(/targetKind=ec2 OK/);
  expect(r.stdout).toMatch(/targetKind=fargate OK/);
  expect(r.stdout).toMatch(/targetKind=none OK/);
  // Both regions' stacks: the home three and LoadTestRig-Generators-us-east-1.
  expect(r.stdout).toMatch(/targetKind=two-regions OK \(4 templates/);
}, 600_000);
