/**
 * Durations with a fraction reach real Artillery in the one form it reads exactly (issue 16's "one duration rule"
 * met Artillery 2.0.34's phaser: the number 1.5 is refused as "Invalid duration for phase" and the string "1.5" is
 * read as 1.5 ms). A `--ramp 1.5` run and a script phase `duration: "1.5"` both run 1.5 s, and the script's
 * reading is said before the start.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers/cli';

describe('fractional durations through real Artillery', () => {
  it('--vusers 3 --ramp 1.5: every vuser created and completed, exit 0 (not a lost generator)', async () => {
    const out = path.join(tempDir('rig-frac-ramp-'), 'run');
    const r = await runCli(['--vusers', '3', '--ramp', '1.5', '--plateau', '1', '--generators', '1', '--out', out, '--json']);
    expect(r.stderr).not.toMatch(/Invalid duration/);
    expect(r.code).toBe(0);
    expect(r.json.aggregate.counters['vusers.created']).toBe(3);
    expect(r.json.rig.lostGenerators).toEqual([]);
  }, 120_000);

  it('a script phase duration "1.5" runs 1.5 s (3 arrivals of arrivalCount 3), with a note saying plain artillery would read 1.5 ms', async () => {
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const dir = tempDir('rig-frac-script-');
      const script = path.join(dir, 'frac.yml');
      const port = (server.address() as AddressInfo).port;
      fs.writeFileSync(script, `config:\n  target: "http://127.0.0.1:${port}"\n  phases:\n    - duration: "1.5"\n      arrivalCount: 3\nscenarios:\n  - flow:\n      - get: { url: "/" }\n`);
      const r = await runCli(['--scenario', script, '--generators', '1', '--out', path.join(dir, 'run'), '--json']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('note: config.phases[0]: duration "1.5" is run as 1.5 s (plain artillery run reads "1.5" as 1.5 ms); write "1.5s" to say so in the script itself');
      expect(r.json.aggregate.counters['vusers.created']).toBe(3);
      expect(r.json.aggregate.counters['http.codes.200']).toBe(3);
      expect(requests).toBeGreaterThanOrEqual(3); // and the rig's own preflight request
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 120_000);
});
