/**
 * `npm run bench`: plain `artillery run` (one process, Artillery's own local runner, the way the seeds
 * ran it) against the rig (`npm run loadtest`) on the same machine, the same connect scenario and the
 * same local reference target. Prints for each, and as rig/plain ratios:
 *
 *   - the highest arrival rate sustained with under 1% failed vusers and no arrival lag (vusers/s), and per
 *     generator core,
 *   - CPU ms per vuser: the load processes' CPU over the arrival window / vusers created, at the highest rate
 *     both sustained (start-up excluded); plain also once more there with its arrival timer's spin removed, its
 *     marginal cost (its spin otherwise fills the core whatever a vuser costs),
 *   - generator RSS per held vuser (KB): (peak RSS of the load processes − RSS before load) / peak held,
 *   - start-up: seconds from the command to its first vuser (median over every trial),
 *   - CPU-seconds of the load processes per 1,000 vusers created, target RSS per held vuser (KB).
 *
 * `--pin` runs the bench's target on its own CPUs and each system on the generator CPUs (taskset), so the
 * figures compare the generators per core instead of this machine.
 *
 * Not a test: nothing is asserted, the figures and their bounds are printed. Bounded: a ladder of
 * rates with short trials, every trial killed past its deadline, the whole bench within --budget.
 *
 *   npm run bench [-- --pin --rates 50,75,100,... --trial 20 --repeat 2 --mem-rate 100 --mem-seconds 75 --budget 15 --json out.json]
 */
import type { TargetHandle } from './contracts';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkReachable } from './adapters/reachability';
import { longFlags, npmEatenRefusal } from './npm-flags';
import { helpRequested, parseFlags } from './cli-flags';
import { parseDurationSeconds } from './options';
import { startLocalTarget } from './platforms/local/target';
import { UsageError } from './errors';
import { checkOutputFile } from './adapters/run-folder';
import { writeFileAtomic } from './adapters/atomic-file';
import { invocationDir, userPath } from './home-path';
import type { BenchRatios, CpuSplit } from './bench/figures';
import { GOALS, ceilingLine, comparisonRate, cpuMsPerVuserAt, cpuSecondsPerThousand, machineBound, median, ratioOf, searchLadder, sustainsRate } from './bench/figures';
import { PinError, PinPlan, cpuListText, pinPlan } from './bench/pinning';
import { TreeSampler, allowedCpus, checkTaskset, pinTree } from './bench/sampling';
import type { System, TrialResult } from './bench/trial';
import { kill, runTrial } from './bench/trial';
import { runEntry } from './entry';

const ROOT = path.resolve(__dirname, '..');
const log = (line: string) => process.stderr.write(`${line}\n`);
/** Plain's ladder starts here (it sustained 300/s in the first bench here; ~1,400/s on a core of its own). */
const PLAIN_START = { shared: 300, pinned: 1000 } as const;
const DEFAULT_RATES = { shared: '100,200,300,400,500,600,700,800,1000,1200', pinned: '600,800,1000,1200,1400,1600,1800,2000' } as const;

const kb = (b: number | undefined) => (b === undefined ? undefined : b / 1024);
const f1 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(1));
const f2 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(2));

/** A positive number from a flag's text. @throws UsageError */
function positive(flag: string, text: unknown): number {
  const n = Number(text);
  if (!(Number.isFinite(n) && n > 0)) throw new UsageError(`--${flag} must be a positive number (got ${JSON.stringify(text)})`);
  return n;
}

/** Seconds from a duration flag: plain seconds, or a duration as `npm run loadtest` takes it (`20s`, `2m`, `1m30s`). */
const durationSeconds = (flag: string, text: unknown) => parseDurationSeconds(`--${flag}`, String(text));

/**
 * --budget: plain minutes (its unit: `15`, `0.5`, `.5`), or a duration with its unit (`1h`, `90m`). Its refusal says
 * minutes: the shared duration line says "use seconds", which a plain number here is not (`--budget 900` is 15 h).
 */
function budgetMinutes(text: unknown): number {
  const given = String(text);
  if (/^\s*(\d+(\.\d+)?|\.\d+)\s*$/.test(given)) return Number(given);
  try {
    return durationSeconds('budget', given) / 60;
  } catch {
    throw new UsageError(`--budget ${JSON.stringify(given)} is not minutes or a duration; e.g. --budget 15 (minutes), --budget 90m or --budget 1h`);
  }
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
function ceilings(ladder: readonly TrialResult[], best: Partial<Record<System, number>>, pin: PinPlan | undefined): string[] {
  const ceilingOf = (s: System) =>
    ladder.filter((t) => t.system === s && t.problems.length > 0 && t.rate > (best[s] ?? 0)).sort((a, b) => a.rate - b.rate)[0];
  const found = (['plain', 'rig'] as System[]).map(ceilingOf).filter((t): t is TrialResult => t !== undefined);
  if (pin) {
    // Pinned: the busy share is the generator CPUs'; the target must not have been the bound either.
    return found.map((t) => {
      const target = t.cpu?.targetCores !== undefined && pin.targetCpus ? `; target ${t.cpu.targetCores.toFixed(2)} of its ${pin.targetCpus.length} CPU(s)` : '';
      return `ceiling: ${t.system} at ${t.rate}/s: generator CPUs (${cpuListText(pin.generatorCpus)}) ${t.cpu ? `${(100 * t.cpu.machineBusy).toFixed(0)}% busy, load processes ${t.cpu.loadCores.toFixed(2)} cores` : 'no CPU reading'}${target}`;
    });
  }
  const lines = found.map((t) => `ceiling: ${ceilingLine(t.system, t.rate, t.cpu)}`);
  if (found.length === 2 && found.every((t) => machineBound(t.cpu))) {
    lines.push(
      "both ceilings are this machine's CPU (the target shares its cores): the arrival-rate ratio compares the machine, not the generators;",
      'to measure the generators alone, pin them apart (--pin) or run the target on another host and pass --target http://<host>:<port>.',
    );
  }
  return lines;
}

const BENCH_OPTIONS = {
  rates: { type: 'string' },
  trial: { type: 'string', default: '20' },
  hold: { type: 'string', default: '5' },
  repeat: { type: 'string', default: '1' },
  'mem-rate': { type: 'string', default: '100' },
  'mem-seconds': { type: 'string', default: '60' },
  budget: { type: 'string', default: '15' },
  workers: { type: 'string' },
  target: { type: 'string' },
  json: { type: 'string' },
  pin: { type: 'boolean', default: false },
  'target-cpus': { type: 'string', default: '1' },
  'generator-cpus': { type: 'string', default: '0' },
} as const;

const BENCH_USAGE =
  'usage: npm run bench -- [--pin [--target-cpus LIST] [--generator-cpus LIST]] [--rates 50,75,100,…] [--trial DUR] [--hold DUR] [--repeat N]' +
  ' [--mem-rate R] [--mem-seconds DUR] [--budget MIN|DUR] [--workers N] [--target URL] [--json FILE]';

/** The bench's settings from its flags. @throws UsageError, PinError, UsageError */
function benchSettings() {
  const refusal = npmEatenRefusal(process.env, longFlags(BENCH_OPTIONS), process.argv.slice(2));
  if (refusal) throw new UsageError(refusal.replace(/^error: /, ''));
  const { values } = parseFlags(process.argv.slice(2), BENCH_OPTIONS, BENCH_USAGE);
  // An empty value (`--json=`, an unset CI variable) would run as if the flag were not given.
  for (const flag of ['target', 'json', 'target-cpus', 'generator-cpus'] as const) {
    if (values[flag] !== undefined && !String(values[flag]).trim()) throw new UsageError(`--${flag} is empty; give it a value or leave the flag out`);
  }
  const mode = values.pin ? 'pinned' : 'shared';
  const rates = String(values.rates ?? DEFAULT_RATES[mode]).split(',').map((r) => positive('rates', r)).sort((a, b) => a - b);
  const trialSeconds = durationSeconds('trial', values.trial);
  const hold = durationSeconds('hold', values.hold);
  const repeat = positive('repeat', values.repeat);
  if (!Number.isInteger(repeat)) throw new UsageError(`--repeat must be a whole number of trials (got ${JSON.stringify(values.repeat)})`);
  const memRate = positive('mem-rate', values['mem-rate']);
  const memSeconds = durationSeconds('mem-seconds', values['mem-seconds']);
  const budgetMs = budgetMinutes(values.budget) * 60_000;
  // The memory trials come first, one per system: the arrivals (memSeconds), then the last vuser's hold (memSeconds +
  // 10, scripts/bench/trial.ts), warm-up, start and stop (~30 s); the ladder stops starting trials a minute before the
  // budget, and the bench must end within it ("the whole bench within --budget"): below this not one ladder trial
  // would start and end in time.
  const memoryTrialsSeconds = 2 * (2 * memSeconds + 10 + 30);
  const leastMinutes = Math.ceil((memoryTrialsSeconds + trialSeconds + hold + 30) / 60) + 1;
  if (budgetMs < leastMinutes * 60_000) {
    throw new UsageError(`--budget ${values.budget} leaves no time for the ladder (the memory trials take ~${Math.ceil(memoryTrialsSeconds / 60)} min first, and no trial starts in the last minute); give at least --budget ${leastMinutes}`);
  }
  let pin: PinPlan | undefined;
  if (values.pin) {
    pin = pinPlan({ targetCpus: values['target-cpus']!, generatorCpus: values['generator-cpus']!, available: allowedCpus(os.cpus().length), ownTarget: !values.target });
    checkTaskset();
  }
  // The target's workers: one per target CPU when pinned, else 2 (both on these cores).
  const workers = values.workers !== undefined ? positive('workers', values.workers) : (pin?.targetCpus?.length ?? 2);
  const json = values.json === undefined ? undefined : userPath(values.json, os.homedir(), invocationDir(process.env, process.cwd()));
  // Checked now, not after ~15 minutes of trials: a folder, a missing parent or a read-only place.
  if (json !== undefined) checkOutputFile(json, '--json');
  return { targetUrl: values.target, json, mode, rates, trialSeconds, hold, repeat, memRate, memSeconds, budgetMs, pin, workers } as const;
}
type BenchSettings = ReturnType<typeof benchSettings>;

/** Runs one trial of a system and logs its line (`withoutSpin`: plain with its arrival timer's spin removed). */
type RunTrial = (system: System, rate: number, seconds: number, holdSeconds: number, withoutSpin?: boolean) => Promise<TrialResult>;

/** Every trial of the bench, and what each system sustained. */
interface Measured {
  readonly trials: TrialResult[];
  readonly mem: Partial<Record<System, TrialResult>>;
  readonly best: Partial<Record<System, number>>;
  readonly ladder: TrialResult[];
}

/**
 * 1. memory and CPU per vuser at one rate both sustain; 2. the highest sustained arrival rate of each system; 3. plain
 * with its timer's spin removed at the highest rate both sustained, for the marginal CPU per vuser.
 */
async function measure(set: BenchSettings, trial: RunTrial, budgetLeft: () => boolean, trials: readonly TrialResult[]): Promise<Omit<Measured, 'trials'>> {
  const { rates, trialSeconds, hold, memRate, memSeconds } = set;
  // 1. Memory and CPU per vuser at one rate both sustain, every vuser held past the ramp's end.
  const mem: Partial<Record<System, TrialResult>> = {};
  for (const system of ['plain', 'rig'] as System[]) {
    log(`memory/CPU trial: ${system}, ${memRate}/s for ${memSeconds} s, each held ${memSeconds + 10} s`);
    mem[system] = await trial(system, memRate, memSeconds, memSeconds + 10);
  }
  // 2. Highest sustained arrival rate: a ladder of short trials; the rig starts where plain stopped.
  const best: Partial<Record<System, number>> = {};
  const ladder: TrialResult[] = [];
  for (const system of ['plain', 'rig'] as System[]) {
    log(`arrival-rate ladder: ${system}, ${trialSeconds}-s trials, hold ${hold} s`);
    const startAt = system === 'plain' ? Math.max(0, rates.findIndex((r) => r >= PLAIN_START[set.mode])) : Math.max(0, rates.indexOf(best.plain ?? rates[0]!));
    const idx = await searchLadder(rates.length, startAt, (i) => sustainsRate(set.repeat, async () => {
      const t = await trial(system, rates[i]!, trialSeconds, hold);
      ladder.push(t);
      return t.problems.length === 0;
    }), budgetLeft);
    if (idx >= 0) best[system] = rates[idx];
    if (idx === rates.length - 1) log(`  ${system}: sustained the top of the ladder; the real maximum is higher`);
  }
  // 3. Plain's marginal CPU per vuser: its arrival timer spins between arrivals (a whole core at any rate above
  // ~40/s), so the same rate once more with that spin removed and nothing else of the rig.
  const cpuRate = comparisonRate(trials.map((t) => ({ ...t, sustained: t.problems.length === 0 })));
  if (cpuRate !== undefined) {
    log(`CPU trial: plain without its arrival timer's spin, ${cpuRate}/s (${set.repeat} trial${set.repeat === 1 ? '' : 's'})`);
    for (let i = 0; i < set.repeat && budgetLeft(); i++) await trial('plain', cpuRate, trialSeconds, hold, true);
  }
  return { mem, best, ladder };
}

/** Each system's figures from the trials, and the rig/plain ratios. */
function benchFigures({ trials, mem, best }: Measured, generatorCores: number) {
  const figures = trials.map((t) => ({ ...t, sustained: t.problems.length === 0 }));
  const cpuRate = comparisonRate(figures);
  const fig = (s: System) => {
    const t = mem[s];
    const held = t ? Math.max(t.connected - t.failed, 0) : 0;
    return {
      rate: best[s],
      perCoreRate: best[s] !== undefined ? best[s]! / generatorCores : undefined,
      cpuMsPerVuser: cpuMsPerVuserAt(figures, s, cpuRate),
      cpuMsPerVuserWithoutSpin: s === 'plain' ? cpuMsPerVuserAt(figures, s, cpuRate, true) : undefined,
      rssPerVuserKB: t && t.peakRssBytes !== undefined && t.baseRssBytes !== undefined && held ? kb((t.peakRssBytes - t.baseRssBytes) / held) : undefined,
      startupSeconds: median(trials.filter((x) => x.system === s && !x.withoutSpin).map((x) => x.startupSeconds)),
      cpuPer1000: t && t.cpuSeconds !== undefined ? cpuSecondsPerThousand(t.cpuSeconds, t.created) : undefined,
      baseRssMB: t?.baseRssBytes !== undefined ? t.baseRssBytes / 2 ** 20 : undefined,
      targetPerVuserKB: t && t.targetPeakRss && t.targetBaseRss && t.targetPeakConnections ? kb((t.targetPeakRss - t.targetBaseRss) / t.targetPeakConnections) : undefined,
      held,
    };
  };
  const plain = fig('plain');
  const rig = fig('rig');
  const ratios: BenchRatios = {
    perCoreArrivalRate: ratioOf(rig.perCoreRate, plain.perCoreRate),
    cpuMsPerVuser: ratioOf(rig.cpuMsPerVuser, plain.cpuMsPerVuserWithoutSpin),
    cpuMsPerVuserAsRun: ratioOf(rig.cpuMsPerVuser, plain.cpuMsPerVuser),
    memoryPerHeldVuser: ratioOf(rig.rssPerVuserKB, plain.rssPerVuserKB),
    startupSeconds: ratioOf(rig.startupSeconds, plain.startupSeconds),
  };
  return { cpuRate, plain, rig, ratios };
}

/** The printed table of figures, the ceilings and the bench's bounds. */
function figureLines(set: BenchSettings, measured: Measured, figs: ReturnType<typeof benchFigures>, generatorCores: number, began: number): string[] {
  const { plain, rig, cpuRate } = figs;
  const { pin } = set;
  const extraStartup = rig.startupSeconds !== undefined && plain.startupSeconds !== undefined ? rig.startupSeconds - plain.startupSeconds : undefined;
  const rows: Array<[string, number | undefined, number | undefined, string]> = [
    ['highest sustained arrival rate (vusers/s)', plain.rate, rig.rate, ''],
    [`  per generator core (${generatorCores} core${generatorCores === 1 ? '' : 's'})`, plain.perCoreRate, rig.perCoreRate, `goal ≥ ${GOALS.perCoreArrivalRate.atLeast}`],
    [`CPU ms per vuser at ${cpuRate ?? 'n/a'}/s (arrival window)`, plain.cpuMsPerVuser, rig.cpuMsPerVuser, 'plain as it runs: its timer spin included'],
    ['  against plain without its timer spin', plain.cpuMsPerVuserWithoutSpin, rig.cpuMsPerVuser, `goal ≤ ${GOALS.cpuMsPerVuser.atMost}`],
    ['generator RSS per held vuser (KB)', plain.rssPerVuserKB, rig.rssPerVuserKB, `goal ≤ ${GOALS.memoryPerHeldVuser.atMost}`],
    ['start-up: command → first vuser (s)', plain.startupSeconds, rig.startupSeconds, `rig − plain ${f2(extraStartup)} s, goal ≤ ${GOALS.startupExtraSeconds.atMost} s`],
    ['CPU-seconds per 1,000 vusers (memory trial)', plain.cpuPer1000, rig.cpuPer1000, ''],
    ['load processes RSS before load (MB)', plain.baseRssMB, rig.baseRssMB, ''],
    ['target RSS per held vuser (KB)', plain.targetPerVuserKB, rig.targetPerVuserKB, ''],
  ];
  return [
    '',
    `${'figure'.padEnd(46)}${'plain'.padStart(10)}${'rig'.padStart(10)}${'rig/plain'.padStart(11)}`,
    ...rows.map(([name, p, r, goal]) => `${name.padEnd(46)}${f1(p).padStart(10)}${f1(r).padStart(10)}${f2(ratioOf(r, p)).padStart(11)}  ${goal}`),
    '',
    ...ceilings(measured.ladder, measured.best, pin),
    ...(pin && rig.perCoreRate !== undefined
      ? [`capacity model: the rig's sustained rate per generator core is ${f1(rig.perCoreRate)}/s (MEASURED.arrivalsPerCorePerSecond in scripts/core/capacity-figures.ts)`]
      : []),
    '',
    `bounds: ladder ${set.rates.join(',')}/s, ${set.trialSeconds}-s trials${set.repeat > 1 ? `, ${set.repeat} per rate (sustained only if every one was)` : ''} (a rate is sustained with < 1% failed and ≥ 99% of planned vusers created);` +
      ` memory/CPU at ${set.memRate}/s × ${set.memSeconds} s (${plain.held} / ${rig.held} held); ${((Date.now() - began) / 60000).toFixed(1)} min;` +
      ` load avg now ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`,
  ];
}

async function main(): Promise<void> {
  if (helpRequested(process.argv.slice(2))) {
    process.stdout.write(`${BENCH_USAGE}\n`);
    return;
  }
  const set = benchSettings();
  const { pin, workers } = set;
  const began = Date.now();
  const budgetLeft = () => Date.now() - began < set.budgetMs - 60_000;

  // A target on another host (--target) leaves this machine's cores to the generators; the default is the
  // reference target on the same cores (or its own with --pin), whose CPU is then read too.
  if (set.targetUrl) await checkReachable(set.targetUrl);
  const target: TargetHandle = set.targetUrl
    ? { url: set.targetUrl.replace(/\/+$/, ''), stop: async () => undefined }
    : await startLocalTarget({ appDir: path.join(ROOT, 'target-stack', 'app'), port: 0, workers });
  let running: ChildProcess | undefined;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-bench-'));
  const targetSampler = target.pid !== undefined ? new TreeSampler(target.pid) : undefined;
  const stopAll = async () => {
    const trial = running;
    if (trial && trial.exitCode === null && trial.signalCode === null) {
      // Its scratch files go with the work folder: wait (bounded) until it has stopped writing them.
      const gone = new Promise<void>((resolve) => trial.once('exit', () => resolve()));
      kill(trial);
      await Promise.race([gone, new Promise<void>((resolve) => setTimeout(resolve, 15_000).unref())]);
    }
    targetSampler?.stop();
    await target.stop();
    fs.rmSync(work, { recursive: true, force: true });
  };
  // Whatever else ends the bench (an uncaught error, a write to a closed stdout: `npm run bench | head`), the running
  // trial's process group goes with it: it runs detached, and plain Artillery would go on to the end of its phases.
  // (The target stops itself when the bench is gone: EXIT_WITH_PARENT.)
  process.once('exit', () => {
    const trial = running;
    if (!trial?.pid || trial.exitCode !== null || trial.signalCode !== null) return;
    try {
      process.kill(-trial.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  });
  // Ctrl-C or a kill: the running trial's process group (started detached) and the target go with the bench.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stopAll().finally(() => process.exit(130)));
  try {
    if (pin?.targetCpus && target.pid !== undefined) pinTree(target.pid, pin.targetCpus);
    targetSampler?.start();
    const generatorCores = pin ? pin.generatorCpus.length : os.availableParallelism();
    const where = pin
      ? `target on CPU ${pin.targetCpus ? cpuListText(pin.targetCpus) : '(elsewhere)'}, generators (either system) on CPU ${cpuListText(pin.generatorCpus)}`
      : 'target and generators share every core';
    log(`bench: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.cpus()[0]?.model ?? ''}; target ${target.url} (${set.targetUrl ? 'given with --target' : `reference target, ${workers} worker${workers === 1 ? '' : 's'}`}); ${where}; load avg ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);

    const trials: TrialResult[] = [];
    const trial: RunTrial = async (system, rate, seconds, holdSeconds, withoutSpin) => {
      const t = await runTrial(system, {
        target: target.url, rate, seconds, hold: holdSeconds, work, log, withoutSpin,
        ...(targetSampler ? { targetSampler } : {}),
        ...(pin ? { generatorCpus: pin.generatorCpus } : {}),
        onStart: (child) => (running = child),
      });
      trials.push(t);
      log(`  ${(t.withoutSpin ? 'plain without timer spin' : t.system).padEnd(5)} ${String(t.rate).padStart(4)}/s × ${t.seconds}s: created ${t.created}/${t.planned}, failed ${t.failed}, connect p99 ${f1(t.connectP99)} ms` +
        `${t.problems.length ? ` — NOT sustained (${t.problems.join('; ')})` : ' — sustained'} [${t.wallSeconds.toFixed(0)} s, start-up ${f1(t.startupSeconds)} s${cpuNote(t.cpu)}]`);
      return t;
    };
    const measured: Measured = { trials, ...(await measure(set, trial, budgetLeft, trials)) };
    const figs = benchFigures(measured, generatorCores);
    process.stdout.write(`${figureLines(set, measured, figs, generatorCores, began).join('\n')}\n`);
    if (set.json) {
      const machine = { cores: os.cpus().length, memoryBytes: os.totalmem(), model: os.cpus()[0]?.model };
      const { ratios, plain, rig } = figs;
      writeFileAtomic(String(set.json), JSON.stringify({ at: new Date().toISOString(), machine, pin: pin ?? null, goals: GOALS, ratios, plain, rig, trials }, null, 2));
    }
  } finally {
    await stopAll();
  }
}

runEntry('npm run bench', async () => (await main(), process.exitCode === undefined ? 0 : Number(process.exitCode)), (err) => {
  // Bad input (a flag, an unreachable --target, --pin without taskset) is one line and exit 2; anything else is the bench failing.
  const usage = err instanceof UsageError || err instanceof PinError;
  process.stderr.write(`bench: ${usage ? (err as Error).message : err instanceof Error ? err.stack : String(err)}\n`);
  return usage ? 2 : 3;
});
