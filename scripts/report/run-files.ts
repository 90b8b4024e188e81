/**
 * The one reader of every file the report reads from a run folder (run store): each kind is parsed and its shape
 * checked here, and a file that fails says so in one line naming the file (its key: relative to the folder) and
 * what is wrong. The raw data is either needed for the figures to be right (a bad file is fatal: exit 3, data
 * could not be read) or a sample whose loss is a gap in a chart (skipped with a note). docs/report.md lists which.
 */
import type { RunStore } from '../contracts';

/** A run folder's data that cannot be read: exit 3 ("the data could not be read"), never a rig bug. */
export class RunDataError extends Error {
  override readonly name = 'RunDataError';
}

/** The kinds of file the report reads. */
export type RunFileKind = 'run' | 'outcome' | 'start' | 'abort' | 'done' | 'slice' | 'period' | 'started' | 'health' | 'ready' | 'target-metrics';

/** What a bad file of each kind does: fatal (the report would be wrong without it) or skipped with a note. */
export const BAD_FILE_POLICY: Readonly<Record<RunFileKind, 'fatal' | 'skip'>> = {
  run: 'fatal',
  outcome: 'fatal',
  start: 'fatal',
  abort: 'fatal',
  done: 'fatal',
  slice: 'fatal',
  // Every count of the run is a sum over the periods: one left out would be a report that is wrong without saying so.
  period: 'fatal',
  started: 'skip',
  health: 'skip',
  // Read for the OS packages a generator's boot recorded (the report's "OS packages" table): not a figure.
  ready: 'skip',
  'target-metrics': 'skip',
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** What is missing from a parsed file of this kind (undefined: its shape is right). Pure. */
export function shapeProblem(kind: Exclude<RunFileKind, 'period'>, v: unknown): string | undefined {
  if (!isObject(v)) return `is ${describe(v)}, not a JSON object`;
  switch (kind) {
    case 'run':
      if (typeof v.runId !== 'string') return 'has no "runId"';
      if (!isObject(v.plan) || !Array.isArray(v.plan.generators)) return 'has no "plan" with its "generators"';
      return undefined;
    case 'outcome':
      if (!Array.isArray(v.generatorIds) || !v.generatorIds.every((g) => typeof g === 'string')) return 'has no "generatorIds" list';
      if (!isNum(v.endedAt)) return 'has no numeric "endedAt"';
      if (!Array.isArray(v.lostGenerators)) return 'has no "lostGenerators" list';
      if (!Array.isArray(v.ensure)) return 'has no "ensure" list';
      return undefined;
    case 'start':
      return isNum(v.startAt) ? undefined : 'has no numeric "startAt"';
    case 'abort':
      return typeof v.reason === 'string' ? undefined : 'has no "reason"';
    case 'slice':
      return Array.isArray(v.processes) ? undefined : 'has no "processes" list';
    case 'started':
      return isNum(v.actualAt) ? undefined : 'has no numeric "actualAt"';
    case 'done':
      if (!isNum(v.at)) return 'has no numeric "at"';
      if (!Array.isArray(v.exitCodes)) return 'has no "exitCodes" list';
      if (typeof v.reason !== 'string') return 'has no "reason"';
      return undefined;
    case 'health':
      if (!isNum(v.at)) return 'has no numeric "at"';
      if (!Array.isArray(v.samples)) return 'has no "samples" list';
      return undefined;
    case 'target-metrics':
    case 'ready':
      return isNum(v.at) ? undefined : 'has no numeric "at"';
    default:
      return undefined;
  }
}

/** Parses one file's text: its value, or what is wrong with it in words. Pure. */
export function parseRunFile<T>(kind: RunFileKind, text: string, decode?: (text: string) => T): { value: T } | { problem: string } {
  try {
    if (decode) return { value: decode(text) };
    const value: unknown = JSON.parse(text);
    const problem = shapeProblem(kind as Exclude<RunFileKind, 'period'>, value);
    return problem ? { problem } : { value: value as T };
  } catch (err) {
    // One line: JSON.parse quotes the start of the text, newlines included.
    const message = (err as Error).message.replace(/\s+/g, ' ').trim();
    if (text.trim() === '') return { problem: 'is empty' };
    return { problem: decode ? `is not a serialized period (${message})` : `is not valid JSON (${message})` };
  }
}

/**
 * Reads one file of the run store: undefined when absent (or a skipped bad sample, said through `note`).
 * @throws RunDataError for a bad file whose kind is fatal
 */
export async function readRunFile<T>(store: RunStore, key: string, kind: RunFileKind, note: (line: string) => void, decode?: (text: string) => T): Promise<T | undefined> {
  const text = await store.get(key);
  if (text === undefined) return undefined;
  const r = parseRunFile<T>(kind, text, decode);
  if ('value' in r) return r.value;
  if (BAD_FILE_POLICY[kind] === 'fatal') throw new RunDataError(`${key} ${r.problem}; the report cannot be rebuilt without it: restore the file (e.g. from the run's S3 copy) or rerun the test`);
  const gap = kind === 'ready' ? "the generator's OS package record" : `the ${kind === 'health' ? 'rig health' : kind === 'started' ? 'start skew' : "target's"} figures`;
  note(`note: ${key} ${r.problem}; skipped (a gap in ${gap})`);
  return undefined;
}

/**
 * Why the generators' data the report needs is not in the folder (undefined: it is). Pure. `planned` is the plan's
 * generator count, `ids` the run's generators, `lost` those the run itself lost (nothing written is their story),
 * `present` those with any file under generators/.
 */
export function missingGeneratorData(planned: number, ids: readonly string[], lost: ReadonlyArray<{ readonly id: string }>, present: ReadonlySet<string>): string | undefined {
  const fix = "the report cannot be rebuilt without it (restore it, e.g. from the run's S3 copy, or rerun the test); report.json and report.html are left as they were";
  if (ids.length < planned) return `generators/ has no data of ${planned - ids.length} of the ${planned} generators the plan names; ${fix}`;
  const missing = ids.filter((id) => !present.has(id) && !lost.some((l) => l.id === id));
  if (missing.length === 0) return undefined;
  return `${missing.map((id) => `generators/${id}/`).join(', ')} ${missing.length === 1 ? 'has' : 'have'} no data (the plan names ${ids.join(', ')}); ${fix}`;
}

/** File-system errors that mean the folder cannot be written (not a rig bug). */
const UNWRITABLE = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT']);

/**
 * A write into a run folder that failed because of the folder (read-only, no permission, full), as one line
 * naming the folder, the OS error and the fix; undefined for any other error. Pure.
 */
export function unwritableFolder(err: unknown, dir: string, what: string, fix: string): RunDataError | undefined {
  const e = err as NodeJS.ErrnoException;
  if (!e || typeof e.code !== 'string' || !UNWRITABLE.has(e.code)) return undefined;
  // "EROFS: read-only file system, open '/…/outcome.json.1106.tmp'": the error without the scratch file's name.
  const os = (e.message ?? e.code).split(', ')[0];
  return new RunDataError(`cannot write the ${what} into ${dir} (${os}); ${fix}`);
}
