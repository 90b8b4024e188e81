/**
 * A secret a scenario needs (the target's auth token) comes from the environment and is used, yet appears
 * in no file of the run folder, no log and no output.
 */
import type { TargetHandle } from '../../scripts/contracts';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startLocalTarget } from '../../scripts/platforms/local/target';
import { ROOT, runCli, tempDir } from '../helpers/cli';

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

describe('secrets', () => {
  const token = `tok-${randomBytes(12).toString('hex')}`;
  let target: TargetHandle;
  beforeAll(async () => {
    target = await startLocalTarget({ appDir: path.join(ROOT, 'target-stack', 'app'), port: 0, workers: 2, env: { AUTH_TOKEN: token } });
  });
  afterAll(async () => target?.stop());

  it('the auth token from RIG_SECRET_AUTH_TOKEN gets every vuser in, and is written nowhere', async () => {
    const out = path.join(tempDir('rig-secret-'), 'run');
    const r = await runCli(['--target', target.url, '--vusers', '40', '--generators', '2', '--ramp', '2s', '--hold', '1s', '--out', out, '--json'], {
      env: { RIG_SECRET_AUTH_TOKEN: token },
    });
    expect(r.code).toBe(0);
    expect(r.json.aggregate.counters['ws.connected']).toBe(40);
    const files = filesUnder(out);
    expect(files.length).toBeGreaterThan(10);
    const leaking = files.filter((f) => fs.readFileSync(f).includes(token));
    expect(leaking).toEqual([]);
    expect(r.stdout.includes(token)).toBe(false);
    expect(r.stderr.includes(token)).toBe(false);
  });

  it('without the token the target refuses the preflight: exit 2 naming the 401, before any vuser (the token really is checked)', async () => {
    const out = path.join(tempDir('rig-nosecret-'), 'run');
    const r = await runCli(['--target', target.url, '--vusers', '10', '--generators', '1', '--ramp', '1s', '--hold', '1s', '--out', out], {
      env: { RIG_SECRET_AUTH_TOKEN: '' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/preflight from this machine failed at http: HTTP GET \/set-cookie answered 401/);
    expect(fs.existsSync(out)).toBe(false);
  });
});
