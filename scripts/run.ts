/**
 * One load test, the same on every platform: plan → target → run folder → orchestrate → report.
 * Always stops what it started (target, fleet), on success, failure or Ctrl-C.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { localStore } from '../load-generators/lib/run-store';
import { createRunFolder, removeFolders } from './adapters/run-folder';
import { startTargetSampler } from './adapters/target-metrics';
import { PlanError, estimateArrivals, planLoad, splitPhases } from './core/plan';
import { redactOptions, redactUrl, storedCredentialsProblem } from './core/redact';
import { ExitCode, UsageError } from './errors';
import { GeneratorSpec, orchestrate } from './orchestrator';
import type { Platform } from './platforms/platform';
import { loadDifferences } from './report/compare';
import { writeComparison } from './report/compare-html';
import { decideResult } from './report/result';
import { preflightHere, preflightSpec } from './preflight';
import { plannedLoad, readRunFolder } from './report/read-run';
import { formatSummaryTable } from './report/summary';
import { writeReport } from './report/write';
import { RunInput } from './run-input';
import { ArtilleryScript, applyOptions, expectedSessionSeconds, processScript } from './scenario';
import { maxVusersNotes, payloadNotes, payloadShares } from './fan-out';
import type { Phase } from './core/plan';
import type { RunSummary } from './report/types';
import { RegionalPlan, planRegions } from './core/regions';
import { RegionalPlatform, isRegional } from './platforms/aws/multi-region';
import { formatRegionTable, regionsOf } from './report/regions';

/** What a run needs from its caller (the CLI or a test). */
export interface RunContext {
  /** The repository root (scenarios, agent, target app live under it). */
  readonly root: string;
  readonly log: (line: string) => void;
  /** Registers the run's interrupt handler (SIGINT/SIGTERM); returns its removal. */
  readonly onInterrupt: (handler: () => void) => () => void;
  /** Ends the process at once with this code (a second Ctrl-C, once the cleanups ran): the entry point's process.exit. */
  readonly exit: (code: number) => never;
  /** How long agents keep running without the orchestrator's heartbeat before they stop themselves. */
  readonly heartbeatTimeoutMs?: number;
  /** The built-in connect flow's token (RIG_SECRET_AUTH_TOKEN), which the local preflight sends as a vuser would. */
  readonly authToken?: string;
  /** Told the run id and folder once the folder exists (so a failure can still name them). */
  readonly onRunStarted?: (run: { runId: string; runDir: string }) => void;
}

function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/**
 * One spec per generator that has vusers to run, each with one load process per core that has a share:
 * a process or generator with nothing to do is not started (it would only wait, and end as "lost").
 */
export function generatorSpecs(plan: { generators: ReadonlyArray<{ index: number; phases: Phase[] }> }, script: ArtilleryScript, platform: Pick<Platform, 'limits' | 'sourceAddress'> & Partial<Pick<RegionalPlatform, 'generatorTarget'>>): GeneratorSpec[] {
  const specs: GeneratorSpec[] = [];
  // Each load process (one per core) runs its own exact share of the generator's slice, and its share
  // of every sequenced payload (scripts/fan-out.ts).
  const perProcess = plan.generators.map((g) => splitPhases(g.phases, platform.limits.processes));
  const shares = payloadShares(perProcess);
  for (const [gi, g] of plan.generators.entries()) {
    const processes = (perProcess[gi] ?? [])
      .map((procPhases, k) => ({ procPhases, k }))
      .filter(({ procPhases }) => estimateArrivals(procPhases) > 0)
      .map(({ procPhases, k }) => ({
        script: processScript(retarget(script, platform.generatorTarget?.(g.index)), procPhases, shares[gi]?.[k]),
        sourceAddress: platform.sourceAddress(gi, k),
      }));
    if (processes.length > 0) specs.push({ id: `g${String(g.index + 1).padStart(2, '0')}`, processes });
  }
  return specs;
}

/** The script pointed at another URL (generators in another region load the target's internet-facing URL). */
function retarget(script: ArtilleryScript, target: string | undefined): ArtilleryScript {
  return target === undefined ? script : { ...script, config: { ...script.config, target } };
}

/** What the fan-out changes, printed before the start: the maxVusers split and how sequenced payloads are read. */
function fanOutNotes(plan: { generators: ReadonlyArray<{ phases: Phase[] }> }, script: ArtilleryScript, processes: number): string[] {
  const perProcess = plan.generators.map((g) => splitPhases(g.phases, processes));
  return [...maxVusersNotes(script.config.phases ?? [], perProcess), ...payloadNotes(script.config.payload, payloadShares(perProcess))];
}

/** The documented exit code of a finished run (decided with its reasons in scripts/report/result.ts). */
export function exitCodeOf(s: RunSummary, maxErrorRate: number): number {
  return decideResult(s, maxErrorRate).exitCode;
}

/** Runs one load test on a platform, from input checked by prepareRunInput; resolves with the summary and the exit code. */
export async function runLoadTest(input: RunInput, platform: Platform, ctx: RunContext): Promise<{ summary: RunSummary; exitCode: number }> {
  const { options, scenario, baseline } = input;
  // Plan on the script with a placeholder target: planning needs only phases and the session length.
  const planned = applyOptions(scenario.script, options, options.target ?? 'http://127.0.0.1');
  const phases = planned.config.phases ?? [];
  const phaseSeconds = phases.reduce((a, p) => a + Number(p.duration ?? p.pause ?? 0), 0);
  const sessionSeconds = expectedSessionSeconds(planned) ?? phaseSeconds;
  let plan;
  let regional: RegionalPlan | undefined;
  try {
    // Several generator regions: the profile split by weight first, then each region's across its generators.
    if (isRegional(platform)) regional = planRegions({ phases, sessionSeconds, ...(options.generators !== undefined ? { generators: options.generators } : {}), regions: platform.regions });
    plan = regional?.plan ?? planLoad({
      phases,
      generators: options.generators,
      limits: platform.limits,
      sessionSeconds,
      maxGenerators: platform.maxGenerators,
      ...(platform.arrivalCapacity ? { arrivalCapacity: platform.arrivalCapacity } : {}),
    });
  } catch (err) {
    if (err instanceof PlanError) throw new UsageError(err.message);
    throw err;
  }
  if (regional && isRegional(platform)) platform.useRegions(regional);
  if (platform.maxConcurrent !== undefined && plan.peakConcurrent > platform.maxConcurrent.vusers) {
    throw new UsageError(
      `${plan.peakConcurrent.toLocaleString('en-US')} vusers at once is more than this machine holds (~${platform.maxConcurrent.vusers.toLocaleString('en-US')}: ${platform.maxConcurrent.why}); ask for fewer or run on --platform aws`,
    );
  }
  // Before anything starts: what the plan cannot promise (arrivals faster than the generators create them).
  for (const w of plan.warnings) ctx.log(`warning: ${w}`);
  const baselineDifferences = baseline ? loadDifferences(baseline.compared.load, plannedLoad(scenario.name, plan.generators, options)) : [];
  if (baseline && baselineDifferences.length) {
    ctx.log(`warning: baseline ${baseline.report.runId} ran a different scenario or load (${baselineDifferences.join('; ')}): the comparison will say so, and --ensure expressions that read baseline.* fail`);
  }

  const credentials = storedCredentialsProblem(platform.name, options.target);
  if (credentials) throw new UsageError(credentials);

  const runId = newRunId(new Date());
  const runDir = path.resolve(options.out ?? path.join(ctx.root, 'runs', runId));
  const createdDirs = createRunFolder(runDir);
  ctx.onRunStarted?.({ runId, runDir });
  const cleanups: Array<() => Promise<void>> = [];
  const runCleanups = async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  };
  let interruptCount = 0;
  let signalInterrupt: () => void = () => undefined;
  const interrupted = new Promise<void>((resolve) => {
    signalInterrupt = resolve;
  });
  const removeHandler = ctx.onInterrupt(() => {
    interruptCount++;
    if (interruptCount === 1) {
      ctx.log('interrupted: stopping generators and writing the partial report (Ctrl-C again to force)');
      signalInterrupt();
    } else {
      ctx.log('forced stop');
      void runCleanups().finally(() => ctx.exit(ExitCode.interrupted));
    }
  });
  try {
    const target = await platform.prepareTarget(plan, runId);
    cleanups.push(() => target.stop());
    if (platform.finish) cleanups.unshift(() => platform.finish?.() ?? Promise.resolve());
    ctx.log(`run ${runId}: ${plan.totalArrivals} vusers over ${plan.generators.length} generator(s) (${plan.generators.map((g) => g.arrivals).join('/')}), run folder ${runDir}`);
    if (regional) ctx.log(`regions: ${regional.regions.map((r) => `${r.region} ${r.plan.totalArrivals} vusers on ${r.plan.generators.length} generator(s)`).join(', ')}; one start instant for all`);

    // Local agents get a credentialed target URL through their environment; the slices store it redacted.
    const secretTarget = platform.name === 'local' && redactUrl(target.url) !== target.url;
    const script = applyOptions(scenario.script, options, secretTarget ? redactUrl(target.url) : target.url);
    // Reachability before anything scales or starts: one probe, one line naming what failed (scripts/preflight.ts).
    const probe = preflightSpec(script, target.url, scenario.builtIn);
    await (platform.preflight ? platform.preflight(probe) : preflightHere(probe, ctx.log, ctx.authToken));
    const generators = generatorSpecs(plan, script, platform);
    const idle = plan.generators.length - generators.length;
    if (idle > 0) ctx.log(`${idle} generator(s) have no vusers to run (${plan.totalArrivals} in all) and are not started`);
    for (const line of fanOutNotes(plan, script, platform.limits.processes)) ctx.log(line);
    const store = platform.openStore(runId, runDir);
    // Target-side figures (the reference target's /metrics; silently none for targets without it).
    const targetSampler = startTargetSampler({ url: target.url, store });
    cleanups.push(() => targetSampler.stop());
    const fleet = platform.createFleet(runId, store);
    cleanups.push(() => fleet.stop());
    const clock = { now: () => Date.now(), sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };
    const outcome = await orchestrate(
      {
        runId,
        scriptDir: scenario.dir,
        plan,
        generators,
        expectedSeconds: Math.ceil(phaseSeconds + sessionSeconds),
        heartbeatTimeoutMs: ctx.heartbeatTimeoutMs ?? 30_000,
        readyTimeoutMs: platform.name === 'aws' ? 600_000 : 120_000,
        // Locally the start instant reaches every load thread within one agent poll (50 ms) and one plugin poll
        // (10 ms) of being written; 400 ms covers a busy machine without making every run wait longer than plain.
        startLeadMs: platform.name === 'aws' ? 5000 : 400,
        meta: { platform: platform.name, target: redactUrl(target.url), scenario: scenario.name, options: redactOptions(options) },
        ...(secretTarget ? { secretTargetUrl: target.url } : {}),
      },
      { store, fleet, clock, progress: (e) => ctx.log(e.kind === 'period' ? e.line : `· ${e.message}`), interrupted },
    );
    const cloudwatch = outcome.startAt && platform.collectExtra ? await platform.collectExtra({ start: outcome.startAt, end: outcome.endedAt }) : undefined;
    await targetSampler.stop();
    if (platform.syncToRunDir) await platform.syncToRunDir(store, runDir);
    const { summary } = await writeReport(localStore(runDir), {
      runId,
      platform: platform.name,
      target: redactUrl(target.url),
      scenario: scenario.name,
      plan,
      ...(options.vusers !== undefined ? { requestedVusers: options.vusers } : {}),
      generatorIds: generators.map((g) => g.id),
      startAt: outcome.startAt,
      endedAt: outcome.endedAt,
      interrupted: outcome.interrupted,
      timedOut: outcome.timedOut,
      lostGenerators: outcome.lostGenerators,
      portRange: platform.portRange,
      ensure: input.ensure,
      maxErrorRate: options.maxErrorRate,
      ...(baseline ? { baseline: { runId: baseline.report.runId, aggregate: baseline.report.aggregate, differences: baselineDifferences } } : {}),
      ...(cloudwatch ? { cloudwatch } : {}),
      ...(regional ? { regions: regionsOf(regional) } : {}),
    });
    if (baseline) {
      const { table, file } = writeComparison(baseline, readRunFolder(runDir, 'run'));
      ctx.log(`\n${table}\ncomparison: ${file}`);
    }
    if (summary.regions) ctx.log(`\n${formatRegionTable(summary.regions)}`);
    ctx.log(`\n${formatSummaryTable(summary, path.join(runDir, 'report.html'))}`);
    return { summary, exitCode: summary.result.exitCode };
  } finally {
    removeHandler();
    await runCleanups();
    removeFolders(createdDirs);
  }
}
