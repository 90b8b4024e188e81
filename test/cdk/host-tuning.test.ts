import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const SCRIPT = path.join(__dirname, '../../load-generators/host-tuning.sh');

describe('load-generators/host-tuning.sh', () => {
  let root: string;
  const read = (p: string): string => fs.readFileSync(path.join(root, p), 'utf8');
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'host-tuning-'));
    execFileSync('bash', [SCRIPT], { env: { ...process.env, LOADTEST_RIG_ROOT: root } });
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  test('widens the ephemeral port range to 1024-65535', () => {
    expect(read('etc/sysctl.d/90-loadtest-rig.conf')).toMatch(/^net\.ipv4\.ip_local_port_range = 1024 65535$/m);
  });

  test('turns on tcp_tw_reuse and raises somaxconn', () => {
    const sysctl = read('etc/sysctl.d/90-loadtest-rig.conf');
    expect(sysctl).toMatch(/^net\.ipv4\.tcp_tw_reuse = 1$/m);
    expect(sysctl).toMatch(/^net\.core\.somaxconn = 65535$/m);
  });

  test('raises fs.file-max and fs.nr_open above the per-process limit', () => {
    const sysctl = read('etc/sysctl.d/90-loadtest-rig.conf');
    expect(sysctl).toMatch(/^fs\.file-max = 2097152$/m);
    expect(sysctl).toMatch(/^fs\.nr_open = 2097152$/m);
  });

  test('raises nofile to 65536 in limits.conf for login shells', () => {
    expect(read('etc/security/limits.d/90-loadtest-rig.conf')).toMatch(/^\*\s+hard nofile 65536$/m);
  });

  test('raises nofile for systemd services, including the SSM agent that starts the generator agent', () => {
    expect(read('etc/systemd/system.conf.d/90-loadtest-rig.conf')).toContain('DefaultLimitNOFILE=65536');
    expect(read('etc/systemd/system/amazon-ssm-agent.service.d/90-loadtest-rig.conf')).toContain('LimitNOFILE=65536');
  });
});
