/**
 * Faults on the local platform, each against the real CLI, real agents, real Artillery and the real
 * reference target: Ctrl-C, a generator killed, the orchestrator killed, a target worker killed.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pidsOfRun, pidsOfRunWith, runCli, startCli, tempDir } from '../helpers/cli';
import { until } from '../helpers/wait';
import { Target, getJson, metrics, startTarget } from '../target/helpers';

/** PIDs of one generator's agent (by its --generator argument) of a run. */
function agentPids(runId: string, gid: string): number[] {
  return pidsOfRun(runId).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(`--generator ${gid}`);
    } catch {
      return false;
    }
  });
}

/**
 * Resolves once a generator's first load process has shipped its first period into the run folder (~10 s after the
 * start): sooner than the CLI's period line, which waits for Artillery to close the period on every generator.
 */
function firstPeriodShipped(out: string, gid: string): Promise<number> {
  const periods = path.join(out, 'generators', gid, 'p0', 'periods');
  return until(() => fs.existsSync(periods) && fs.readdirSync(periods).length > 0, { timeoutMs: 90_000, what: `${gid}'s first period in the run folder`, pollMs: 100 });
}
const RUN_ID = /run (\d{8}-\d{6}-[0-9a-f]{4}):/;

describe('faults during a local run', () => {
  const stopAfter: Target[] = [];
  afterAll(async () => {
    for (const t of stopAfter) await t.stop();
  });

  // SIGTERM takes the same handler (registered for both); it is sent in the "generators getting ready" case below.
  it.each(['SIGINT'] as const)(
    '%s to the process group mid-ramp: the partial report counts every vuser the target saw, everything stops, exit 130',
    async (signal) => {
      const out = path.join(tempDir('rig-stop-'), 'run');
      // The target runs outside the CLI's process group (as a user's own target does), so it outlives the
      // signal and its own count is the ground truth.
      const target = await startTarget({ WORKERS: '2' });
      stopAfter.push(target);
      const cli = startCli(['--vusers', '300', '--generators', '2', '--ramp', '30s', '--hold', '30s', '--target', target.base, '--out', out, '--json']);
      const runId = (await cli.waitFor(RUN_ID))[1] as string;
      // Stop between two periods: some vusers are in a finished period, the rest in the one in progress.
      await firstPeriodShipped(out, 'g01');
      expect(pidsOfRun(runId).length).toBeGreaterThan(0);
      process.kill(-cli.pid, signal);
      await until(() => pidsOfRun(runId).length === 0, { timeoutMs: 25_000, what: 'every process of the run to stop', pollMs: 100 });
      const result = await cli.exited;
      expect(result.code).toBe(130);
      const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
      expect(report.status).toBe('interrupted');
      const c = report.aggregate.counters;
      const targetSaw = (await metrics(target)).connectionsTotal as number;
      expect(targetSaw).toBeGreaterThan(0);
      expect(targetSaw).toBeLessThan(300);
      expect(Math.abs(c['ws.connected'] - targetSaw)).toBeLessThanOrEqual(5);
      expect(c['vusers.created']).toBeGreaterThanOrEqual(c['ws.connected']);
      expect(c['vusers.created'] - c['ws.connected']).toBeLessThanOrEqual(10);
      expect(fs.existsSync(path.join(out, 'report.html'))).toBe(true);
      // No temporary folder of the run is left behind.
      expect(fs.readdirSync(os.tmpdir()).filter((n: string) => n.includes(runId))).toEqual([]);
    },
    120_000,
  );

  // Each trigger is a line the CLI prints on its way to the first vuser: planning done, the target starting, the
  // generators getting ready. A Ctrl-C there used to be ignored until the launch (the run then started anyway),
  // blamed on the target ("exited with code 0 before listening"), or written up as a report of nothing.
  it.each([
    ['planning', /^platform: /m, 'SIGINT'],
    ['the reference target starting', /^local reference target: /m, 'SIGINT'],
    ['the generators getting ready', /launching 1 generator/, 'SIGTERM'],
  ] as const)('Ctrl-C during %s: exit 130, one line saying nothing was measured, no run folder content, nothing left running (%s, %s)', async (_stage, trigger, signal) => {
    const dir = tempDir('rig-early-stop-');
    const out = path.join(dir, 'run');
    const summaryFile = path.join(dir, 'summary.json');
    const cli = startCli(['--vusers', '40', '--generators', '1', '--ramp', '20s', '--out', out, '--output', summaryFile]);
    await cli.waitFor(trigger, 60_000);
    process.kill(-cli.pid, signal);
    const result = await cli.exited;
    expect(result.code).toBe(130);
    expect(result.stderr.trim().split('\n').pop()).toMatch(/^interrupted before the (run started; nothing was started|first vuser; the generators were stopped, nothing was measured)$/);
    expect(result.stderr).not.toMatch(/rig failure|target failure|^error/m);
    const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
    expect(summary).toMatchObject({ status: 'interrupted', exitCode: 130 });
    expect(fs.existsSync(out) ? fs.readdirSync(out) : []).toEqual([]);
    if (summary.runId) await until(() => pidsOfRun(summary.runId).length === 0, { timeoutMs: 10_000, what: 'every process of the run to stop', pollMs: 100 });
  }, 90_000);

  it('Ctrl-C twice: the second forces the stop (the run\'s cleanups, then exit 130 from the CLI, its summary written), nothing left running', async () => {
    const dir = tempDir('rig-force-');
    const out = path.join(dir, 'run');
    const summaryFile = path.join(dir, 'summary.json');
    const cli = startCli(['--vusers', '40', '--generators', '1', '--ramp', '30s', '--hold', '10s', '--out', out, '--json', '--output', summaryFile]);
    const runId = (await cli.waitFor(RUN_ID))[1] as string;
    await cli.waitFor(/shared start at/, 90_000);
    process.kill(-cli.pid, 'SIGINT');
    await cli.waitFor(/interrupted: stopping generators/, 10_000);
    process.kill(-cli.pid, 'SIGINT');
    const result = await cli.exited;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(new RegExp(`forced stop: no report written; what was saved is in ${out} \\(\`npm run report -- ${out}\` builds the report from it\\)`));
    // Forced: the CLI ended the process once the cleanups ran, without waiting for the partial report.
    expect(fs.existsSync(path.join(out, 'report.json'))).toBe(false);
    // README: --output is written whatever the exit code; --json says the same on stdout (was: neither, at a forced stop).
    const forced = { runId, runDir: out, status: 'interrupted', exitCode: 130, error: expect.stringMatching(/^forced stop: no report written; what was saved is in /) };
    expect(JSON.parse(fs.readFileSync(summaryFile, 'utf8'))).toEqual(forced);
    expect(result.json).toEqual(forced);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    await until(() => pidsOfRun(runId).length === 0, { timeoutMs: 25_000, what: 'every process of the run to stop', pollMs: 100 });
    // The report rebuilt from the folder calls it what it was: interrupted, not a generator lost to a signal.
    const rebuilt = await runCli([out], { script: 'report-cli.ts', timeoutMs: 60_000 });
    expect(rebuilt.stderr).toMatch(/result: FAILED \(exit 130\): interrupted before the end/);
    expect(rebuilt.stderr).not.toMatch(/lost/);
  }, 120_000);

  it('a generator killed mid-run: the run finishes on the other, keeps its data up to the kill and names it; exit 3', async () => {
    const out = path.join(tempDir('rig-lost-'), 'run');
    const cli = startCli(['--vusers', '240', '--generators', '2', '--ramp', '18s', '--hold', '2s', '--out', out, '--json']);
    const runId = (await cli.waitFor(RUN_ID))[1] as string;
    // The kill comes once g02 has shipped its first period (~10 s in) and well before its last arrival (18 s).
    await firstPeriodShipped(out, 'g02');
    const [agent] = agentPids(runId, 'g02');
    expect(agent).toBeDefined();
    process.kill(agent as number, 'SIGKILL');
    // Its load process notices its agent is gone and stops: nothing of g02 runs on unattended.
    await until(() => pidsOfRunWith(runId, 'RIG_GENERATOR_ID', 'g02').length === 0, { timeoutMs: 5000, what: "g02's load processes to stop", pollMs: 100 });
    const result = await cli.exited;
    expect(result.code).toBe(3);
    const s = result.json;
    expect(s.status).toBe('partial');
    expect(s.rig.lostGenerators.map((l: { id: string }) => l.id)).toEqual(['g02']);
    const g1 = s.rig.generators.find((g: { id: string }) => g.id === 'g01');
    const g2 = s.rig.generators.find((g: { id: string }) => g.id === 'g02');
    expect(g1.counters['vusers.created']).toBe(120);
    expect(g2.counters['vusers.created']).toBeGreaterThan(0);
    expect(g2.counters['vusers.created']).toBeLessThan(120);
    expect(g2.lost).toMatch(/agent killed by SIGKILL/);
    expect(s.rig.lostGenerators[0].reason).toMatch(/^agent killed by SIGKILL/);
    expect(pidsOfRun(runId)).toEqual([]);
    // Even the killed agent's temporary folder is gone.
    expect(fs.readdirSync(os.tmpdir()).filter((n: string) => n.includes(runId))).toEqual([]);
  }, 120_000);

  it('the orchestrator killed (SIGKILL): agents notice the stale heartbeat and stop themselves; the target stops too', async () => {
    const out = path.join(tempDir('rig-orphan-'), 'run');
    const cli = startCli(['--vusers', '400', '--generators', '2', '--ramp', '60s', '--hold', '30s', '--out', out], {
      env: { RIG_HEARTBEAT_TIMEOUT_MS: '4000' },
    });
    const runId = (await cli.waitFor(RUN_ID))[1] as string;
    await firstPeriodShipped(out, 'g01');
    process.kill(cli.pid, 'SIGKILL');
    await cli.exited;
    await until(() => pidsOfRun(runId).length === 0, { timeoutMs: 30_000, what: 'agents, load processes and target to stop on their own', pollMs: 100 });
    const done = JSON.parse(fs.readFileSync(path.join(out, 'generators', 'g01', 'done.json'), 'utf8'));
    expect(done.reason).toMatch(/orphaned/);
    // What was measured before the orchestrator died is on disk, ready for `npm run report`.
    expect(fs.readdirSync(path.join(out, 'generators', 'g01', 'p0', 'periods')).length).toBeGreaterThan(0);
    // The folder the orchestrator made for its agents' temporary folders goes with the last agent.
    expect(fs.readdirSync(os.tmpdir()).filter((n: string) => n.includes(runId))).toEqual([]);
  }, 120_000);

  it('a target worker killed mid-run: drops are counted against the target, the run completes, the verdict is not the rig', async () => {
    const out = path.join(tempDir('rig-target-kill-'), 'run');
    const cli = startCli(['--vusers', '200', '--generators', '2', '--ramp', '5s', '--hold', '15s', '--out', out, '--json']);
    const base = (await cli.waitFor(/local reference target: (http:\S+)/))[1] as string;
    const runId = (await cli.waitFor(RUN_ID))[1] as string;
    // All 200 connect within ~5 s and each holds 15 s: the kill comes while the target holds every one of them
    // (its own count; the CLI's period lines come up to a period late).
    await until(async () => (await getJson(`${base}/metrics`)).body.connections === 200, { timeoutMs: 60_000, what: 'the target to hold all 200', pollMs: 100 });
    // The target's workers are the run's processes started by node:cluster from server.js (not agents/Artillery).
    const workers = pidsOfRun(runId).filter((pid) => {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
      return cmd.includes('target-stack/app/server.js') && env.includes('NODE_UNIQUE_ID=');
    });
    expect(workers.length).toBeGreaterThanOrEqual(2);
    process.kill(workers[0] as number, 'SIGKILL');
    const result = await cli.exited;
    const c = result.json.aggregate.counters;
    expect(c['ws.dropped']).toBeGreaterThan(0);
    expect(c['vusers.created']).toBe(200);
    expect(result.json.status).toBe('completed');
    expect(result.json.rig.verdict).not.toBe('rig-limited');
    expect(result.json.rig.lostGenerators).toEqual([]);
    // The target says so itself: one worker restarted.
    const samples = fs.readdirSync(path.join(out, 'target', 'metrics')).sort();
    const last = JSON.parse(fs.readFileSync(path.join(out, 'target', 'metrics', samples[samples.length - 1] as string), 'utf8'));
    expect(last.metrics.workerRestarts).toBe(1);
  }, 120_000);
});

/** Takes every byte left on the file system of `dir` (a file beside the run folder), so the next write there fails with ENOSPC. */
function fillDisk(dir: string): void {
  const fd = fs.openSync(path.join(dir, 'filler'), 'w');
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    fs.closeSync(fd);
  }
}

describe('a run folder whose disk fills mid-run', () => {
  const mountPoint = tempDir('rig-tiny-disk-');
  beforeAll(() => {
    // A 160 KiB tmpfs: room for the start of a run, not for all of it. Needs root (as on CI and dev machines here).
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160k', 'tmpfs', mountPoint]);
  });
  afterAll(() => {
    execFileSync('umount', ['-l', mountPoint]);
  });

  it('stops cleanly with what it has: exit 3, one line naming ENOSPC, no process left, the saved data kept', async () => {
    const out = path.join(mountPoint, 'run');
    // The summary file lives on a disk with room: exit 3 still leaves a summary with its status.
    const summaryFile = path.join(tempDir('rig-tiny-disk-summary-'), 'summary.json');
    const cli = startCli(['--vusers', '300', '--generators', '2', '--ramp', '30s', '--hold', '5s', '--out', out, '--json', '--output', summaryFile]);
    const runId = (await cli.waitFor(RUN_ID))[1] as string;
    // Once the load has started (a load thread's started marker in the run folder), the rest of the disk goes, instead
    // of waiting ~20 s for the run's own files to use it up: the run's next write into its folder fails with ENOSPC.
    const p0 = path.join(out, 'generators', 'g01', 'p0');
    await until(() => fs.existsSync(p0) && fs.readdirSync(p0).some((n) => n.startsWith('started-')), { timeoutMs: 90_000, what: "g01's load to start", pollMs: 50 });
    fillDisk(mountPoint);
    const result = await cli.exited;
    expect(result.code).toBe(3);
    const failure = result.stderr.split('\n').filter((l) => l.startsWith('rig failure'));
    expect(failure).toHaveLength(1);
    expect(failure[0]).toMatch(/cannot write .*\(ENOSPC\).*npm run report/);
    const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
    expect(summary).toMatchObject({ runId, status: 'rig-failure', exitCode: 3, error: expect.stringMatching(/ENOSPC/) });
    expect(result.json).toEqual(summary);
    await until(() => pidsOfRun(runId).length === 0, { timeoutMs: 5000, what: 'every process of the run to stop', pollMs: 100 });
    expect(fs.existsSync(path.join(out, 'run.json'))).toBe(true);
    expect(fs.existsSync(path.join(out, 'generators', 'g01', 'slice.json'))).toBe(true);
  }, 120_000);
});
