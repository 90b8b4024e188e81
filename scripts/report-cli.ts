/**
 * `npm run report -- runs/<id>`: rebuilds report.json and report.html from the raw data kept in a
 * run folder, through the same code path as the end of a run (scripts/report/write.ts).
 * `npm run report -- --compare runs/<baseline> runs/<id> [--ensure EXPR]… [--json]`: compares two finished
 * runs (scripts/report/compare.ts): the table on stdout (with `--json`: the comparison as JSON, the
 * table on stderr), compare-<baseline-id>.html in the run's folder.
 *
 * Exit codes: 0 rebuilt / compared (and every `--ensure` held); 1 an `--ensure` was breached;
 * 2 a folder is not a (finished) run folder or the arguments are wrong (nothing written); 3 the folder's data
 * could not be read (a bad file named by scripts/report/run-files.ts) or the report could not be written to it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { helpRequested, parseFlags } from './cli-flags';
import { ABORTED, COMPLETED, CONTROL, GENERATORS_PREFIX, STOPPED_BY_SIGNAL, generatorKeys, generatorOfKey } from '../load-generators/lib/run-protocol';
import type { AbortControl, DoneMarker, RunStore, StartControl } from './contracts';
import { localStore } from '../load-generators/lib/run-store';
import { machinePortRange, portRangeSize } from './adapters/system-limits';
import { ExitCode, UsageError, unexpectedErrorLine } from './errors';
import { errorOriginsOf } from './engines';
import type { ErrorOrigins } from './core/verdict';
import { BUILT_IN_SCENARIOS } from './options';
import { invocationDir, userPath } from './home-path';
import { longFlags, npmEatenRefusal } from './npm-flags';
import type { Plan } from './core/plan';
import { evaluateWithBaseline } from './report/baseline';
import { writeComparison } from './report/compare-html';
import { thresholdReason } from './report/result';
import { fileNotFolder, readRunFolder } from './report/read-run';
import { RunDataError, missingGeneratorData, readRunFile, unwritableFolder } from './report/run-files';
import { formatSummaryTable } from './report/summary';
import { suppressedMetricNames } from './report/artillery-format';
import { evaluateThresholds } from './report/thresholds';
import { RunOutcomeRecord, writeReport } from './report/write';
import { assertEnsureParses, flagEnsureChecks, scriptEnsureChecks } from './report/thresholds';
import { runEntry } from './entry';

interface RunRecord {
  runId: string;
  plan: Plan;
  platform?: 'local' | 'aws';
  target?: string;
  scenario?: string;
  options?: { ensure?: string[]; maxErrorRate?: number; maxErrorRateFromScript?: true; vusers?: number };
  /** Metric names the script's plugins keep out of the printed table (scripts/report/artillery-format.ts). */
  consoleSuppressed?: string[];
  /** Whose errors are whose, as the run decided it (scripts/run-input.ts); absent in folders written before. */
  errorOrigins?: ErrorOrigins;
  /**
   * The built-in scenario whose measurements the run made, as it decided it (scripts/rig-processor.ts): null for none;
   * absent in folders written before, which are read by the scenario's name as they were then.
   */
  rigScenario?: string | null;
}

/** The built-in scenario whose figures and delivery checks a run folder's report has (RunRecord.rigScenario). */
function recordedRigScenario(run: RunRecord): string | undefined {
  if (run.rigScenario !== undefined) return run.rigScenario ?? undefined;
  return (BUILT_IN_SCENARIOS as readonly string[]).includes(run.scenario ?? '') ? run.scenario : undefined;
}

/** The end state of a run written before outcome.json existed: reconstructed from the control and done files. */
async function deriveOutcome(store: RunStore, run: RunRecord, note: (line: string) => void): Promise<RunOutcomeRecord> {
  const ids = [...new Set((await store.list(GENERATORS_PREFIX)).map(generatorOfKey).filter((x): x is string => !!x))].sort();
  const start = await readRunFile<Partial<StartControl>>(store, CONTROL.start, 'start', note);
  const abort = await readRunFile<Partial<AbortControl>>(store, CONTROL.abort, 'abort', note);
  const lost: Array<{ id: string; reason: string }> = [];
  const interrupted = abort?.reason === 'interrupted';
  let endedAt = 0;
  for (const id of ids) {
    const done = await readRunFile<DoneMarker>(store, generatorKeys(id).done, 'done', note);
    if (!done) lost.push({ id, reason: 'no done.json' });
    else {
      endedAt = Math.max(endedAt, done.at);
      // Stopped by the Ctrl-C itself (the signal reached its agent, or the orchestrator's abort did): not lost, as the
      // run's own report says (a forced stop leaves no outcome.json, so this is how its report is rebuilt).
      const byInterrupt = interrupted && (done.reason === STOPPED_BY_SIGNAL || done.reason.startsWith(ABORTED));
      if (done.exitCodes.some((c) => c !== 0) && done.reason !== COMPLETED && !byInterrupt) lost.push({ id, reason: done.reason });
    }
  }
  const slice = ids[0] ? await readRunFile<{ processes?: Array<{ script?: { config: { ensure?: unknown; plugins?: Record<string, unknown> }; scenarios?: unknown[] } }> }>(store, generatorKeys(ids[0]).slice, 'slice', note) : undefined;
  const script = slice?.processes?.[0]?.script;
  return {
    generatorIds: ids,
    startAt: start?.startAt,
    endedAt,
    interrupted,
    timedOut: false,
    lostGenerators: lost,
    portRange: portRangeSize(machinePortRange()),
    ensure: [...flagEnsureChecks(run.options?.ensure ?? []), ...(script ? scriptEnsureChecks(script.config, process.env) : [])],
    maxErrorRate: run.options?.maxErrorRate ?? 0,
    // As the run's own report decided whose errors were whose (a forced stop leaves no outcome.json to say it): kept in
    // run.json; a folder written before that is read from its slice, a built-in scenario by its name.
    ...(run.errorOrigins
      ? { errorOrigins: run.errorOrigins }
      : script && Array.isArray(script.scenarios)
        ? { errorOrigins: errorOriginsOf({ ...script, scenarios: script.scenarios }, (BUILT_IN_SCENARIOS as readonly string[]).includes(run.scenario ?? '')) }
        : {}),
  };
}

/** Rebuilds the reports of one run folder; returns the exit code. */
export async function rebuildReport(dir: string, log: (line: string) => void): Promise<number> {
  const abs = path.resolve(dir);
  if (!fs.existsSync(abs)) throw new UsageError(`run ${dir} does not exist; pass a run folder such as runs/<run-id>`);
  if (!fs.statSync(abs).isDirectory()) throw new UsageError(fileNotFolder('run', dir));
  if (!fs.existsSync(path.join(abs, 'run.json'))) throw new UsageError(`${dir} is not a run folder (no run.json); pass runs/<run-id>`);
  const store = localStore(abs);
  const run = (await readRunFile<RunRecord>(store, 'run.json', 'run', log)) as RunRecord;
  const outcome = (await readRunFile<RunOutcomeRecord>(store, 'outcome.json', 'outcome', log)) ?? (await deriveOutcome(store, run, log));
  // A folder whose generators' data is gone would rebuild as "0 of 0 vusers failed, PASSED" over the good report.
  const present = new Set((await store.list(GENERATORS_PREFIX)).map(generatorOfKey).filter((x): x is string => !!x));
  // Generators the plan gave no vusers are never started (scripts/run.ts generatorSpecs): they have no data to miss.
  const started = run.plan.generators.filter((g) => g.arrivals > 0).length;
  const missing = missingGeneratorData(started, outcome.generatorIds, outcome.lostGenerators, present);
  if (missing) throw new RunDataError(missing);
  const { summary } = await writeReport(store, {
    ...outcome,
    maxErrorRate: outcome.maxErrorRate ?? run.options?.maxErrorRate ?? 0,
    ...(outcome.maxErrorRateFromScript ?? run.options?.maxErrorRateFromScript ? { maxErrorRateFromScript: true as const } : {}),
    runId: run.runId,
    platform: run.platform ?? 'local',
    target: run.target ?? '',
    scenario: run.scenario ?? '',
    ...(recordedRigScenario(run) ? { rigScenario: recordedRigScenario(run) } : {}),
    plan: run.plan,
    ...(typeof run.options?.vusers === 'number' ? { requestedVusers: run.options.vusers } : {}),
  }, { note: log, writeOutcome: false }).catch((err: unknown) => {
    throw unwritableFolder(err, dir, 'report', `copy the folder somewhere writable (cp -r ${dir} /tmp/run) and run npm run report -- /tmp/run`) ?? err;
  });
  // Older run folders have no consoleSuppressed: Artillery's default (metrics-by-endpoint's per-URL lines) then.
  log(formatSummaryTable(summary, `${path.join(abs, 'report.html')} (data: report.json)`, run.consoleSuppressed ?? suppressedMetricNames(undefined)));
  return ExitCode.ok;
}

/** `--compare BASE RUN`: the table on stdout, compare-<base-id>.html in RUN's folder; exit 1 when an `--ensure` is breached. */
export function compareFolders(baseDir: string, runDir: string, opts: { ensure: readonly string[]; json: boolean }, out: (text: string) => void, log: (line: string) => void): number {
  const base = readRunFolder(baseDir, 'baseline');
  const run = readRunFolder(runDir, 'run');
  let written: ReturnType<typeof writeComparison>;
  try {
    written = writeComparison(base, run);
  } catch (err) {
    throw unwritableFolder(err, runDir, 'comparison', `copy the folder somewhere writable (cp -r ${runDir} /tmp/run) and compare with the copy: npm run report -- --compare ${baseDir} /tmp/run`) ?? err;
  }
  const { comparison, table, file } = written;
  const thresholds = evaluateWithBaseline(opts.ensure, run.report.aggregate, { runId: base.report.runId, aggregate: base.report.aggregate, differences: comparison.differences }, evaluateThresholds);
  if (opts.json) {
    out(JSON.stringify({ ...comparison, page: file, thresholds }, null, 2));
    log(table);
  } else out(table);
  log(`comparison: ${file}`);
  for (const t of thresholds) log(thresholdReason(t, run.report.aggregate));
  return thresholds.every((t) => t.ok) ? ExitCode.ok : ExitCode.thresholdsBreached;
}

const USAGE = 'usage: npm run report -- runs/<run-id>   or   npm run report -- --compare runs/<baseline-id> runs/<run-id> [--ensure EXPR]… [--json]';

/** Runs the command line; returns the exit code. */
export async function main(argv: readonly string[], out: (text: string) => void, log: (line: string) => void, env: NodeJS.ProcessEnv = {}, home: string = os.homedir()): Promise<number> {
  const refusal = npmEatenRefusal(env, longFlags(REPORT_OPTIONS), argv);
  if (refusal) throw new UsageError(refusal.replace(/^error: /, ''));
  if (helpRequested(argv)) {
    out(USAGE);
    return ExitCode.ok;
  }
  const parsed = parseFlags(argv, REPORT_OPTIONS, USAGE, true);
  const { values } = parsed;
  // `~/runs/…` in quotes or after `=` is the home folder's; a relative folder is read from where npm was run.
  const positionals = parsed.positionals.map((p) => userPath(p, home, invocationDir(env, process.cwd())));
  const ensure = values.ensure ?? [];
  // Every expression parses before anything is read or written (a syntax error is bad input, not a breach).
  assertEnsureParses(flagEnsureChecks(ensure));
  if (values.compare) {
    if (positionals.length !== 2) throw new UsageError(`--compare takes two run folders, the baseline first (got ${positionals.length}); ${USAGE}`);
    if (path.resolve(positionals[0] as string) === path.resolve(positionals[1] as string)) {
      throw new UsageError(`--compare got the same run folder twice (${positionals[0]}); pass the baseline run, then the run to compare with it`);
    }
    return compareFolders(positionals[0] as string, positionals[1] as string, { ensure, json: Boolean(values.json) }, out, log);
  }
  if (ensure.length || values.json) throw new UsageError(`${ensure.length ? '--ensure' : '--json'} goes with --compare (a rebuild keeps the run's own thresholds); ${USAGE}`);
  if (positionals.length === 2 && path.resolve(positionals[0] as string) === path.resolve(positionals[1] as string)) {
    throw new UsageError(`the same run folder twice (${positionals[0]}); to rebuild its report: npm run report -- ${positionals[0]}`);
  }
  if (positionals.length === 2) throw new UsageError(`two run folders without --compare; to compare them: npm run report -- --compare ${positionals[0]} ${positionals[1]}`);
  if (positionals.length !== 1) throw new UsageError(USAGE);
  return rebuildReport(positionals[0] as string, log);
}

/** The line and exit code for an error that ended the command: bad input 2, unreadable or unwritable data 3, else a rig bug (3). */
export function failureOf(err: unknown, compare: boolean): { line: string; code: number } {
  if (err instanceof UsageError) return { line: `error: ${err.message}`, code: ExitCode.badInput };
  if (err instanceof RunDataError) return { line: `error: ${err.message}`, code: ExitCode.rigFailure };
  return { line: `rig failure: cannot ${compare ? 'compare the runs' : 'rebuild the report'}: ${unexpectedErrorLine(err)}`, code: ExitCode.rigFailure };
}

const REPORT_OPTIONS = { compare: { type: 'boolean' }, json: { type: 'boolean' }, ensure: { type: 'string', multiple: true } } as const;

if (require.main === module) {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const out = (text: string) => process.stdout.write(`${text}\n`);
  runEntry('npm run report', () => main(process.argv.slice(2), out, log, process.env), (err: unknown) => {
    const { line, code } = failureOf(err, process.argv.includes('--compare'));
    log(line);
    if (code === ExitCode.rigFailure && !(err instanceof RunDataError) && process.env.RIG_DEBUG === '1' && err instanceof Error && err.stack) log(err.stack);
    return code;
  });
}
