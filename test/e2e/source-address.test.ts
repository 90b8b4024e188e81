/**
 * Locally each load process connects from its own loopback alias (127.0.x.y), which only reaches IPv4 loopback:
 * Linux delivers 127/8 over `lo` alone, and an IPv6 target needs an IPv6 socket, which cannot bind an IPv4
 * address. Against any other target (an IPv6 one here, as a host on the network would be) every connect failed
 * with EINVAL and every vuser with it, under a "trustworthy" verdict. Now such a target keeps the OS's choice of
 * source address, and the run says so before it starts; its health samples count ports per (source, destination)
 * pair, as the kernel allots them to such connections.
 */
import * as path from 'node:path';
import { startLocalTarget } from '../../scripts/platforms/local/target';
import type { TargetHandle } from '../../scripts/contracts';
import { ROOT, runCli, tempDir } from '../helpers/cli';

describe('a local run against a target that is not IPv4 loopback', () => {
  let target: TargetHandle;
  beforeAll(async () => {
    target = await startLocalTarget({ appDir: path.join(ROOT, 'target-stack', 'app'), port: 0, workers: 1, host: '::' });
  });
  afterAll(async () => target?.stop());

  test('an IPv6 target (http://[::1]:port): every vuser connects, from the OS-chosen address, a note says so, and the health samples count its ports', async () => {
    expect(target.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    const out = path.join(tempDir('rig-v6-'), 'run');
    const r = await runCli(['--target', target.url, '--vusers', '6', '--ramp', '2s', '--hold', '6s', '--out', out, '--json']);
    expect(r.stderr).toMatch(/note: http:\/\/\[::1\]:\d+ is not on this machine's IPv4 loopback \(127\.0\.0\.0\/8\): connections to it leave from the address the OS picks/);
    expect(r.code).toBe(0);
    expect(r.json.aggregate.counters['ws.connected']).toBe(6);
    expect(r.json.aggregate.counters['vusers.failed'] ?? 0).toBe(0);
    expect(JSON.stringify(r.json.aggregate.counters)).not.toMatch(/EINVAL/);
    // Ports of the OS's choice are counted per (source, destination) pair, the kernel's range for such connects:
    // the health sample 5 s after the start falls in the hold, when the 6 WebSockets are open. They were not
    // counted at all (no address of the rig's to count by).
    expect(r.json.rig.generators[0].health.peakPortsInUse).toBeGreaterThanOrEqual(6);
  }, 120_000);
});
