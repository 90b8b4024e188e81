/**
 * The local platform, composed in one place: reads the machine's limits, plans, starts the reference
 * target (unless --target), runs the orchestrator with local adapters, writes the report, and always
 * stops what it started.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { localStore } from '../load-generators/lib/run-store';
import { localFleet } from './adapters/local-fleet';
import { TargetHandle, checkReachable, startLocalTarget } from './adapters/local-target';
import { readMachineLimits } from './adapters/system-limits';
import { GeneratorLimits, PlanError, planLoad } from './core/plan';
import { ExitCode, RigError, UsageError } from './errors';
import { GeneratorSpec, orchestrate } from './orchestrator';
import type { RunOptions } from './options';
import { startTargetSampler } from './adapters/target-metrics';
import { RunSummary, formatSummaryTable } from './report/summary';
import { writeReport } from './report/write';
import { applyOptions, expectedSessionSeconds, loadScenario } from './scenario';

/** What the local run needs from its caller (the CLI or a test). */
export interface LocalRunContext {
  /** The repository root (scenarios, agent, target app live under it). */
  readonly root: string;
  readonly log: (line: string) => void;
  /** Environment passed to the local target (fault injection variables are read here, at the edge). */
  readonly env: NodeJS.ProcessEnv;
}

/** Memory a held vuser costs a local generator (socket.io-client + ws), until `npm run bench` measures it. */
export const GENERATOR_BYTES_PER_VUSER = 80 * 1024;
/** Files a load process keeps for itself (Node, Artillery, logs) besides its sockets. */
const RESERVED_FILES = 300;
/** Sockets one target worker should hold at most, as a share of its open-file limit. */
const TARGET_WORKER_FILL = 0.8;

/** Fault-injection variables forwarded to the local reference target. */
const TARGET_ENV_KEYS = ['FAULT_DELIVERY_DELAY_MS', 'FAULT_WITHHOLD_FRACTION', 'FAULT_COOKIE_503_FRACTION', 'FAULT_SEED'];

function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/** Loopback source address of the n-th load process (127.0.0.10 …): each gets its own port range. */
export function loopbackSourceAddress(n: number): string {
  return `127.0.${1 + Math.floor(n / 200)}.${10 + (n % 200)}`;
}

/** Refuses a run folder that holds files or cannot be created, before anything starts. */
function checkRunDir(dir: string): void {
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
    throw new UsageError(`--out ${dir} already holds files; pass a new or empty folder`);
  }
  let parent = path.dirname(dir);
  while (!fs.existsSync(parent)) parent = path.dirname(parent);
  try {
    fs.accessSync(parent, fs.constants.W_OK);
  } catch {
    throw new UsageError(`cannot write the run folder ${dir} (${parent} is not writable); pass a writable --out`);
  }
}

function prepareRunDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    throw new UsageError(`cannot write the run folder ${dir} (${(err as NodeJS.ErrnoException).code ?? err}); pass a writable --out`);
  }
}

/** Runs one local load test; resolves with the summary and the exit code. */
export async function runLocal(options: RunOptions, ctx: LocalRunContext): Promise<{ summary: RunSummary; exitCode: number }> {
  const scenario = loadScenario(options.scenario, path.join(ctx.root, 'load-generators', 'scenarios'));
  const machine = readMachineLimits();
  const limits: GeneratorLimits = {
    openFiles: Math.max(1, machine.openFiles - RESERVED_FILES),
    ephemeralPorts: machine.ephemeralPorts,
    sourceAddresses: 1,
    processes: 1,
    memoryBytes: Math.floor(machine.freeMemoryBytes * 0.5),
    bytesPerVuser: GENERATOR_BYTES_PER_VUSER,
    socketsPerVuser: 1,
  };
  // Plan on the script with a placeholder target: planning needs only phases and the session length.
  const planned = applyOptions(scenario.script, options, options.target ?? 'http://127.0.0.1');
  const phases = planned.config.phases ?? [];
  const phaseSeconds = phases.reduce((a, p) => a + Number(p.duration ?? p.pause ?? 0), 0);
  const sessionSeconds = expectedSessionSeconds(planned) ?? phaseSeconds;
  let plan;
  try {
    plan = planLoad({ phases, generators: options.generators, limits, sessionSeconds });
  } catch (err) {
    if (err instanceof PlanError) throw new UsageError(err.message);
    throw err;
  }

  const runId = newRunId(new Date());
  const runDir = path.resolve(options.out ?? path.join(ctx.root, 'runs', runId));
  checkRunDir(runDir);
  let target: TargetHandle | undefined;
  const cleanups: Array<() => Promise<void>> = [];
  let interruptCount = 0;
  let onInterrupt: () => void = () => undefined;
  const interrupted = new Promise<void>((resolve) => {
    onInterrupt = resolve;
  });
  const handler = () => {
    interruptCount++;
    if (interruptCount === 1) {
      ctx.log('interrupted: stopping generators and writing the partial report (Ctrl-C again to force)');
      onInterrupt();
    } else {
      ctx.log('forced stop');
      void Promise.all(cleanups.map((c) => c().catch(() => undefined))).finally(() => process.exit(ExitCode.interrupted));
    }
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  try {
    if (options.target) {
      await checkReachable(options.target);
      target = { url: options.target, stop: async () => undefined };
    } else {
      const workers = Math.max(2, Math.ceil(plan.peakConcurrent / (machine.openFiles * TARGET_WORKER_FILL)));
      const env: Record<string, string> = {
        ...Object.fromEntries(TARGET_ENV_KEYS.filter((k) => ctx.env[k] !== undefined).map((k) => [k, String(ctx.env[k])])),
        RIG_RUN_ID: runId,
      };
      target = await startLocalTarget({ appDir: path.join(ctx.root, 'target-stack', 'app'), port: options.targetPort, workers, env });
      ctx.log(`local reference target: ${target.url} (${workers} workers)`);
    }
    const t = target;
    cleanups.push(() => t.stop());
    prepareRunDir(runDir);
    ctx.log(`run ${runId}: ${plan.totalArrivals} vusers over ${plan.generators.length} generator(s) (${plan.generators.map((g) => g.arrivals).join('/')}), run folder ${runDir}`);

    const script = applyOptions(scenario.script, options, target.url);
    let processIndex = 0;
    const generators: GeneratorSpec[] = plan.generators.map((g) => ({
      id: `g${String(g.index + 1).padStart(2, '0')}`,
      processes: [{ script: { ...script, config: { ...script.config, phases: g.phases } }, sourceAddress: loopbackSourceAddress(processIndex++) }],
    }));
    const store = localStore(runDir);
    const targetSampler = startTargetSampler({ url: target.url, store });
    cleanups.push(() => targetSampler.stop());
    const fleet = localFleet({ agentScript: path.join(ctx.root, 'load-generators', 'agent.js'), runDir, runId });
    cleanups.push(() => fleet.stop());
    const clock = { now: () => Date.now(), sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };
    const outcome = await orchestrate(
      {
        runId,
        scriptDir: scenario.dir,
        plan,
        generators,
        expectedSeconds: Math.ceil(phaseSeconds + sessionSeconds),
        heartbeatTimeoutMs: 30_000,
        readyTimeoutMs: 120_000,
        startLeadMs: 1500,
        meta: { platform: 'local', target: target.url, scenario: scenario.name, options },
      },
      { store, fleet, clock, progress: (e) => ctx.log(e.kind === 'period' ? e.line : `· ${e.message}`), interrupted },
    );

    await targetSampler.stop();
    const { summary: finalSummary } = await writeReport(store, {
      runId,
      platform: 'local',
      target: target.url,
      scenario: scenario.name,
      plan,
      generatorIds: generators.map((g) => g.id),
      startAt: outcome.startAt,
      endedAt: outcome.endedAt,
      interrupted: outcome.interrupted,
      timedOut: outcome.timedOut,
      lostGenerators: outcome.lostGenerators,
      portRange: machine.ephemeralPorts,
      ensure: [...options.ensure, ...ensureFromScript(scenario.script)],
    });
    ctx.log(`\n${formatSummaryTable(finalSummary)}\n\nreport: ${path.join(runDir, 'report.html')} (data: report.json)`);
    return { summary: finalSummary, exitCode: exitCodeOf(finalSummary, options.maxErrorRate) };
  } finally {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  }
}

/** The scenario's own `config.ensure` conditions (Artillery's ensure plugin syntax). */
export function ensureFromScript(script: { config: { ensure?: unknown } }): string[] {
  const e = script.config.ensure as { conditions?: Array<{ expression?: string }> } | undefined;
  return (e?.conditions ?? []).map((c) => c.expression).filter((x): x is string => typeof x === 'string');
}

/** The documented exit code of a finished run. */
export function exitCodeOf(s: RunSummary, maxErrorRate: number): number {
  if (s.status === 'interrupted') return ExitCode.interrupted;
  if (s.status === 'partial' || s.status === 'timed-out') return ExitCode.rigFailure;
  if (s.failedRatio > maxErrorRate) return ExitCode.thresholdsBreached;
  if (s.thresholds.some((t) => !t.ok)) return ExitCode.thresholdsBreached;
  return ExitCode.ok;
}

export { RigError };
