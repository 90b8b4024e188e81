/**
 * A Ctrl-C while the preflight waits on a target that does not answer: the run used to wait for the probe to end
 * before it looked at the signal (a first step at an event stream kept `npm run loadtest` alive 12+ minutes, and
 * one SIGTERM did nothing). Then the run stopped waiting at the signal but left the probe running to its step timeout,
 * and the CLI ended the process with process.exit to be rid of it. Now the interrupt aborts the probe (its request
 * and connections closed), and the CLI ends by returning exit 130, with nothing left running.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as path from 'node:path';
import { ROOT, pidsOfRun, startCli, tempDir } from '../helpers/cli';
import { until } from '../helpers/wait';

/** The preflight's step timeout (scripts/preflight.ts PREFLIGHT_STEP_TIMEOUT_MS): what the CLI waited for before. */
const STEP_TIMEOUT_MS = 5000;
/** Says on the CLI's stderr when something ends it with process.exit (test/helpers/exit-spy.js). */
const EXIT_SPY = `--require ${path.join(ROOT, 'test', 'helpers', 'exit-spy.js')}`;

test('SIGINT during a stalled preflight: exit 130 at once by returning (no process.exit), one line, the --output summary, no run folder, nothing left running', async () => {
  // Accepts the probe's request and never answers it.
  const probes: Socket[] = [];
  const server = http.createServer((req) => {
    if (req.headers['x-rig-preflight']) probes.push(req.socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const dir = tempDir('rig-preflight-interrupt-');
  const script = path.join(dir, 'events.yml');
  fs.writeFileSync(script, `config:\n  target: http://127.0.0.1:${port}\n  phases:\n    - duration: 1\n      arrivalRate: 1\nscenarios:\n  - flow:\n      - get:\n          url: /events\n`);
  const out = path.join(dir, 'run');
  const summaryFile = path.join(dir, 'summary.json');
  try {
    const cli = startCli(['--scenario', script, '--platform', 'local', '--out', out, '--output', summaryFile], { env: { NODE_OPTIONS: [process.env.NODE_OPTIONS, EXIT_SPY].filter(Boolean).join(' ') } });
    const runId = (await cli.waitFor(/run (\d{8}-\d{6}-[0-9a-f]{4}):/))[1] as string;
    await until(() => probes.length > 0, { timeoutMs: 30_000, what: "the preflight's request at the target" });
    const sentAt = Date.now();
    process.kill(-cli.pid, 'SIGINT');
    const result = await cli.exited;
    const tookMs = Date.now() - sentAt;
    expect(result.code).toBe(130);
    // Well before the probe's own step timeout, which the run used to wait out (or, streamed to, for ever).
    expect(tookMs).toBeLessThan(STEP_TIMEOUT_MS / 2);
    // The last line (nothing after it: no "preflight from this machine" line, no process.exit cutting the probe off).
    expect(result.stderr.trim().split('\n').pop()).toBe('interrupted before the run started; nothing was started');
    expect(result.stderr).not.toMatch(/rig failure|target failure|preflight from|exit-spy/);
    expect(JSON.parse(fs.readFileSync(summaryFile, 'utf8'))).toMatchObject({ status: 'interrupted', exitCode: 130, runId });
    expect(fs.existsSync(out) ? fs.readdirSync(out) : []).toEqual([]);
    expect(pidsOfRun(runId)).toEqual([]);
    // The probe closed its connection.
    await until(() => probes.every((s) => s.destroyed || s.readableEnded), { what: "the probe's connection closed" });
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}, 90_000);
