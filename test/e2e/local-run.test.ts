/**
 * End to end on one machine: the real CLI, the real reference target (several worker processes),
 * three real generator agents each running real Artillery, and the exact merge.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pidsOfRun, runCli, tempDir } from '../helpers/cli';
import { loopbackHttpServer } from '../helpers/http-server';

describe('a local run of 301 vusers over 3 generators', () => {
  let out: string;
  let result: Awaited<ReturnType<typeof runCli>>;

  // The orchestrator's process (the one started on scripts/cli.ts) lists the AWS SDK modules it loaded as it exits.
  const probeDir = tempDir('rig-e2e-probe-');
  const awsLoaded = path.join(probeDir, 'aws-sdk-modules.json');

  beforeAll(async () => {
    out = path.join(tempDir('rig-e2e-'), 'run');
    const probe = path.join(probeDir, 'probe.js');
    fs.writeFileSync(probe, [
      "if (process.argv.some((a) => /[\\\\/]scripts[\\\\/]cli\\.ts$/.test(a))) process.on('exit', () => {",
      "  const aws = Object.keys(require.cache).filter((k) => /[\\\\/]node_modules[\\\\/]@aws-sdk[\\\\/]/.test(k));",
      `  require('node:fs').writeFileSync(${JSON.stringify(awsLoaded)}, JSON.stringify(aws));`,
      '});',
      '',
    ].join('\n'));
    result = await runCli(['--vusers', '301', '--generators', '3', '--ramp', '5s', '--hold', '2s', '--out', out, '--json'], {
      env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${probe}`.trim() },
    });
  }, 120_000);

  it('exits 0 and prints the summary JSON on stdout, progress on stderr', () => {
    expect(result.code).toBe(0);
    expect(result.json).toBeDefined();
    expect(result.stderr).toMatch(/created \d+/);
    expect(result.stdout).not.toMatch(/created \d+ \(\+/);
    // Named once the preflight passed and the generators are about to write into it.
    expect(result.stderr).toContain(`\nrun folder ${out}\n`);
  });

  it('creates, completes and connects every vuser, none failed', () => {
    const c = result.json.aggregate.counters;
    expect(c['vusers.created']).toBe(301);
    expect(c['vusers.completed']).toBe(301);
    expect(c['vusers.failed'] ?? 0).toBe(0);
    expect(c['cookie.ok']).toBe(301);
    expect(c['ws.connected']).toBe(301);
  });

  it('splits the load 101/100/100 and each generator did exactly its share', () => {
    expect(result.json.rig.plan.arrivalsPerGenerator).toEqual([101, 100, 100]);
    const created = result.json.rig.generators.map((g: any) => g.counters['vusers.created']);
    expect(created).toEqual([101, 100, 100]);
  });

  it('starts every generator within a second of the others', () => {
    expect(typeof result.json.rig.startSkewMs).toBe('number');
    expect(result.json.rig.startSkewMs).toBeLessThan(1000);
  });

  it('merges latency exactly: the aggregate connect-time count equals the connections', () => {
    const s = result.json.aggregate.summaries['ws.connect_time'];
    expect(s.count).toBe(301);
    expect(s.p50).toBeLessThanOrEqual(s.p95);
  });

  it('keeps report.json and every generator raw period data in the run folder', () => {
    const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(report.runId).toBe(result.json.runId);
    expect(Array.isArray(report.intermediate)).toBe(true);
    for (const g of ['g01', 'g02', 'g03']) {
      const periods = fs.readdirSync(path.join(out, 'generators', g, 'p0', 'periods'));
      expect(periods.length).toBeGreaterThan(0);
      expect(fs.existsSync(path.join(out, 'generators', g, 'done.json'))).toBe(true);
    }
  });

  it('sessions (2 s) shorter than the 5-s sampling: no peak held and no per-vuser memory figure (not growth ÷ the plan), saying so', () => {
    const mem = result.json.rig.memoryPerVuser;
    expect(mem).toEqual({ peakHeld: 0, generatorBytes: undefined, targetBytes: undefined });
    expect(result.json.rig.held).toMatchObject({ notSampled: 'sessions shorter than the 5-s sampling' });
    expect(result.stderr).toMatch(/memory per held vuser\s+not measured: sessions shorter than the 5-s sampling/);
  });

  it('never loads the AWS SDK in the orchestrator (no deployed stacks here; it cost ~150 ms of CPU at every start)', () => {
    expect(JSON.parse(fs.readFileSync(awsLoaded, 'utf8'))).toEqual([]);
  });

  it("every load thread wrapped the HTTP engine's steps once (not per step of every vuser) and quieted ws's second end()", () => {
    const ready = ['g01', 'g02', 'g03'].flatMap((g) => {
      const gen = path.join(out, 'generators', g);
      return fs.readdirSync(gen).filter((p) => /^p\d+$/.test(p)).flatMap((p) =>
        fs.readdirSync(path.join(gen, p)).filter((n) => /^ready-\d+\.json$/.test(n)).map((n) => JSON.parse(fs.readFileSync(path.join(gen, p, n), 'utf8'))));
    });
    expect(ready.length).toBeGreaterThanOrEqual(3);
    for (const r of ready) expect(r).toMatchObject({ stepsWrappedOnce: true, wsQuietSecondEnd: true, callbacksOnce: true });
  });

  it('leaves no agent, Artillery or target process behind', () => {
    expect(pidsOfRun(result.json.runId)).toEqual([]);
  });
});

describe('a target that answers a share of /set-cookie with 503', () => {
  it('counts the retries and still connects every vuser', async () => {
    const out = path.join(tempDir('rig-e2e-503-'), 'run');
    const result = await runCli(['--vusers', '120', '--generators', '2', '--ramp', '4s', '--hold', '1s', '--out', out, '--json'], {
      // Every 10th /set-cookie of a target worker is refused (deterministic, target-stack/app/faults.js): at least
      // 10 retries over 120 vusers, while one vuser's 4 attempts landing on 4 refused slots of one worker (30 other
      // requests in between within its backoff) does not happen at this rate; at 1 in 4 it did.
      env: { FAULT_COOKIE_503_FRACTION: '0.1' },
    });
    expect(result.code).toBe(0);
    const c = result.json.aggregate.counters;
    expect(c['cookie.retry']).toBeGreaterThanOrEqual(8);
    expect(c['cookie.ok']).toBe(120);
    expect(c['cookie.failed'] ?? 0).toBe(0);
    expect(c['ws.connected']).toBe(120);
    expect(c['vusers.failed'] ?? 0).toBe(0);
  }, 120_000);
});

describe('small runs: a load process or generator with nothing to do is not started', () => {
  it('--vusers 1: exit 0, the one vuser runs, no generator lost', async () => {
    const out = path.join(tempDir('rig-e2e-one-'), 'run');
    // --max-cost is kept on a local run (CI commands pass it whichever platform is picked), and said to apply to AWS only.
    const result = await runCli(['--vusers', '1', '--ramp', '1s', '--hold', '1s', '--out', out, '--json', '--max-cost', '5']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/note: --max-cost 5 applies to AWS runs; this local run costs nothing/);
    expect(result.json.aggregate.counters['vusers.completed']).toBe(1);
    expect(result.json.rig.lostGenerators).toEqual([]);
    // Only the load process with a share ran.
    expect(fs.readdirSync(path.join(out, 'generators', 'g01')).filter((n) => /^p\d+$/.test(n))).toEqual(['p0']);
  }, 120_000);

  it('--generators 4 --vusers 2: exit 0, two generators run, the idle two are named and not started', async () => {
    const out = path.join(tempDir('rig-e2e-idle-'), 'run');
    const result = await runCli(['--generators', '4', '--vusers', '2', '--ramp', '1s', '--hold', '1s', '--out', out, '--json']);
    expect(result.code).toBe(0);
    expect(result.json.aggregate.counters['vusers.completed']).toBe(2);
    expect(result.json.rig.lostGenerators).toEqual([]);
    expect(result.stderr).toMatch(/2 generator\(s\) have no vusers to run \(2 in all\) and are not started/);
    expect(fs.readdirSync(path.join(out, 'generators')).sort()).toEqual(['g01', 'g02']);
    // Rebuilt from the folder: the idle two are not missing data (the rebuild refused the run, exit 3).
    const rebuilt = await runCli([out], { script: 'report-cli.ts', timeoutMs: 60_000 });
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stderr).toMatch(/result: PASSED \(exit 0\)/);
  }, 120_000);
});

describe('--vusers N without --hold: N held at once', () => {
  // The plateau (7 s) outlasts one sampling interval of the target's /metrics and the agents' health (5 s each), so
  // both see every vuser held at least once.
  it('--vusers 400 --ramp 4s --plateau 7s: the target and the generators hold ~400 at the peak, shown next to N', async () => {
    const out = path.join(tempDir('rig-e2e-held-'), 'run');
    const result = await runCli(['--vusers', '400', '--ramp', '4s', '--plateau', '7s', '--out', out, '--json']);
    expect(result.code).toBe(0);
    const held = result.json.rig.held;
    expect(held.requested).toBe(400);
    expect(held.targetConnections).toBeGreaterThanOrEqual(395);
    expect(held.targetConnections).toBeLessThanOrEqual(400);
    expect(held.generatorSockets).toBeGreaterThanOrEqual(395);
    // Each vuser held for the ramp plus the plateau (11 s), the hold the scenario ran with.
    const run = JSON.parse(fs.readFileSync(path.join(out, 'run.json'), 'utf8'));
    expect(run.options.holdSeconds).toBe(11);
    expect(run.options.plateauSeconds).toBe(7);
  }, 150_000);
});

describe('credentials in the target URL', () => {
  it('connect with them, show and store them nowhere (terminal, --json, --output, run folder)', async () => {
    const { startTarget } = await import('../target/helpers');
    const target = await startTarget({ WORKERS: '1' });
    try {
      const secret = `pw${process.pid}x`;
      const url = target.base.replace('http://', `http://rig-user:${secret}@`);
      const dir = tempDir('rig-e2e-creds-');
      const out = path.join(dir, 'run');
      const output = path.join(dir, 'summary.json');
      const result = await runCli(['--target', url, '--vusers', '4', '--ramp', '1s', '--hold', '1s', '--out', out, '--output', output, '--json']);
      expect(result.code).toBe(0);
      expect(result.json.aggregate.counters['ws.connected']).toBe(4);
      expect(result.json.target).toBe(target.base.replace('http://', 'http://***:***@'));
      expect(JSON.parse(fs.readFileSync(output, 'utf8'))).toEqual(result.json);
      expect(findIn(dir, secret, result)).toEqual([]);
    } finally {
      await target.stop();
    }
  }, 120_000);

  it("a token in the query of a user script's config.target: sent by the run, shown and stored as ?token=*** (was: in run.json, report.*, the slices)", async () => {
    const secret = `QSECRET${process.pid}`;
    const seen: string[] = [];
    const server = await loopbackHttpServer((req, res) => {
      seen.push(req.url ?? '');
      res.end('ok');
    });
    try {
      const dir = tempDir('rig-e2e-query-');
      const script = path.join(dir, 'http.yml');
      const base = `http://127.0.0.1:${server.port}/`;
      fs.writeFileSync(script, `config:\n  target: "${base}?token=${secret}"\n  phases: [{ duration: 1, arrivalCount: 2 }]\nscenarios:\n  - flow:\n      - get: { url: "/" }\n`);
      const out = path.join(dir, 'run');
      const output = path.join(dir, 'summary.json');
      const result = await runCli(['--scenario', script, '--out', out, '--output', output, '--json']);
      expect(result.code).toBe(0);
      expect(result.json.target).toBe(`${base}?token=***`);
      expect(result.stderr).toContain(`target: ${base}?token=*** (config.target of http.yml`);
      // The preflight and each vuser sent the real query, as plain artillery does (the target + the step's path, as text).
      expect(seen).toEqual(Array(3).fill(`/?token=${secret}/`));
      expect(findIn(dir, secret, result)).toEqual([]);
    } finally {
      await server.close();
    }
  }, 120_000);
});

/** Where `needle` appears: stdout, stderr, or the files under `dir` (the script itself excepted). */
function findIn(dir: string, needle: string, result: { stdout: string; stderr: string }): string[] {
  const leaks: string[] = [];
  if (result.stdout.includes(needle)) leaks.push('stdout');
  if (result.stderr.includes(needle)) leaks.push('stderr');
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name !== 'http.yml' && fs.readFileSync(p, 'latin1').includes(needle)) leaks.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return leaks;
}
