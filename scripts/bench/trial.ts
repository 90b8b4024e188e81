/**
 * One bench trial: one system (plain `artillery run` or the rig) at one arrival rate, on the generator CPUs
 * when pinned; what it created, failed, cost (CPU over the arrival window, RSS) and how long it took from the
 * command to its first vuser. Always returns: a trial past its deadline is killed and counted as failed.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import yaml from 'js-yaml';
import { estimateArrivals } from '../core/capacity';
import type { CpuSplit } from './figures';
import { cpuSplit, periodLagProblems, trialProblems } from './figures';
import { SPOOL } from '../../load-generators/lib/run-protocol';
import { CLK_TCK, TreeSampler, machineCpu, pinnedCommand, targetMetrics } from './sampling';
const ROOT = path.resolve(__dirname, '..', '..');
const ARTILLERY_BIN = path.join(path.dirname(require.resolve('artillery/package.json')), 'bin', 'run');
const CLI = path.join(ROOT, 'scripts', 'cli.ts');
/** What `npm run loadtest` starts (scripts/launch.js): the rig's start-up is measured as users meet it. */
const LAUNCH = path.join(ROOT, 'scripts', 'launch.js');
/** The bench's processor: the connect scenario's, plus the instant of the trial's first vuser. */
const PROCESSOR = path.join(__dirname, 'first-vuser.js');
/** Idle seconds before the arrivals, so the load processes' RSS before load is measured at rest. */
const WARMUP_SECONDS = 4;
/**
 * The rig's drift-free arrival timer without the spin (docs/performance.md). Preloaded into plain Artillery alone for
 * its CPU-per-vuser trials: plain's own timer spins on setImmediate between arrivals, so at any rate above ~40/s its
 * load thread reads a whole core whatever its vusers cost, and only the timer's spin differs.
 */
const CALM_TIMERS = path.join(ROOT, 'load-generators', 'lib', 'calm-timers.js');

export type System = 'plain' | 'rig';

/** What one trial produced. */
export interface TrialResult {
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
  /** Where the CPU went during the arrival window (`machineBusy`: of the generator CPUs when pinned). */
  readonly cpu?: CpuSplit;
  /** The load processes' CPU-seconds over the arrival window (start-up excluded). */
  readonly windowCpuSeconds?: number;
  /** Seconds from the command to its first vuser, the idle warm-up phase excluded. */
  readonly startupSeconds?: number;
  readonly wallSeconds: number;
  /** Plain with its arrival timer's spin removed (TrialOptions.withoutSpin). */
  readonly withoutSpin?: boolean;
}

/** CPU readings at one instant: the machine, the load processes, the target (when the bench started it). */
interface CpuReading {
  readonly at: number;
  readonly machine: ReturnType<typeof machineCpu>;
  readonly load: number;
  readonly target?: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

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
      processor: PROCESSOR,
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

/** Stops a trial's whole process group (agents and load processes too). */
export function kill(child: ChildProcess): void {
  if (child.exitCode === null && child.pid) {
    try {
      process.kill(-child.pid, 'SIGTERM'); // its own process group: agents and load processes too
    } catch {
      child.kill('SIGTERM');
    }
  }
}

/** One trial's settings. */
export interface TrialOptions {
  readonly target: string;
  readonly rate: number;
  readonly seconds: number;
  readonly hold: number;
  /** Scratch folder for scripts and outputs. */
  readonly work: string;
  readonly targetSampler?: TreeSampler;
  /** CPUs the system runs on (taskset); undefined: unpinned. */
  readonly generatorCpus?: readonly number[];
  /** Plain only: run with the calm arrival timer preloaded (its spin removed), for its marginal CPU per vuser. */
  readonly withoutSpin?: boolean;
  /** Told the trial's process (its own process group) as soon as it is started, so Ctrl-C can stop it. */
  readonly onStart?: (child: ChildProcess) => void;
  readonly log: (line: string) => void;
}

/** A started trial: its process group, its load processes' sampler and the tail of its output. */
interface StartedTrial {
  readonly child: ChildProcess;
  readonly t0: number;
  readonly sampler: TreeSampler;
  readonly exited: Promise<void>;
  /** The last 20,000 characters of its stdout and stderr. */
  readonly output: () => string;
}

/** A trial command's environment, from the bench's own. */
export function trialEnv(system: System, withoutSpin: boolean | undefined, base: NodeJS.ProcessEnv, firstVuserFile: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, ARTILLERY_DISABLE_TELEMETRY: 'true', RIG_BENCH_FIRST_VUSER_FILE: firstVuserFile };
  delete env.WORKERS; // plain: Artillery's own default worker count (one on 2 cores)
  // Plain runs the way its users start it: no V8 compile cache unless they set one (the rig's launcher sets its own).
  if (system === 'plain') delete env.NODE_COMPILE_CACHE;
  // NODE_OPTIONS reaches Artillery's worker thread too, where the arrivals are timed.
  if (system === 'plain' && withoutSpin) env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --require ${JSON.stringify(CALM_TIMERS)}`.trim();
  return env;
}

/** Starts one system's command in its own process group (pinned when asked), its load processes sampled. */
function startTrial(system: System, opts: TrialOptions, script: string, out: string, firstVuserFile: string): StartedTrial {
  const env = trialEnv(system, opts.withoutSpin, process.env, firstVuserFile);
  const argv =
    system === 'plain'
      ? [process.execPath, ARTILLERY_BIN, 'run', '--output', `${out}.json`, script]
      : [process.execPath, LAUNCH, CLI, '--scenario', script, '--target', opts.target, '--out', out, '--max-error-rate', '100'];
  const [command, ...args] = pinnedCommand(opts.generatorCpus, argv);
  const t0 = Date.now();
  const child = spawn(command!, args, { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  opts.onStart?.(child);
  const isLoad = system === 'plain' ? (cmd: string) => cmd.includes('artillery') : (cmd: string) => /artillery|agent\.js/.test(cmd);
  const sampler = new TreeSampler(child.pid ?? -1, isLoad);
  sampler.start();
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-20000)));
  child.stderr?.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-20000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return { child, t0, sampler, exited, output: () => stdout };
}

/** The instant the trial's load starts, once it is known: plain prints it, the rig's load process records it. */
function loadStartedAt(system: System, out: string, stdout: string): number | undefined {
  if (system === 'plain') return /Phase started: load/.test(stdout) ? Date.now() : undefined;
  const dir = path.join(out, 'generators', 'g01', 'p0');
  const f = fs.existsSync(dir) ? fs.readdirSync(dir).find((n) => SPOOL.startedFile.test(n)) : undefined;
  return f ? Number(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).actualAt) + WARMUP_SECONDS * 1000 : undefined;
}

/** What watching a trial to its end saw: whether it finished, the arrival window's CPU readings, the target's sizes. */
interface TrialWatch {
  readonly done: boolean;
  readonly windowStart?: CpuReading;
  readonly windowEnd?: CpuReading;
  readonly targetBase: { rss?: number; connections?: number };
  readonly targetPeakRss: number;
  readonly targetPeakConnections: number;
}

/** Watches a started trial until it exits or its deadline passes (then it is killed). */
async function watchTrial(system: System, opts: TrialOptions, out: string, started: StartedTrial): Promise<TrialWatch> {
  const { target, rate, seconds, hold, targetSampler, log } = opts;
  const { child, sampler, exited } = started;
  const deadline = started.t0 + (seconds + hold + WARMUP_SECONDS + 90) * 1000;
  // Load start: plain prints "Phase started: load"; the rig's load threads record their start instant.
  let targetBase: { rss?: number; connections?: number } = {};
  let targetPeakRss = 0;
  let targetPeakConnections = 0;
  let loadStart: number | undefined;
  const reading = (): CpuReading => {
    sampler.sample();
    targetSampler?.sample();
    return { at: Date.now(), machine: machineCpu(opts.generatorCpus), load: sampler.ticksSoFar(), ...(targetSampler ? { target: targetSampler.ticksSoFar() } : {}) };
  };
  // CPU over the arrival window: where the CPU goes while vusers are being created.
  let windowStart: CpuReading | undefined;
  let windowEnd: CpuReading | undefined;
  let done = false;
  void exited.then(() => (done = true));
  while (!done && Date.now() < deadline) {
    if (loadStart === undefined) {
      const startedAt = loadStartedAt(system, out, started.output());
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
  return { done, windowStart, windowEnd, targetBase, targetPeakRss, targetPeakConnections };
}

/** The trial's counters, connect p99 and arrival-lag problems from its report; empty (logged) without one. */
function readTrialReport(system: System, opts: TrialOptions, out: string, stdout: string) {
  const { rate, seconds, log } = opts;
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
  return { counters, lag, connectP99 };
}

/** Where the CPU went over the arrival window, when both ends of it were read. */
function windowCpu({ windowStart, windowEnd }: TrialWatch): Pick<TrialResult, 'cpu' | 'windowCpuSeconds'> {
  if (!windowStart || !windowEnd) return {};
  return {
    cpu: cpuSplit(
      windowStart.machine,
      windowEnd.machine,
      windowEnd.load - windowStart.load,
      windowStart.target !== undefined && windowEnd.target !== undefined ? windowEnd.target - windowStart.target : undefined,
      (windowEnd.at - windowStart.at) / 1000,
      CLK_TCK,
    ),
    windowCpuSeconds: (windowEnd.load - windowStart.load) / CLK_TCK,
  };
}

/** Runs one trial of one system; always returns (a trial past its deadline is killed and counted as failed). */
export async function runTrial(system: System, opts: TrialOptions): Promise<TrialResult> {
  const { target, rate, seconds, hold, work } = opts;
  const script = writeScript(work, target, rate, seconds, hold);
  const planned = estimateArrivals([{ duration: seconds, arrivalRate: rate }]);
  const out = path.join(work, `${system}-${rate}-${seconds}-${Date.now()}`);
  const firstVuserFile = `${out}.first-vuser`;
  const started = startTrial(system, opts, script, out, firstVuserFile);
  const { t0, sampler } = started;
  const watch = await watchTrial(system, opts, out, started);
  const { counters, lag, connectP99 } = readTrialReport(system, opts, out, started.output());
  const created = counters['vusers.created'] ?? 0;
  const failed = counters['vusers.failed'] ?? 0;
  const problems = [...(watch.done ? [] : ['did not finish in time']), ...trialProblems({ planned, created, failed }), ...lag];
  return {
    system, rate, seconds, planned, created, failed,
    connected: counters['ws.connected'] ?? 0,
    connectP99,
    problems,
    baseRssBytes: sampler.baseRss(),
    peakRssBytes: sampler.peakRss(),
    cpuSeconds: sampler.cpuSeconds(),
    targetBaseRss: watch.targetBase.rss,
    targetPeakRss: watch.targetPeakRss || undefined,
    targetPeakConnections: watch.targetPeakConnections || undefined,
    ...windowCpu(watch),
    ...startupOf(firstVuserFile, t0),
    wallSeconds: (Date.now() - t0) / 1000,
    ...(system === 'plain' && opts.withoutSpin ? { withoutSpin: true } : {}),
  };
}

/** Seconds from the command (`t0`) to the trial's first vuser, the warm-up pause excluded; {} without a marker. */
function startupOf(firstVuserFile: string, t0: number): { startupSeconds?: number } {
  try {
    const at = Number(fs.readFileSync(firstVuserFile, 'utf8'));
    return Number.isFinite(at) && at > 0 ? { startupSeconds: (at - t0) / 1000 - WARMUP_SECONDS } : {};
  } catch {
    return {};
  }
}
