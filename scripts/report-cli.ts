/**
 * `npm run report -- runs/<id>`: rebuilds report.json and report.html from the raw data kept in a
 * run folder, through the same code path as the end of a run (scripts/report/write.ts).
 *
 * Exit codes: 0 rebuilt; 2 the folder is not a run folder (nothing written); 3 the data could not be read.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RunStore, localStore } from '../load-generators/lib/run-store';
import { machinePortRange, portRangeSize } from './adapters/system-limits';
import { ExitCode, UsageError } from './errors';
import type { Plan } from './core/plan';
import { formatSummaryTable } from './report/summary';
import { RunOutcomeRecord, writeReport } from './report/write';
import { flagEnsureChecks, scriptEnsureChecks } from './report/thresholds';

interface RunRecord {
  runId: string;
  plan: Plan;
  platform?: 'local' | 'aws';
  target?: string;
  scenario?: string;
  options?: { ensure?: string[]; maxErrorRate?: number; vusers?: number };
}

/** A scenario's own `config.ensure` conditions (as scripts/run.ts reads them). */
const readJson = async <T>(store: RunStore, key: string): Promise<T | undefined> => {
  const text = await store.get(key);
  return text === undefined ? undefined : (JSON.parse(text) as T);
};

/** The end state of a run written before outcome.json existed: reconstructed from the control and done files. */
async function deriveOutcome(store: RunStore, run: RunRecord): Promise<RunOutcomeRecord> {
  const ids = [...new Set((await store.list('generators/')).map((k) => k.split('/')[1]).filter((x): x is string => !!x))].sort();
  const start = await readJson<{ startAt?: number }>(store, 'control/start.json');
  const abort = await readJson<{ reason?: string }>(store, 'control/abort.json');
  const lost: Array<{ id: string; reason: string }> = [];
  let endedAt = 0;
  for (const id of ids) {
    const done = await readJson<{ at: number; exitCodes: Array<number | null>; reason: string }>(store, `generators/${id}/done.json`);
    if (!done) lost.push({ id, reason: 'no done.json' });
    else {
      endedAt = Math.max(endedAt, done.at);
      if (done.exitCodes.some((c) => c !== 0) && done.reason !== 'completed') lost.push({ id, reason: done.reason });
    }
  }
  const slice = ids[0] ? await readJson<{ processes?: Array<{ script?: { config: { ensure?: unknown; plugins?: Record<string, unknown> } } }> }>(store, `generators/${ids[0]}/slice.json`) : undefined;
  const script = slice?.processes?.[0]?.script;
  return {
    generatorIds: ids,
    startAt: start?.startAt,
    endedAt,
    interrupted: abort?.reason === 'interrupted',
    timedOut: false,
    lostGenerators: lost,
    portRange: portRangeSize(machinePortRange()),
    ensure: [...flagEnsureChecks(run.options?.ensure ?? []), ...(script ? scriptEnsureChecks(script.config, process.env) : [])],
    maxErrorRate: run.options?.maxErrorRate ?? 0,
  };
}

/** Rebuilds the reports of one run folder; returns the exit code. */
export async function rebuildReport(dir: string, log: (line: string) => void): Promise<number> {
  const abs = path.resolve(dir);
  if (!fs.existsSync(path.join(abs, 'run.json'))) throw new UsageError(`${dir} is not a run folder (no run.json); pass runs/<run-id>`);
  const store = localStore(abs);
  const run = (await readJson<RunRecord>(store, 'run.json')) as RunRecord;
  const outcome = (await readJson<RunOutcomeRecord>(store, 'outcome.json')) ?? (await deriveOutcome(store, run));
  const { summary } = await writeReport(store, {
    ...outcome,
    maxErrorRate: outcome.maxErrorRate ?? run.options?.maxErrorRate ?? 0,
    runId: run.runId,
    platform: run.platform ?? 'local',
    target: run.target ?? '',
    scenario: run.scenario ?? '',
    plan: run.plan,
    ...(typeof run.options?.vusers === 'number' ? { requestedVusers: run.options.vusers } : {}),
  });
  log(formatSummaryTable(summary, `${path.join(abs, 'report.html')} (data: report.json)`));
  return ExitCode.ok;
}

if (require.main === module) {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const dir = process.argv[2];
  const run = dir ? rebuildReport(dir, log) : Promise.reject(new UsageError('usage: npm run report -- runs/<run-id>'));
  run.then(
    (code) => (process.exitCode = code),
    (err: unknown) => {
      if (err instanceof UsageError) {
        log(`error: ${err.message}`);
        process.exitCode = ExitCode.badInput;
      } else {
        log(`cannot rebuild the report: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        process.exitCode = ExitCode.rigFailure;
      }
    },
  );
}
