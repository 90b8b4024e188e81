/**
 * One load test, the same on every platform: plan → target → run folder → orchestrate → report.
 * Always stops what it started (target, fleet), on success, failure or Ctrl-C.
 */
import * as path from 'node:path';
import { CONTROL, DEFAULTS } from '../load-generators/lib/run-protocol';
import type { AbortControl } from '../load-generators/lib/run-protocol';
import { localStore } from '../load-generators/lib/run-store';
import { createRunFolder, emptyFolder, removeFolders } from './adapters/run-folder';
import { estimatePeakConcurrent } from './core/capacity';
import { countsList } from './core/counts-list';
import { PlanError, planLoad, profileSeconds } from './core/plan';
import type { GeneratorSlice, Plan } from './core/plan';
import { redactOptions, redactUrl, storedCredentialsProblem } from './core/redact';
import { ExitCode, InterruptedBeforeStart, UsageError } from './errors';
import { GeneratorSpec, RunOutcome, orchestrate } from './orchestrator';
import { type OpenRun, type Platform, type RegionalPlatform, isRegional } from './platforms/platform';
import { loadDifferences } from './report/compare';
import { writeComparison } from './report/compare-html';
import { decideResult } from './report/result';
import { preflightSpec } from './preflight';
import { plannedLoad, readRunFolder } from './report/read-run';
import { formatSummaryTable } from './report/summary';
import { suppressedMetricNames } from './report/artillery-format';
import { writeReport } from './report/write';
import { RunInput } from './run-input';
import { ArtilleryScript, expectedSessionSeconds, processScript, withTarget } from './scenario';
import { withScriptPlaceVariables } from './config-env';
import { chosenEnvironment } from './phase-origin';
import { beforeAfterNote, durationNotes, logStepNote, maxVusersNotes, payloadNotes } from './fan-out';
import type { RunSummary } from './report/types';
import { RegionalPlan, planRegions } from './core/regions';
import { formatRegionTable, regionsOf } from './report/regions';

/** What a run needs from its caller (the CLI or a test). */
export interface RunContext {
  /** The repository root (scenarios, agent, target app live under it). */
  readonly root: string;
  readonly log: (line: string) => void;
  /** Registers the run's interrupt handler (SIGINT/SIGTERM); returns its removal. */
  readonly onInterrupt: (handler: () => void) => () => void;
  /**
   * Ends the process at once with this code (a second Ctrl-C, once the cleanups ran): the entry point's process.exit,
   * after it wrote what it writes for a run that ended with `error` and no report (the CLI: its --output/--json summary).
   */
  readonly exit: (code: number, error: string) => never;
  /** How long agents keep running without the orchestrator's heartbeat before they stop themselves. */
  readonly heartbeatTimeoutMs?: number;
  /** Told the run id and folder once the folder exists (so a failure can still name them). */
  readonly onRunStarted?: (run: { runId: string; runDir: string }) => void;
}

/** The interrupt before the first vuser, as said: before or after the generators were launched. */
function interruptedBeforeStart(launched: boolean): InterruptedBeforeStart {
  return launched ? new InterruptedBeforeStart('interrupted before the first vuser; the generators were stopped, nothing was measured') : new InterruptedBeforeStart();
}

/** How long an error before the start waits for a Ctrl-C that may have caused it (see runLoadTest). */
const SIGNAL_GRACE_MS = 200;

/**
 * One spec per generator that has vusers to run, each with one load process per core that has a share:
 * a process or generator with nothing to do is not started (it would only wait, and end as "lost").
 * Source addresses are the built-in scenarios' (`bindsSource`): only the rig's own processors bind one; a user's
 * script connects through Artillery's engines from the address the OS picks, and its processes are marked so (the
 * agent then counts their ports per destination, not on an address they never use).
 */
export function generatorSpecs(plan: { readonly generators: ReadonlyArray<Pick<GeneratorSlice, 'index' | 'processes'>> }, script: ArtilleryScript, platform: Pick<Platform, 'sourceAddress'> & Partial<Pick<RegionalPlatform, 'generatorTarget'>>, bindsSource = true): GeneratorSpec[] {
  const specs: GeneratorSpec[] = [];
  // Each load process runs its exact share as planned (phases and payload rows: scripts/core/split.ts).
  for (const g of plan.generators) {
    const own = retarget(script, platform.generatorTarget?.(g.index));
    const processes = g.processes
      .filter((p) => p.arrivals > 0)
      .map((p) => {
        const perProcess = processScript(own, p.phases, p.payload);
        if (!bindsSource) return { script: perProcess, osChoice: true as const };
        const sourceAddress = platform.sourceAddress(g.index, p.index);
        return { script: perProcess, ...(sourceAddress !== undefined ? { sourceAddress } : {}) };
      });
    if (processes.length > 0) specs.push({ id: `g${String(g.index + 1).padStart(2, '0')}`, processes });
  }
  return specs;
}

/** The script pointed at another URL (generators in another region load the target's internet-facing URL). */
function retarget(script: ArtilleryScript, target: string | undefined): ArtilleryScript {
  return target === undefined ? script : { ...script, config: { ...script.config, target } };
}

/**
 * What the fan-out changes, printed before the start: fractional durations, the maxVusers split, how sequenced
 * payloads are read; for a user's script, its before/after run once per load process and where its log steps go.
 */
function fanOutNotes(plan: { readonly generators: ReadonlyArray<Pick<GeneratorSlice, 'processes'>> }, script: ArtilleryScript, own: ArtilleryScript | undefined, runDir: string, environment?: string): string[] {
  const perProcess = plan.generators.map((g) => g.processes.map((p) => p.phases));
  const shares = plan.generators.map((g) => g.processes.map((p) => p.payload));
  const running = plan.generators.reduce((n, g) => n + g.processes.filter((p) => p.arrivals > 0).length, 0);
  const scriptNotes = own ? [beforeAfterNote(own, running), logStepNote(own, runDir)].filter((n): n is string => n !== undefined) : [];
  // A phase -e NAME brought in is named where it is written (scripts/phase-origin.ts).
  const env = own ? chosenEnvironment(own.config, environment) : undefined;
  return [...durationNotes(own?.config.phases ?? [], script.config.phases ?? [], env), ...maxVusersNotes(script.config.phases ?? [], perProcess, env), ...payloadNotes(script.config.payload, shares), ...scriptNotes];
}

/** The documented exit code of a finished run (decided with its reasons in scripts/report/result.ts). */
export function exitCodeOf(s: RunSummary, maxErrorRate: number): number {
  return decideResult(s, maxErrorRate).exitCode;
}

/** Runs one load test on a platform, from input checked by prepareRunInput; resolves with the summary and the exit code. */
export async function runLoadTest(input: RunInput, platform: Platform, ctx: RunContext): Promise<{ summary: RunSummary; exitCode: number }> {
  const { options, scenario, baseline } = input;
  // The flags were applied once (scripts/run-input.ts); planning needs only phases and the session length.
  const planned = input.script;
  const phases = planned.config.phases ?? [];
  let plan;
  let regional: RegionalPlan | undefined;
  let phaseSeconds: number;
  let sessionSeconds: number;
  try {
    // Durations as Artillery strings ("20m") count too: the run's deadline is never NaN.
    phaseSeconds = profileSeconds(phases);
    sessionSeconds = expectedSessionSeconds(planned) ?? phaseSeconds;
    // The whole machine's bound before the generator count's (a local plan of 10,000,000 also needs more generators
    // than the machine starts, and "more than this machine holds" is the line that helps).
    const peak = estimatePeakConcurrent(phases, sessionSeconds);
    if (platform.maxConcurrent !== undefined && peak > platform.maxConcurrent.vusers) {
      throw new UsageError(
        `${peak.toLocaleString('en-US')} vusers at once is more than this machine holds (~${platform.maxConcurrent.vusers.toLocaleString('en-US')}: ${platform.maxConcurrent.why}); ask for fewer or run on --platform aws`,
      );
    }
    // Several generator regions: the profile split by weight first, then each region's across its generators.
    if (isRegional(platform)) regional = planRegions({ phases, sessionSeconds, ...(options.generators !== undefined ? { generators: options.generators } : {}), regions: platform.regions });
    plan = regional?.plan ?? planLoad({
      phases,
      generators: options.generators,
      limits: platform.limits,
      sessionSeconds,
      maxGenerators: platform.maxGenerators,
      ...(platform.maxGeneratorsWhy !== undefined ? { maxGeneratorsWhy: platform.maxGeneratorsWhy } : {}),
      ...(platform.arrivalCapacity ? { arrivalCapacity: platform.arrivalCapacity } : {}),
    });
  } catch (err) {
    if (err instanceof PlanError) throw new UsageError(err.message);
    throw err;
  }
  if (regional && isRegional(platform)) platform.useRegions(regional);
  if (platform.oneSourceAddress && plan.peakConcurrent > platform.oneSourceAddress.vusers) {
    const { vusers, why } = platform.oneSourceAddress;
    ctx.log(
      `warning: ~${plan.peakConcurrent.toLocaleString('en-US')} vusers at once, but ${why}: one address holds ~${vusers.toLocaleString('en-US')} connections to one target address (90% of its ephemeral ports); past that, connects fail with EADDRNOTAVAIL and the verdict names them. Widen net.ipv4.ip_local_port_range, ask for fewer, or run on --platform aws`,
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

  const { runId } = input;
  const runDir = path.resolve(options.out ?? path.join(ctx.root, 'runs', runId));
  const createdDirs = createRunFolder(runDir);
  ctx.onRunStarted?.({ runId, runDir });
  let run: OpenRun | undefined;
  // Until the start instant, Ctrl-C stops what had started and leaves an empty run folder (nothing was measured);
  // once it is set, the partial report is written.
  let launched = false;
  let started = false;
  const interrupt = onInterrupt(ctx, runDir, () => launched, () => run?.close() ?? Promise.resolve(), () => {
    // Said in the run store at once (the orchestrator says it again when it stops): a forced stop that follows ends
    // the process before the orchestrator can, and `npm run report` reads the folder as interrupted, not as lost.
    void run?.store.put(CONTROL.abort, JSON.stringify({ at: Date.now(), reason: 'interrupted' } satisfies AbortControl)).catch(() => undefined);
  });
  const beforeLaunch = () => {
    if (interrupt.isInterrupted()) throw new InterruptedBeforeStart();
    launched = true;
  };
  try {
    run = await platform.open({ runId, runDir, plan, sessionSeconds, signal: interrupt.signal });
    if (interrupt.isInterrupted()) throw new InterruptedBeforeStart();
    const outcome = await executeRun(run, { input, platform, ctx, plan, regional, runId, runDir, phaseSeconds, sessionSeconds, interrupted: interrupt.interrupted, stopping: interrupt.signal, beforeLaunch, onStart: () => (started = true) });
    if (outcome.outcome.interrupted && !started) throw interruptedBeforeStart(launched);
    return await reportRun(run, { input, platform, ctx, plan, regional, runId, runDir, baselineDifferences, ...outcome });
  } catch (err) {
    // A Ctrl-C reaches the whole process group at once: the local target, an agent or a check's child may die of it
    // and its failure surface here a moment before this process's own handler has run. Before the start, an error
    // gets that moment (SIGNAL_GRACE_MS) so it is read as the interrupt it is, not as the target's or a generator's.
    if (!started && !interrupt.isInterrupted()) await new Promise((resolve) => setTimeout(resolve, SIGNAL_GRACE_MS));
    if (err instanceof InterruptedBeforeStart || (!started && interrupt.isInterrupted())) {
      await run?.close();
      emptyFolder(runDir);
      throw err instanceof InterruptedBeforeStart ? err : interruptedBeforeStart(launched);
    }
    throw err;
  } finally {
    interrupt.remove();
    await run?.close();
    removeFolders(createdDirs);
  }
}

/**
 * Ctrl-C once: the run stops and reports what it has (`interrupted` resolves, `signal` aborts: what is in flight before
 * the start, the preflight's probe, ends with it); twice: everything opened is closed and the process exits 130.
 */
function onInterrupt(ctx: RunContext, runDir: string, launched: () => boolean, closeRun: () => Promise<void>, markInterrupted: () => void): { interrupted: Promise<void>; signal: AbortSignal; isInterrupted: () => boolean; remove: () => void } {
  let count = 0;
  let hear: () => void = () => undefined;
  const interrupted = new Promise<void>((resolve) => {
    hear = resolve;
  });
  const abort = new AbortController();
  const remove = ctx.onInterrupt(() => {
    count++;
    if (count === 1) {
      // Before the launch there is no report to write: the run stops where it is and says so (InterruptedBeforeStart).
      if (launched()) {
        ctx.log('interrupted: stopping generators; the partial report follows if any vuser ran (Ctrl-C again to force)');
        markInterrupted();
      }
      hear();
      abort.abort();
    } else {
      const line = launched() ? `forced stop: no report written; what was saved is in ${runDir} (\`npm run report -- ${runDir}\` builds the report from it)` : 'forced stop before the generators were launched; nothing was measured';
      ctx.log(line);
      void closeRun().finally(() => ctx.exit(ExitCode.interrupted, line));
    }
  });
  return { interrupted, signal: abort.signal, isInterrupted: () => count > 0, remove };
}

/** What executing and reporting a run share. */
interface RunStage {
  readonly input: RunInput;
  readonly platform: Platform;
  readonly ctx: RunContext;
  readonly plan: Plan;
  /** Several generator regions: each region's part of the plan. */
  readonly regional: RegionalPlan | undefined;
  readonly runId: string;
  readonly runDir: string;
}

/** Preflight, slices, fleet, the load: the run sequence on an opened run, until the load has ended. */
async function executeRun(run: OpenRun, s: RunStage & { phaseSeconds: number; sessionSeconds: number; interrupted: Promise<void>; stopping: AbortSignal; beforeLaunch: () => void; onStart: () => void }): Promise<{ outcome: RunOutcome; generators: GeneratorSpec[] }> {
  const { input, platform, ctx, plan, runId, runDir } = s;
  const { target, store, fleet } = run;
  ctx.log(`run ${runId}: ${plan.totalArrivals} vusers over ${plan.generators.length} generator(s) (${countsList(plan.generators.map((g) => g.arrivals))})`);
  if (s.regional) ctx.log(`regions: ${s.regional.regions.map((r) => `${r.region} ${r.plan.totalArrivals} vusers on ${r.plan.generators.length} generator(s)`).join(', ')}; one start instant for all`);
  // Agents that get a credentialed target URL through their environment find it redacted in their slices.
  const secretTarget = platform.secretsInEnvironment && redactUrl(target.url) !== target.url;
  const script = withTarget(input.script, secretTarget ? redactUrl(target.url) : target.url);
  // Reachability before anything scales or starts: one probe, one line naming what failed (scripts/preflight.ts).
  // Up to a step timeout per step; a Ctrl-C aborts it at once, connections and all (it used to be heard only once the
  // probe ended, then left running unheard, and the CLI had to end the process to stop it).
  await run.preflight(preflightSpec(script, target.url, input.rigConnect, input.testRunId), s.stopping);
  if (s.stopping.aborted) throw new InterruptedBeforeStart();
  // A user's vusers read $dirname and $scenarioFile as the script's, not the load process's folder (scripts/config-env.ts).
  const placed = input.scenario.builtIn ? script : { ...script, config: withScriptPlaceVariables(script.config, path.basename(input.scenario.file)) };
  const generators = generatorSpecs(plan, placed, platform, input.scenario.builtIn);
  const idle = plan.generators.length - generators.length;
  if (idle > 0) ctx.log(`${idle} generator(s) have no vusers to run (${plan.totalArrivals} in all) and are not started`);
  for (const line of fanOutNotes(plan, script, input.scenario.builtIn ? undefined : input.scenario.script, runDir, input.options.environment)) ctx.log(line);
  s.beforeLaunch();
  // Named once it will hold the run: a refusal before this point (the preflight's exit 2) leaves no folder behind.
  ctx.log(`run folder ${runDir}`);
  // Target-side figures (the reference target's /metrics; silently none for targets without it).
  run.metrics.start();
  const clock = { now: () => Date.now(), sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };
  const outcome = await orchestrate(
    {
      runId,
      // One `{{ $testId }}` per run, as in one plain `artillery run` (each load process would draw its own).
      testRunId: input.testRunId,
      scriptDir: input.scenario.dir,
      plan,
      generators,
      expectedSeconds: Math.ceil(s.phaseSeconds + s.sessionSeconds),
      heartbeatTimeoutMs: ctx.heartbeatTimeoutMs ?? DEFAULTS.heartbeatTimeoutMs,
      ...run.timings,
      meta: { platform: platform.name, target: redactUrl(target.url), scenario: input.scenario.name, options: redactOptions(input.options), consoleSuppressed: suppressedMetricNames(input.script.config.plugins), errorOrigins: input.errorOrigins, rigScenario: input.rigScenario ?? null },
      ...(secretTarget ? { secretTargetUrl: target.url } : {}),
    },
    { store, fleet, clock, progress: (e) => ctx.log(e.kind === 'period' ? e.line : `· ${e.message}`), interrupted: s.interrupted, onStart: s.onStart },
  );
  return { outcome, generators };
}

/** After the load: the platform's figures, the run folder filled, report.json/html, the comparison and the summary table. */
async function reportRun(
  run: OpenRun,
  s: RunStage & { baselineDifferences: string[]; outcome: RunOutcome; generators: GeneratorSpec[] },
): Promise<{ summary: RunSummary; exitCode: number }> {
  const { input, platform, ctx, plan, runId, runDir, outcome } = s;
  const { options, baseline } = input;
  const cloudwatch = await run.metrics.collect(outcome.startAt === undefined ? undefined : { start: outcome.startAt, end: outcome.endedAt });
  await run.copyToRunDir();
  const { summary } = await writeReport(localStore(runDir), {
    runId,
    platform: platform.name,
    target: redactUrl(run.target.url),
    scenario: input.scenario.name,
    ...(input.rigScenario ? { rigScenario: input.rigScenario } : {}),
    plan,
    ...(options.vusers !== undefined ? { requestedVusers: options.vusers } : {}),
    generatorIds: s.generators.map((g) => g.id),
    startAt: outcome.startAt,
    endedAt: outcome.endedAt,
    interrupted: outcome.interrupted,
    timedOut: outcome.timedOut,
    lostGenerators: outcome.lostGenerators,
    portRange: platform.portRange,
    ensure: input.ensure,
    maxErrorRate: options.maxErrorRate,
    ...(options.maxErrorRateFromScript ? { maxErrorRateFromScript: true as const } : {}),
    ...(baseline ? { baseline: { runId: baseline.report.runId, aggregate: baseline.report.aggregate, differences: s.baselineDifferences } } : {}),
    ...(cloudwatch ? { cloudwatch } : {}),
    ...(s.regional ? { regions: regionsOf(s.regional) } : {}),
    errorOrigins: input.errorOrigins,
  }, { note: ctx.log });
  if (baseline) {
    const { table, file } = writeComparison(baseline, readRunFolder(runDir, 'run'));
    ctx.log(`\n${table}\ncomparison: ${file}`);
  }
  if (summary.regions) ctx.log(`\n${formatRegionTable(summary.regions)}`);
  ctx.log(`\n${formatSummaryTable(summary, path.join(runDir, 'report.html'), suppressedMetricNames(input.script.config.plugins))}`);
  return { summary, exitCode: summary.result.exitCode };
}
