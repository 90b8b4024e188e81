/**
 * Reads a finished run folder (run.json + report.json) for a comparison: `npm run report -- --compare`
 * and `npm run loadtest -- --baseline`. A folder that is not a finished run is bad input (exit 2),
 * said in one line with the fix.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../errors';
import { ComparedRun, RunLoad, phasesOf } from './compare';
import type { ReportJson } from './types';

/** The parts of run.json a comparison reads. */
interface RunJson {
  readonly runId?: string;
  readonly scenario?: string;
  readonly plan?: { readonly totalArrivals?: number };
  readonly options?: { readonly holdSeconds?: number; readonly vars?: Readonly<Record<string, unknown>> };
}

/** A run folder read back for a comparison. */
export interface RunFolder {
  readonly dir: string;
  readonly report: ReportJson;
  readonly compared: ComparedRun;
}

/** The load a run asks for, from what it planned (before it starts) or recorded (after). */
export function plannedLoad(scenario: string, perGenerator: ReadonlyArray<{ readonly arrivals: number; readonly phases: readonly unknown[] }>, options?: RunJson['options']): RunLoad {
  return {
    scenario,
    vusers: perGenerator.reduce((a, g) => a + g.arrivals, 0),
    phases: phasesOf(perGenerator),
    ...(options ? { holdSeconds: options.holdSeconds ?? 'default' } : {}),
    ...(options?.vars ? { vars: Object.fromEntries(Object.entries(options.vars).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)])) } : {}),
  };
}

/** The load a finished run ran (scenario, vusers, phases, hold, variables), from its report and run.json. */
export function loadOf(report: Pick<ReportJson, 'scenario' | 'rig' | 'phases'>, run?: RunJson): RunLoad {
  const load = plannedLoad(report.scenario, report.phases.map((g) => ({ arrivals: 0, phases: g.phases })), run?.options);
  return { ...load, vusers: report.rig.plan.arrivalsPerGenerator.reduce((a, b) => a + b, 0) };
}

function readJsonFile<T>(file: string, what: string, dir: string): T {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch (err) {
    throw new UsageError(`${what} ${dir} has an unreadable ${path.basename(file)} (${(err as Error).message.split('\n')[0]}); pass a finished run folder, or rebuild it with npm run report -- ${dir}`);
  }
}

/** "… is a file, not a run folder", naming its folder when that is a run folder (report.html, report.json passed). */
export function fileNotFolder(what: string, file: string): string {
  const folder = path.dirname(path.resolve(file));
  const hint = fs.existsSync(path.join(folder, 'run.json')) ? `pass its folder, ${path.dirname(file) || '.'}` : 'pass a run folder such as runs/<run-id>';
  return `${what} ${file} is a file, not a run folder; ${hint}`;
}

/** Reads a finished run folder; `what` names its role in the message ("baseline"). */
export function readRunFolder(dir: string, what: string): RunFolder {
  const abs = path.resolve(dir);
  if (!fs.existsSync(abs)) throw new UsageError(`${what} ${dir} does not exist; pass a run folder such as runs/<run-id>`);
  if (!fs.statSync(abs).isDirectory()) throw new UsageError(fileNotFolder(what, dir));
  if (!fs.existsSync(path.join(abs, 'run.json'))) throw new UsageError(`${what} ${dir} is not a run folder (no run.json); pass runs/<run-id>`);
  if (!fs.existsSync(path.join(abs, 'report.json'))) throw new UsageError(`${what} ${dir} has no report.json (the run did not finish); rebuild it with npm run report -- ${dir}`);
  const run = readJsonFile<RunJson>(path.join(abs, 'run.json'), what, dir);
  const report = readJsonFile<ReportJson>(path.join(abs, 'report.json'), what, dir);
  if (!report || typeof report !== 'object' || !report.aggregate?.counters || !report.rig?.plan || !Array.isArray(report.intermediate) || !report.result) {
    throw new UsageError(`${what} ${dir} has a report.json without the run's figures; rebuild it with npm run report -- ${dir}`);
  }
  return { dir: abs, report, compared: { summary: report, load: loadOf(report, run) } };
}
