/**
 * The secrets path failing for a reason other than "empty" or "access denied" stops every generator:
 * agents reading a secrets path whose Parameter Store cannot be reached (a closed loopback port) stop
 * before they report ready, the run ends with exit 3 naming the path and the cause, and no process of
 * the run is left. (The AWS path's empty-secrets case is in test/aws/moto-account.test.ts.)
 */
import type { TargetHandle } from '../../scripts/contracts';
import * as path from 'node:path';
import { startLocalTarget } from '../../scripts/platforms/local/target';
import { freePort } from '../aws/moto';
import { ROOT, pidsOfRun, runCli, tempDir } from '../helpers/cli';

jest.setTimeout(90_000);

let target: TargetHandle;
beforeAll(async () => {
  target = await startLocalTarget({ appDir: path.join(ROOT, 'target-stack', 'app'), port: 0, workers: 1 });
});
afterAll(async () => target?.stop());

test('an unreachable Parameter Store: every generator stops before the start, exit 3 naming the secrets path', async () => {
  const closed = await freePort(); // nothing listens there
  const out = path.join(tempDir('rig-secrets-err-'), 'run');
  const res = await runCli(['--platform', 'local', '--target', target.url, '--vusers', '10', '--generators', '2', '--ramp', '2s', '--hold', '1s', '--out', out, '--json'], {
    env: {
      RIG_SECRETS_SSM_PATH: '/loadtest-rig/secrets/',
      AWS_ENDPOINT_URL: `http://127.0.0.1:${closed}`,
      AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: 'us-east-1', AWS_MAX_ATTEMPTS: '1', AWS_PROFILE: '',
    },
    timeoutMs: 80_000,
  });
  expect({ code: res.code, stderr: res.stderr }).toEqual({
    code: 3,
    stderr: expect.stringMatching(/rig failure: generator g0[12] stopped before it was ready \(exit 3\): cannot read scenario secrets under \/loadtest-rig\/secrets\/ \(\w+: [^)]*\); every generator stops/),
  });
  expect(res.stderr).not.toMatch(/shared start at/);
  const runId = /run (\S+): 10 vusers/.exec(res.stderr)?.[1];
  expect(runId).toBeDefined();
  expect(pidsOfRun(String(runId))).toEqual([]);
});
