/**
 * The run folder is named when it will hold the run: a preflight refusal (exit 2) leaves no folder, and its output
 * must not name one (it said `run …, run folder …/runs/<id>` before the refusal).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers/cli';
import { loopbackHttpServer } from '../helpers/http-server';

jest.setTimeout(60_000);

test('a preflight refusal names no run folder and leaves none', async () => {
  const server = await loopbackHttpServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  try {
    const out = path.join(tempDir('rig-folder-line-'), 'run');
    const r = await runCli(['--target', `http://127.0.0.1:${server.port}`, '--vusers', '2', '--generators', '1', '--ramp', '1s', '--hold', '1s', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/preflight from this machine failed at http: HTTP GET \/set-cookie answered 404/);
    expect(r.stderr).toMatch(/^run \d{8}-\d{6}-[0-9a-f]{4}: 2 vusers over 1 generator\(s\) \(2\)$/m);
    expect(r.stderr).not.toContain('run folder');
    expect(fs.existsSync(out)).toBe(false);
  } finally {
    await server.close();
  }
});
