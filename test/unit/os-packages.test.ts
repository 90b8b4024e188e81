/**
 * The generator boot installs the CloudWatch agent and ethtool with a plain `dnf install` (no version: the AMI's
 * locked repository decides the build, AL2023 User Guide, "Deterministic upgrades through versioned repositories").
 * So the build a generator got is recorded at boot and travels into every run's generators/<id>/ready.json.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installedOsPackages } from '../../load-generators/lib/os-packages';

const GENERATORS = path.join(__dirname, '..', '..', 'load-generators');
const RECORD = path.join(GENERATORS, 'record-os-packages.sh');

describe('the OS package builds a generator boot installed', () => {
  let dir: string;
  let bin: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-os-packages-'));
    bin = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-rpm-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(bin, { recursive: true, force: true });
  });

  /** An `rpm` that answers `-q --queryformat FMT NAME…` as rpm does: one line per known package, "not installed" (stdout, exit 1) for the others. */
  function fakeRpm(installed: Record<string, string>): void {
    const cases = Object.entries(installed).map(([name, v]) => `    ${name}) echo "${name} ${v}" ;;`).join('\n');
    fs.writeFileSync(path.join(bin, 'rpm'), `#!/usr/bin/env bash\nshift 3\ncode=0\nfor p in "$@"; do\n  case "$p" in\n${cases}\n    *) echo "package $p is not installed"; code=1 ;;\n  esac\ndone\nexit $code\n`, { mode: 0o755 });
  }
  const record = (...packages: string[]) => execFileSync('bash', [RECORD, dir, ...packages], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8' });

  test('record-os-packages.sh writes each installed build and says it in the boot log; the agent reads them back', () => {
    fakeRpm({ 'amazon-cloudwatch-agent': '1.300057.1-1.amzn2023.x86_64', ethtool: '6.15-1.amzn2023.0.1.x86_64' });
    const log = record('amazon-cloudwatch-agent', 'ethtool');
    expect(log).toBe('install-generator: installed amazon-cloudwatch-agent 1.300057.1-1.amzn2023.x86_64\ninstall-generator: installed ethtool 6.15-1.amzn2023.0.1.x86_64\n');
    expect(installedOsPackages(dir)).toEqual({ 'amazon-cloudwatch-agent': '1.300057.1-1.amzn2023.x86_64', ethtool: '6.15-1.amzn2023.0.1.x86_64' });
  });

  test('a package rpm does not know is left out, and the record never fails the boot', () => {
    fakeRpm({ 'amazon-cloudwatch-agent': '1.300057.1-1.amzn2023.x86_64' });
    expect(() => record('amazon-cloudwatch-agent', 'ethtool')).not.toThrow();
    expect(installedOsPackages(dir)).toEqual({ 'amazon-cloudwatch-agent': '1.300057.1-1.amzn2023.x86_64' });
    expect(fs.readdirSync(dir)).toEqual(['os-packages.txt']);
  });

  test('no record (a local run, a generator booted before it existed): no osPackages', () => {
    expect(installedOsPackages(dir)).toBeUndefined();
    fs.writeFileSync(path.join(dir, 'os-packages.txt'), '\n');
    expect(installedOsPackages(dir)).toBeUndefined();
  });

  test('install-generator.sh records the builds of what it installs unpinned, right after installing them', () => {
    const script = fs.readFileSync(path.join(GENERATORS, 'install-generator.sh'), 'utf8');
    const lines = script.split('\n');
    const install = lines.findIndex((l) => /dnf install -y amazon-cloudwatch-agent ethtool$/.test(l));
    const recorded = lines.findIndex((l) => /record-os-packages\.sh" "\$AGENT_DIR" amazon-cloudwatch-agent ethtool$/.test(l));
    expect(install).toBeGreaterThan(0);
    expect(recorded).toBeGreaterThan(install);
    // The agent reads the record from its own folder: the folder install-generator.sh is given.
    expect(script).toMatch(/^AGENT_DIR="\$\{1:\?/m);
  });
});
