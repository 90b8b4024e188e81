/**
 * Errors only the generator's own machine raises (here EADDRNOTAVAIL: a connection asked to leave from an address
 * this machine does not have, refused by the kernel before any packet is sent) make the run rig-limited, named in
 * the verdict with their codes, even when no health sample was saturated. They used to read "trustworthy: the
 * figures describe the target".
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers/cli';
import { loopbackHttpServer } from '../helpers/http-server';

const dir = tempDir('rig-own-errors-');

describe("a run whose failures are the generator's own", () => {
  let server: Awaited<ReturnType<typeof loopbackHttpServer>>;
  let port = 0;
  const requests: string[] = [];
  beforeAll(async () => {
    server = await loopbackHttpServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.end('ok');
    });
    port = server.port;
  });
  afterAll(() => server.close());

  test('EADDRNOTAVAIL from every vuser: rig-limited, the code named, exit 1', async () => {
    // 192.0.2.1 (TEST-NET-1, RFC 5737) is never this machine's: bind() fails locally, nothing leaves it.
    fs.writeFileSync(
      path.join(dir, 'bind.js'),
      `const net = require('node:net');
module.exports = { fromElsewhere(context, events, done) {
  const s = net.connect({ host: '127.0.0.1', port: ${port}, localAddress: '192.0.2.1' });
  s.once('error', (err) => done(err));
  s.once('connect', () => { s.destroy(); done(); });
} };
`,
    );
    const script = path.join(dir, 'own-errors.yml');
    fs.writeFileSync(script, `config:\n  target: http://127.0.0.1:${port}\n  processor: ./bind.js\n  phases:\n    - duration: 1\n      arrivalCount: 3\nscenarios:\n  - flow:\n      - function: fromElsewhere\n`);
    const r = await runCli(['--scenario', script, '--out', path.join(dir, 'run'), '--json']);
    expect(r.code).toBe(1);
    expect(r.json.aggregate.counters['errors.EADDRNOTAVAIL']).toBe(3);
    expect(r.json.rig.verdict).toBe('rig-limited');
    expect(r.json.rig.verdictDetail.generatorErrors).toEqual({ EADDRNOTAVAIL: 3 });
    expect(r.stderr).toMatch(/rig verdict\s+rig-limited: generator g01 raised errors no target causes \(EADDRNOTAVAIL 3: /);
  }, 120_000);

  // EC2 counts packets an instance queued or dropped past its network allowances in its ENA driver's statistics
  // (EC2 User Guide, "Monitor network performance for ENA settings"); no machine here has ENA, so a stand-in
  // `ethtool` on the agents' PATH prints them in the driver's format, its connection-tracking count rising by 7 at
  // every call. What is under test is everything after the counter: agent, run store, verdict, summary.
  test("a user's script on its own target: drops past the instance's connection-tracking allowance make it rig-limited (allowance named, packets in the summary, exit 0); its ports are counted per destination; the target gets only the script's requests", async () => {
    const bin = path.join(dir, 'fake-bin');
    fs.mkdirSync(bin, { recursive: true });
    const count = path.join(dir, 'conntrack-count');
    fs.writeFileSync(
      path.join(bin, 'ethtool'),
      `#!/bin/sh
n=$(cat '${count}' 2>/dev/null || echo 0); n=$((n + 7)); echo "$n" > '${count}'
printf 'NIC statistics:\n     bw_in_allowance_exceeded: 0\n     conntrack_allowance_exceeded: %s\n     queue_0_tx_cnt: 12\n' "$n"
`,
      { mode: 0o755 },
    );
    const script = path.join(dir, 'held.yml');
    // Two vusers held 7 s: the agent's first health sample (the baseline) and the next, 5 s later, both fall in the run.
    fs.writeFileSync(script, `config:\n  target: http://127.0.0.1:${port}\n  phases:\n    - duration: 1\n      arrivalCount: 2\nscenarios:\n  - flow:\n      - get:\n          url: /\n      - think: 7\n`);
    const r = await runCli(['--scenario', script, '--out', path.join(dir, 'run-nic'), '--json'], { env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(r.code).toBe(0);
    expect(r.json.rig.verdict).toBe('rig-limited');
    expect(r.stderr).toMatch(/rig verdict\s+rig-limited: generator g01 saturated \(connection-tracking allowance exceeded\)/);
    const nic = r.json.rig.generators[0].health.nicAllowanceExceeded;
    expect(nic.conntrack).toBeGreaterThan(0);
    expect(nic.bw_in).toBe(0);
    // A user's script connects from the address the OS picks (Artillery's engines bind no alias): its ports are counted
    // per (source, destination) pair, its two kept-alive connections among them, and no socket count by address is
    // claimed for it. They were counted on a loopback alias the script never used (0, or another run's sockets when
    // two runs shared the machine).
    expect(r.json.rig.generators[0].health.peakPortsInUse).toBeGreaterThanOrEqual(2);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'run-nic', 'report.json'), 'utf8')) as { timeline: { health: Array<{ socketsEstablished?: number }> } };
    expect(report.timeline.health.length).toBeGreaterThanOrEqual(2);
    expect(report.timeline.health.filter((h) => h.socketsEstablished !== undefined)).toEqual([]);
    // A user's own target gets what its script sends (and the preflight's GET of its first step), nothing else: the
    // rig polled GET /metrics on it every 5 s, as on its own reference target.
    expect(requests.length).toBeGreaterThanOrEqual(3);
    expect(new Set(requests)).toEqual(new Set(['GET /']));
  }, 120_000);
});
