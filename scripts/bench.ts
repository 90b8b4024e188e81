/**
 * `npm run bench`: plain `artillery run` (one process, Artillery's own local runner, the way the seeds
 * ran it) against the rig (`npm run loadtest`) on the same machine, the same connect scenario and the
 * same local reference target. Prints for each, and as rig/plain ratios:
 *
 *   - the highest arrival rate sustained with under 1% failed vusers and no arrival lag (vusers/s),
 *   - generator RSS per held vuser (KB): (peak RSS of the load processes − RSS before load) / peak held,
 *   - CPU-seconds of the load processes per 1,000 vusers created,
 *   - target RSS per held vuser (KB), from the target's /metrics.
 *
 * Not a test: nothing is asserted, the figures and their bounds are printed. Bounded: a ladder of
 * rates with short trials, every trial killed past its deadline, the whole bench within --budget.
 *
 *   npm run bench [-- --rates 50,75,100,... --trial 20 --mem-rate 100 --mem-seconds 75 --budget 15m --json out.json]
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import yaml from 'js-yaml';
import { startLocalTarget } from './adapters/local-target';
import { estimateArrivals } from './core/capacity';
import { cpuSecondsPerThousand, periodLagProblems, searchLadder, trialProblems } from './bench/figures';

const ROOT = path.resolve(__dirname, '..');
const ARTILLERY_BIN = path.join(path.dirname(require.resolve('artillery/package.json')), 'bin', 'run');
const CLI = path.join(ROOT, 'scripts', 'cli.ts');
const TS_NODE = path.join(path.dirname(require.resolve('ts-node/package.json')), 'dist', 'bin.js');
const CLK_TCK = 100;
const PAGE = 4096;
/** Idle seconds before the arrivals, so the load processes' RSS before load is measured at rest. */
const WARMUP_SECONDS = 4;

type System = 'plain' | 'rig';

interface TrialResult {
  readonly system: System;
  readonly rate: number;
  readonly seconds: number;
  readonly planned: number;
  readonly created: number;
  readonly failed: number;
  readonly connected: number;
  readonly connectP99?: number;
  readonly problems: string[];
  readonly baseRssBytes?: number;
  readonly peakRssBytes?: number;
  readonly cpuSeconds?: number;
  readonly targetBaseRss?: number;
  readonly targetPeakRss?: number;
  readonly targetPeakConnections?: number;
  readonly wallSeconds: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`${line}\n`);

/** pid → { ppid, ticks, rss, cmd } for every process, from /proc. */
function processTable(): Map<number, { ppid: number; ticks: number; rss: number; cmd: string }> {
  const out = new Map<number, { ppid: number; ticks: number; rss: number; cmd: string }>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      out.set(Number(name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), rss: Number(f[21]) * PAGE, cmd });
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/**
 * Samples the load processes under `root` (descendants whose command line matches `isLoad`) every
 * 500 ms: summed RSS over time, and each process's last CPU ticks (a process's CPU is kept after it exits).
 */
class LoadSampler {
  private timer?: NodeJS.Timeout;
  readonly rss: Array<{ at: number; bytes: number }> = [];
  private readonly ticks = new Map<number, number>();
  private readonly ticksAt = new Map<number, number>();
  private loadStartAt?: number;

  constructor(private readonly root: number, private readonly isLoad: (cmd: string) => boolean) {}

  start(): void {
    this.timer = setInterval(() => this.sample(), 500);
    this.sample();
  }

  /** Marks the load start: CPU is counted from the ticks each process had here. */
  markLoadStart(at: number): void {
    this.loadStartAt = at;
    for (const [pid, t] of this.ticks) this.ticksAt.set(pid, t);
  }

  sample(): void {
    const table = processTable();
    const inTree = new Set<number>([this.root]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const [pid, p] of table) if (!inTree.has(pid) && inTree.has(p.ppid)) { inTree.add(pid); grew = true; }
    }
    let bytes = 0;
    for (const pid of inTree) {
      const p = table.get(pid);
      if (!p || !this.isLoad(p.cmd)) continue;
      bytes += p.rss;
      this.ticks.set(pid, p.ticks);
      if (this.loadStartAt !== undefined && !this.ticksAt.has(pid)) this.ticksAt.set(pid, 0);
    }
    this.rss.push({ at: Date.now(), bytes });
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** RSS just before the load started (last sample at or before it). */
  baseRss(): number | undefined {
    if (this.loadStartAt === undefined) return undefined;
    const before = this.rss.filter((s) => s.at <= this.loadStartAt! && s.bytes > 0);
    return before[before.length - 1]?.bytes;
  }

  peakRss(): number | undefined {
    return this.rss.length ? Math.max(...this.rss.map((s) => s.bytes)) : undefined;
  }

  cpuSeconds(): number | undefined {
    if (this.loadStartAt === undefined) return undefined;
    let t = 0;
    for (const [pid, last] of this.ticks) t += last - (this.ticksAt.get(pid) ?? last);
    return t / CLK_TCK;
  }
}

/** The target's summed RSS and connections (GET /metrics). */
function targetMetrics(url: string): Promise<{ rss?: number; connections?: number }> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/metrics`, { timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        try {
          const j = JSON.parse(body) as { connections?: number; memory?: { rss?: number } };
          resolve({ rss: j.memory?.rss, connections: j.connections });
        } catch {
          resolve({});
        }
      });
    });
    req.on('error', () => resolve({}));
    req.on('timeout', () => req.destroy());
  });
}

/** The connect scenario with an idle warm-up phase, then `rate` arrivals/s for `seconds`, each held `hold` s. */
function writeScript(dir: string, target: string, rate: number, seconds: number, hold: number): string {
  const base = yaml.load(fs.readFileSync(path.join(ROOT, 'load-generators', 'scenarios', 'connect.yml'), 'utf8')) as {
    config: Record<string, unknown>;
    scenarios: unknown[];
  };
  const script = {
    ...base,
    config: {
      ...base.config,
      target,
      processor: path.join(ROOT, 'load-generators', 'processors', 'connect.js'),
      phases: [
        { name: 'warmup', pause: WARMUP_SECONDS },
        { name: 'load', duration: seconds, arrivalRate: rate },
      ],
      variables: { ...(base.config.variables as object), hold },
    },
  };
  const file = path.join(dir, `connect-${rate}-${seconds}-${hold}.json`);
  fs.writeFileSync(file, JSON.stringify(script, null, 2));
  return file;
}

function kill(child: ChildProcess): void {
  if (child.exitCode === null && child.pid) {
    try {
      process.kill(-child.pid, 'SIGTERM'); // its own process group: agents and load processes too
    } catch {
      child.kill('SIGTERM');
    }
  }
}

/** The trial running now (its process group is stopped with the bench on Ctrl-C). */
let running: ChildProcess | undefined;

/** Runs one trial of one system; always returns (a trial past its deadline is killed and counted as failed). */
async function runTrial(system: System, opts: { target: string; rate: number; seconds: number; hold: number; work: string }): Promise<TrialResult> {
  const { target, rate, seconds, hold, work } = opts;
  const script = writeScript(work, target, rate, seconds, hold);
  const planned = estimateArrivals([{ duration: seconds, arrivalRate: rate }]);
  const out = path.join(work, `${system}-${rate}-${seconds}-${Date.now()}`);
  const env: NodeJS.ProcessEnv = { ...process.env, ARTILLERY_DISABLE_TELEMETRY: 'true' };
  delete env.WORKERS; // plain: Artillery's own default worker count (one on 2 cores)
  const child =
    system === 'plain'
      ? spawn(process.execPath, [ARTILLERY_BIN, 'run', '--output', `${out}.json`, script], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
      : spawn(process.execPath, [TS_NODE, '--transpile-only', CLI, '--scenario', script, '--target', target, '--out', out, '--max-error-rate', '100'], {
          env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
        });
  running = child;
  const t0 = Date.now();
  const isLoad = system === 'plain' ? (cmd: string) => cmd.includes('artillery') : (cmd: string) => /artillery|agent\.js/.test(cmd);
  const sampler = new LoadSampler(child.pid ?? -1, isLoad);
  sampler.start();
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-20000)));
  child.stderr?.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-20000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const deadline = t0 + (seconds + hold + WARMUP_SECONDS + 90) * 1000;

  // Load start: plain prints "Phase started: load"; the rig's load threads record their start instant.
  let targetBase: { rss?: number; connections?: number } = {};
  let targetPeakRss = 0;
  let targetPeakConnections = 0;
  let loadStart: number | undefined;
  let done = false;
  void exited.then(() => (done = true));
  while (!done && Date.now() < deadline) {
    if (loadStart === undefined) {
      let startedAt: number | undefined;
      if (system === 'plain') {
        if (/Phase started: load/.test(stdout)) startedAt = Date.now();
      } else {
        const dir = path.join(out, 'generators', 'g01', 'p0');
        const f = fs.existsSync(dir) ? fs.readdirSync(dir).find((n) => n.startsWith('started-')) : undefined;
        if (f) startedAt = Number(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).actualAt) + WARMUP_SECONDS * 1000;
      }
      if (startedAt !== undefined && Date.now() >= startedAt - 300) {
        sampler.sample();
        loadStart = Date.now();
        sampler.markLoadStart(loadStart);
        targetBase = await targetMetrics(target);
      }
    } else {
      const m = await targetMetrics(target);
      targetPeakRss = Math.max(targetPeakRss, m.rss ?? 0);
      targetPeakConnections = Math.max(targetPeakConnections, m.connections ?? 0);
    }
    await sleep(loadStart === undefined ? 100 : 1000);
  }
  if (!done) {
    log(`  ${system} @ ${rate}/s: past its deadline, stopping it`);
    kill(child);
    await Promise.race([exited, sleep(10_000)]);
  }
  sampler.sample();
  sampler.stop();

  let counters: Record<string, number> = {};
  let lag: string[] = [];
  let connectP99: number | undefined;
  try {
    const j = JSON.parse(fs.readFileSync(system === 'plain' ? `${out}.json` : path.join(out, 'report.json'), 'utf8')) as {
      aggregate: { counters: Record<string, number>; summaries?: Record<string, { p99?: number }> };
      intermediate?: Array<{ period: number | string; counters?: Record<string, number> }>;
    };
    counters = j.aggregate.counters;
    connectP99 = j.aggregate.summaries?.['ws.connect_time']?.p99;
    // Judged from the periods alone: the rig's load threads start their phases a little after the
    // barrier releases them (Artillery finishes loading the processor), so no outside clock is exact.
    const periods = (j.intermediate ?? []).map((p) => ({ period: Number(p.period), created: p.counters?.['vusers.created'] ?? 0 }));
    lag = periodLagProblems(periods, rate, seconds);
  } catch {
    log(`  ${system} @ ${rate}/s: no report (${stdout.split('\n').filter(Boolean).slice(-3).join(' | ')})`);
  }
  const created = counters['vusers.created'] ?? 0;
  const failed = counters['vusers.failed'] ?? 0;
  const problems = [...(done ? [] : ['did not finish in time']), ...trialProblems({ planned, created, failed }), ...lag];
  return {
    system, rate, seconds, planned, created, failed,
    connected: counters['ws.connected'] ?? 0,
    connectP99,
    problems,
    baseRssBytes: sampler.baseRss(),
    peakRssBytes: sampler.peakRss(),
    cpuSeconds: sampler.cpuSeconds(),
    targetBaseRss: targetBase.rss,
    targetPeakRss: targetPeakRss || undefined,
    targetPeakConnections: targetPeakConnections || undefined,
    wallSeconds: (Date.now() - t0) / 1000,
  };
}

const kb = (b: number | undefined) => (b === undefined ? undefined : b / 1024);
const f1 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(1));
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || b === 0 ? undefined : a / b);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rates: { type: 'string', default: '100,200,300,400,500,600,700,800,1000,1200' },
      trial: { type: 'string', default: '20' },
      hold: { type: 'string', default: '5' },
      'mem-rate': { type: 'string', default: '100' },
      'mem-seconds': { type: 'string', default: '60' },
      budget: { type: 'string', default: '15' },
      workers: { type: 'string', default: '2' },
      json: { type: 'string' },
    },
  });
  const rates = String(values.rates).split(',').map(Number).filter((n) => n > 0).sort((a, b) => a - b);
  const trialSeconds = Number(values.trial);
  const hold = Number(values.hold);
  const memRate = Number(values['mem-rate']);
  const memSeconds = Number(values['mem-seconds']);
  const budgetMs = Number(values.budget) * 60_000;
  const began = Date.now();
  const budgetLeft = () => Date.now() - began < budgetMs - 60_000;

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-bench-'));
  const target = await startLocalTarget({ appDir: path.join(ROOT, 'target-stack', 'app'), port: 0, workers: Number(values.workers) });
  const stopAll = async () => {
    if (running) kill(running);
    await target.stop();
    fs.rmSync(work, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));
  log(`bench: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.cpus()[0]?.model ?? ''}; target ${target.url} (${values.workers} workers); load avg ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);

  const trials: TrialResult[] = [];
  const report = (t: TrialResult) => {
    trials.push(t);
    log(`  ${t.system.padEnd(5)} ${String(t.rate).padStart(4)}/s × ${t.seconds}s: created ${t.created}/${t.planned}, failed ${t.failed}, connect p99 ${f1(t.connectP99)} ms` +
      `${t.problems.length ? ` — NOT sustained (${t.problems.join('; ')})` : ' — sustained'} [${t.wallSeconds.toFixed(0)} s]`);
  };
  try {
    // 1. Memory and CPU per vuser at one rate both sustain, every vuser held past the ramp's end.
    const mem: Partial<Record<System, TrialResult>> = {};
    for (const system of ['plain', 'rig'] as System[]) {
      log(`memory/CPU trial: ${system}, ${memRate}/s for ${memSeconds} s, each held ${memSeconds + 10} s`);
      const t = await runTrial(system, { target: target.url, rate: memRate, seconds: memSeconds, hold: memSeconds + 10, work });
      report(t);
      mem[system] = t;
    }
    // 2. Highest sustained arrival rate: a ladder of short trials; the rig starts where plain stopped.
    const best: Partial<Record<System, number>> = {};
    for (const system of ['plain', 'rig'] as System[]) {
      log(`arrival-rate ladder: ${system}, ${trialSeconds}-s trials, hold ${hold} s`);
      // Plain starts at 300/s (it sustained that in the first bench on this machine), the rig where plain stopped.
      const startAt = system === 'plain' ? Math.max(0, rates.findIndex((r) => r >= 300)) : Math.max(0, rates.indexOf(best.plain ?? rates[0]!));
      const idx = await searchLadder(rates.length, startAt, async (i) => {
        const t = await runTrial(system, { target: target.url, rate: rates[i]!, seconds: trialSeconds, hold, work });
        report(t);
        return t.problems.length === 0;
      }, budgetLeft);
      if (idx >= 0) best[system] = rates[idx];
      if (idx === rates.length - 1) log(`  ${system}: sustained the top of the ladder; the real maximum is higher`);
    }

    const fig = (s: System) => {
      const t = mem[s];
      const held = t ? Math.max(t.connected - t.failed, 0) : 0;
      return {
        rate: best[s],
        rssPerVuserKB: t && t.peakRssBytes !== undefined && t.baseRssBytes !== undefined && held ? kb((t.peakRssBytes - t.baseRssBytes) / held) : undefined,
        cpuPer1000: t && t.cpuSeconds !== undefined ? cpuSecondsPerThousand(t.cpuSeconds, t.created) : undefined,
        baseRssMB: t?.baseRssBytes !== undefined ? t.baseRssBytes / 2 ** 20 : undefined,
        targetPerVuserKB: t && t.targetPeakRss && t.targetBaseRss && t.targetPeakConnections ? kb((t.targetPeakRss - t.targetBaseRss) / t.targetPeakConnections) : undefined,
        held,
      };
    };
    const plain = fig('plain');
    const rig = fig('rig');
    const rows: Array<[string, number | undefined, number | undefined, string]> = [
      ['highest sustained arrival rate (vusers/s)', plain.rate, rig.rate, 'goal ≥ 1.8'],
      ['generator RSS per held vuser (KB)', plain.rssPerVuserKB, rig.rssPerVuserKB, 'goal ≤ 1.0'],
      ['CPU-seconds per 1,000 vusers created', plain.cpuPer1000, rig.cpuPer1000, 'lower is better'],
      ['load processes RSS before load (MB)', plain.baseRssMB, rig.baseRssMB, ''],
      ['target RSS per held vuser (KB)', plain.targetPerVuserKB, rig.targetPerVuserKB, ''],
    ];
    const lines = [
      '',
      `${'figure'.padEnd(44)}${'plain'.padStart(10)}${'rig'.padStart(10)}${'rig/plain'.padStart(11)}`,
      ...rows.map(([name, p, r, goal]) => `${name.padEnd(44)}${f1(p).padStart(10)}${f1(r).padStart(10)}${f1(ratio(r, p) === undefined ? undefined : ratio(r, p)! * 100 / 100).padStart(11)}  ${goal}`),
      '',
      `bounds: ladder ${rates.join(',')}/s, ${trialSeconds}-s trials (a rate is sustained with < 1% failed and ≥ 99% of planned vusers created);` +
        ` memory/CPU at ${memRate}/s × ${memSeconds} s (${plain.held} / ${rig.held} held); ${((Date.now() - began) / 60000).toFixed(1)} min;` +
        ` load avg now ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (values.json) fs.writeFileSync(String(values.json), JSON.stringify({ at: new Date().toISOString(), machine: { cores: os.cpus().length, memoryBytes: os.totalmem(), model: os.cpus()[0]?.model }, plain, rig, trials }, null, 2));
  } finally {
    await stopAll();
  }
}

main().catch((err) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
