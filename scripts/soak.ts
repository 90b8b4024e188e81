/**
 * `npm run soak -- [--runs 100] [--vusers 4] [--generators 2]`: small local runs back to back, to catch rare
 * rig failures (races between processes) that one run does not show. Not part of CI (minutes of load).
 * Always `--platform local` (a deployed rig is not used). Prints one line per run and the tally; exits 0 when no run failed, 3 otherwise, 2 on bad input (its own flags,
 * or a first run refused as bad input: nothing more is run), 130 when interrupted.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { helpRequested, parseFlags } from './cli-flags';
import { longFlags, npmEatenRefusal } from './npm-flags';
import { ExitCode, UsageError } from './errors';
import { MAX_VUSERS, parsePositiveInt } from './options';
import { runEntry, unexpectedFailure } from './entry';

const ROOT = path.resolve(__dirname, '..');

export const SOAK_USAGE = 'usage: npm run soak -- [--runs N (default 100, at most 10000)] [--vusers N (default 4)] [--generators M (default 2)]';
const OPTIONS = { runs: { type: 'string' }, vusers: { type: 'string' }, generators: { type: 'string' } } as const;

/** The soak's settings. */
export interface SoakSettings {
  readonly runs: number;
  readonly vusers: number;
  readonly generators: number;
}

/** The soak's command line: its settings or a request for the usage. Pure. @throws UsageError */
export function soakSettings(argv: readonly string[], env: NodeJS.ProcessEnv): { help: true } | { settings: SoakSettings } {
  const refusal = npmEatenRefusal(env, longFlags(OPTIONS), argv);
  if (refusal) throw new UsageError(refusal.replace(/^error: /, ''));
  if (helpRequested(argv)) return { help: true };
  const { values } = parseFlags(argv, OPTIONS, SOAK_USAGE);
  // The same checks as npm run loadtest's --vusers and --generators, so a bad value is refused before the first run.
  return {
    settings: {
      runs: values.runs === undefined ? 100 : parsePositiveInt('--runs', values.runs, 10_000, '100'),
      vusers: values.vusers === undefined ? 4 : parsePositiveInt('--vusers', values.vusers, MAX_VUSERS, '4'),
      generators: values.generators === undefined ? 2 : parsePositiveInt('--generators', values.generators, 1000, '2'),
    },
  };
}

/** One run's end: its exit code and the last error line it printed. */
export interface RunEnd {
  readonly code: number | null;
  readonly last: string;
}

/** What the soak loop touches. */
export interface SoakDeps {
  /** Creates the work folder (the run folders go under it). */
  readonly work: () => string;
  readonly runOnce: (args: readonly string[]) => Promise<RunEnd>;
  /** stderr lines. */
  readonly log: (line: string) => void;
  /** Whether Ctrl-C was pressed. */
  readonly stopped: () => boolean;
}

/** Runs the soak; returns the exit code. The tally goes to `log` (stdout in the CLI). */
export async function soak(set: SoakSettings, deps: SoakDeps, tally: (line: string) => void = deps.log): Promise<number> {
  const work = deps.work();
  const failures: string[] = [];
  const started = Date.now();
  let done = 0;
  try {
    for (let i = 1; i <= set.runs && !deps.stopped(); i++) {
      const out = path.join(work, `run-${i}`);
      // Local on purpose (docs/reliability.md): without --platform the CLI picks aws whenever cdk-outputs.json exists.
      const r = await deps.runOnce(['--platform', 'local', '--vusers', String(set.vusers), '--generators', String(set.generators), '--ramp', '1s', '--hold', '1s', '--out', out]);
      done++;
      const ok = r.code === ExitCode.ok;
      deps.log(`soak ${i}/${set.runs}: exit ${r.code}${ok ? '' : ` — ${r.last}`}`);
      // Bad input on the first run is the soak's, not a race: every later run would be refused the same way.
      if (i === 1 && r.code === ExitCode.badInput) {
        deps.log(`error: the first run was refused as bad input (${r.last || 'exit 2'}); nothing more was run`);
        return ExitCode.badInput;
      }
      if (!ok) failures.push(`run ${i}: exit ${r.code} ${r.last}`);
      if (ok) fs.rmSync(out, { recursive: true, force: true }); // failed runs' folders are kept to read
    }
  } finally {
    // Kept only when a failed run left a folder to read.
    if (!fs.existsSync(work) || fs.readdirSync(work).length === 0) fs.rmSync(work, { recursive: true, force: true });
  }
  const kept = fs.existsSync(work);
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  tally(`soak: ${done} runs in ${minutes} min, ${failures.length} rig failure(s)${kept ? `; run folders kept in ${work}` : ''}`);
  for (const f of failures) tally(`  ${f}`);
  if (deps.stopped()) return ExitCode.interrupted;
  return failures.length === 0 ? ExitCode.ok : ExitCode.rigFailure;
}

/** One CLI run; resolves with its exit code and the last line it printed on stderr. */
function runOnce(args: readonly string[]): Promise<RunEnd> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'launch.js'), path.join(ROOT, 'scripts', 'cli.ts'), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, last: stderr.trim().split('\n').filter((l) => /^(error|rig failure|target failure)/.test(l)).pop() ?? '' }));
  });
}

async function main(): Promise<number> {
  let parsed: ReturnType<typeof soakSettings>;
  try {
    parsed = soakSettings(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    return ExitCode.badInput;
  }
  if ('help' in parsed) {
    process.stdout.write(`${SOAK_USAGE}\n`);
    return ExitCode.ok;
  }
  let stop = false;
  process.on('SIGINT', () => (stop = true));
  return soak(parsed.settings, {
    work: () => fs.mkdtempSync(path.join(os.tmpdir(), 'rig-soak-')),
    runOnce,
    log: (line) => process.stderr.write(`${line}\n`),
    stopped: () => stop,
  }, (line) => process.stdout.write(`${line}\n`));
}

if (require.main === module) {
  runEntry('npm run soak', main, unexpectedFailure);
}
