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
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import yaml from 'js-yaml';
import type { TargetHandle } from './adapters/local-target';
import { checkReachable, startLocalTarget } from './adapters/local-target';
import { UsageError } from './errors';
import { estimateArrivals } from './core/capacity';
import type { CpuSplit } from './bench/figures';
import { ceilingLine, cpuSecondsPerThousand, cpuSplit, machineBound, periodLagProblems, searchLadder, trialProblems } from './bench/figures';
import { CLK_TCK, TreeSampler, machineCpu, targetMetrics } from './bench/sampling';

const ROOT = path.resolve(__dirname, '..');
const ARTILLERY_BIN = path.join(path.dirname(require.resolve('artillery/package.json')), 'bin', 'run');
const CLI = path.join(ROOT, 'scripts', 'cli.ts');
const TS_NODE = path.join(path.dirname(require.resolve('ts-node/package.json')), 'dist', 'bin.js');
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
  /** Where the CPU went during the arrival window. */
  readonly cpu?: CpuSplit;
  readonly wallSeconds: number;
}

/** CPU readings at one instant: the machine, the load processes, the target (when the bench started it). */
interface CpuReading {
  readonly at: number;
  readonly machine: ReturnType<typeof machineCpu>;
  readonly load: number;
  readonly target?: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`${line}\n`);

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
async function runTrial(
  system: System,
  opts: { target: string; rate: number; seconds: number; hold: number; work: string; targetSampler?: TreeSampler },
): Promise<TrialResult> {
  const { target, rate, seconds, hold, work, targetSampler } = opts;
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
  const sampler = new TreeSampler(child.pid ?? -1, isLoad);
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
  const reading = (): CpuReading => {
    sampler.sample();
    targetSampler?.sample();
    return { at: Date.now(), machine: machineCpu(), load: sampler.ticksSoFar(), ...(targetSampler ? { target: targetSampler.ticksSoFar() } : {}) };
  };
  // CPU over the arrival window: where the CPU goes while vusers are being created.
  let windowStart: CpuReading | undefined;
  let windowEnd: CpuReading | undefined;
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
        windowStart = reading();
        loadStart = windowStart.at;
        sampler.markLoadStart(loadStart);
        targetBase = await targetMetrics(target);
      }
    } else {
      if (!windowEnd && Date.now() >= loadStart + seconds * 1000) windowEnd = reading();
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
    ...(windowStart && windowEnd
      ? {
          cpu: cpuSplit(
            windowStart.machine,
            windowEnd.machine,
            windowEnd.load - windowStart.load,
            windowStart.target !== undefined && windowEnd.target !== undefined ? windowEnd.target - windowStart.target : undefined,
            (windowEnd.at - windowStart.at) / 1000,
            CLK_TCK,
          ),
        }
      : {}),
    wallSeconds: (Date.now() - t0) / 1000,
  };
}

const kb = (b: number | undefined) => (b === undefined ? undefined : b / 1024);
const f1 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(1));
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || b === 0 ? undefined : a / b);

/** A bad bench flag: one line, exit 2, nothing started. */
class BenchUsageError extends Error {}

/** A positive number from a flag's text. @throws BenchUsageError */
function positive(flag: string, text: unknown): number {
  const n = Number(text);
  if (!(Number.isFinite(n) && n > 0)) throw new BenchUsageError(`--${flag} must be a positive number (got ${JSON.stringify(text)})`);
  return n;
}

/** The trial line's CPU note: machine busy share, load processes' and target's cores. */
function cpuNote(cpu: CpuSplit | undefined): string {
  if (!cpu) return '';
  const target = cpu.targetCores !== undefined ? `, target ${cpu.targetCores.toFixed(2)}` : '';
  return `; CPU ${(100 * cpu.machineBusy).toFixed(0)}% busy: load ${cpu.loadCores.toFixed(2)}${target} cores`;
}

/**
 * What bound each system at its ceiling (the lowest ladder rate above its best that it did not sustain), and
 * whether the arrival-rate ratio then compares the generators or only this machine.
 */
function ceilings(ladder: readonly TrialResult[], best: Partial<Record<System, number>>): string[] {
  const ceilingOf = (s: System) =>
    ladder.filter((t) => t.system === s && t.problems.length > 0 && t.rate > (best[s] ?? 0)).sort((a, b) => a.rate - b.rate)[0];
  const found = (['plain', 'rig'] as System[]).map(ceilingOf).filter((t): t is TrialResult => t !== undefined);
  const lines = found.map((t) => `ceiling: ${ceilingLine(t.system, t.rate, t.cpu)}`);
  if (found.length === 2 && found.every((t) => machineBound(t.cpu))) {
    lines.push(
      "both ceilings are this machine's CPU (the target shares its cores): the arrival-rate ratio compares the machine, not the generators;",
      'to measure the generators alone, run the target on another host and pass --target http://<host>:<port>.',
    );
  }
  return lines;
}

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
      target: { type: 'string' },
      json: { type: 'string' },
    },
  });
  const rates = String(values.rates).split(',').map((r) => positive('rates', r)).sort((a, b) => a - b);
  const trialSeconds = positive('trial', values.trial);
  const hold = positive('hold', values.hold);
  const memRate = positive('mem-rate', values['mem-rate']);
  const memSeconds = positive('mem-seconds', values['mem-seconds']);
  const budgetMs = positive('budget', values.budget) * 60_000;
  const workers = positive('workers', values.workers);
  const began = Date.now();
  const budgetLeft = () => Date.now() - began < budgetMs - 60_000;

  // A target on another host (--target) leaves this machine's cores to the generators; the default is the
  // reference target on the same cores, whose CPU is then read too.
  if (values.target) await checkReachable(values.target);
  const target: TargetHandle = values.target
    ? { url: values.target.replace(/\/+$/, ''), stop: async () => undefined }
    : await startLocalTarget({ appDir: path.join(ROOT, 'target-stack', 'app'), port: 0, workers });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-bench-'));
  const targetSampler = target.pid !== undefined ? new TreeSampler(target.pid) : undefined;
  targetSampler?.start();
  const stopAll = async () => {
    if (running) kill(running);
    targetSampler?.stop();
    await target.stop();
    fs.rmSync(work, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));
  log(`bench: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.cpus()[0]?.model ?? ''}; target ${target.url} (${values.target ? 'given with --target' : `reference target, ${workers} workers, on these cores`}); load avg ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);

  const trials: TrialResult[] = [];
  const report = (t: TrialResult) => {
    trials.push(t);
    log(`  ${t.system.padEnd(5)} ${String(t.rate).padStart(4)}/s × ${t.seconds}s: created ${t.created}/${t.planned}, failed ${t.failed}, connect p99 ${f1(t.connectP99)} ms` +
      `${t.problems.length ? ` — NOT sustained (${t.problems.join('; ')})` : ' — sustained'} [${t.wallSeconds.toFixed(0)} s${cpuNote(t.cpu)}]`);
  };
  try {
    // 1. Memory and CPU per vuser at one rate both sustain, every vuser held past the ramp's end.
    const mem: Partial<Record<System, TrialResult>> = {};
    for (const system of ['plain', 'rig'] as System[]) {
      log(`memory/CPU trial: ${system}, ${memRate}/s for ${memSeconds} s, each held ${memSeconds + 10} s`);
      const t = await runTrial(system, { target: target.url, rate: memRate, seconds: memSeconds, hold: memSeconds + 10, work, targetSampler });
      report(t);
      mem[system] = t;
    }
    // 2. Highest sustained arrival rate: a ladder of short trials; the rig starts where plain stopped.
    const best: Partial<Record<System, number>> = {};
    const ladder: TrialResult[] = [];
    for (const system of ['plain', 'rig'] as System[]) {
      log(`arrival-rate ladder: ${system}, ${trialSeconds}-s trials, hold ${hold} s`);
      // Plain starts at 300/s (it sustained that in the first bench on this machine), the rig where plain stopped.
      const startAt = system === 'plain' ? Math.max(0, rates.findIndex((r) => r >= 300)) : Math.max(0, rates.indexOf(best.plain ?? rates[0]!));
      const idx = await searchLadder(rates.length, startAt, async (i) => {
        const t = await runTrial(system, { target: target.url, rate: rates[i]!, seconds: trialSeconds, hold, work, targetSampler });
        report(t);
        ladder.push(t);
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
      ...ceilings(ladder, best),
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
  // Bad input (a flag, an unreachable --target) is one line and exit 2; anything else is the bench failing.
  const usage = err instanceof BenchUsageError || err instanceof UsageError || (err as NodeJS.ErrnoException)?.code?.startsWith('ERR_PARSE_ARGS');
  process.stderr.write(`bench: ${usage ? (err as Error).message : err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = usage ? 2 : 3;
});
