/**
 * `npm run report:screenshot [-- RUN_FOLDER] [--out FILE]`: a PNG of report.html's first screen
 * (1280×1000, what a reader sees before scrolling), in Debian's headless Chromium.
 *
 * Without a run folder it first makes the documentation's demo run: the built-in pub/sub scenario,
 * 100 vusers, against a reference target started for the run that answers 30% of cookie requests with
 * 503 and withholds messages from 20% of sockets, with `--ensure pubsub.vusers_zero_messages == 0`
 * (so the run FAILS and says why); the run folder goes to a temporary folder and is removed after.
 * Default output: docs/report-first-screen.png.
 *
 * Exit codes: 0 written; 2 bad input (no such run folder); 3 the run or the browser failed.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseFlags } from './cli-flags';
import { ExitCode, UsageError } from './errors';
import { invocationDir, userPath } from './home-path';
import { npmEatenRefusal } from './npm-flags';
import { openInChromium } from './report/chromium';
import { runEntry } from './entry';

const ROOT = path.resolve(__dirname, '..');
const VIEWPORT = { width: 1280, height: 1000 };

/** The demo run's flags and the target's faults (documented in docs/report.md). */
export const DEMO_ARGS = ['--scenario', 'pubsub', '--vusers', '100', '--ramp', '5s', '--hold', '8s', '--var', 'rooms=4', '--var', 'publishRate=2', '--generators', '2', '--ensure', 'pubsub.vusers_zero_messages == 0'];
export const DEMO_FAULTS = { FAULT_WITHHOLD_FRACTION: '0.2', FAULT_COOKIE_503_FRACTION: '0.3', FAULT_SEED: 'report-demo' };

/** Runs the demo through the real CLI into `out`; resolves with its exit code (1 expected: it fails on purpose). */
function demoRun(out: string, log: (line: string) => void): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'launch.js'), path.join(ROOT, 'scripts', 'cli.ts'), ...DEMO_ARGS, '--out', out], {
      cwd: ROOT,
      env: { ...process.env, ...DEMO_FAULTS },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr.on('data', (d: Buffer) => log(d.toString().trimEnd()));
    // Interrupted or stopped: the demo run is stopped too (it cleans up its target and run), never left running.
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', reject);
    child.on('exit', (code) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code);
    });
  });
}

/** Writes the PNG of the first screen of `runDir`'s report.html. */
export async function screenshotFirstScreen(runDir: string, png: string, executablePath?: string): Promise<void> {
  const html = path.join(runDir, 'report.html');
  if (!fs.existsSync(html)) throw new UsageError(`${runDir} has no report.html; pass a run folder (runs/<run-id>) or nothing for the demo run`);
  fs.mkdirSync(path.dirname(path.resolve(png)), { recursive: true });
  const opened = await openInChromium(html, { viewport: VIEWPORT, ...(executablePath ? { executablePath } : {}) });
  try {
    await opened.page.screenshot({ path: png, fullPage: false });
  } finally {
    await opened.close();
  }
}

const USAGE = 'usage: npm run report:screenshot [-- RUN_FOLDER] [--out FILE.png]';

/**
 * The flags: `--out FILE` (or `--out=FILE`) and at most one run folder. An unknown flag, an empty value or a second
 * folder is refused: read by hand, `--out=x.png` was not seen, the demo run started, and the PNG replaced the
 * documentation's.
 */
export function screenshotArgs(argv: readonly string[], home: string, base: string): { out?: string; folder?: string } {
  // parseFlags, as every other entry point: also refuses --out given twice with two files (the last was kept silently).
  const parsed = parseFlags(argv, { out: { type: 'string' } }, USAGE, true);
  const { values, positionals } = parsed;
  if (values.out !== undefined && !values.out.trim()) throw new UsageError(`--out is empty; ${USAGE}`);
  if (positionals.length > 1) throw new UsageError(`one run folder at a time (got ${positionals.join(', ')}); ${USAGE}`);
  return {
    ...(values.out !== undefined ? { out: userPath(values.out, home, base) } : {}),
    ...(positionals[0] !== undefined ? { folder: userPath(positionals[0], home, base) } : {}),
  };
}

async function main(argv: readonly string[], log: (line: string) => void): Promise<number> {
  const refusal = npmEatenRefusal(process.env, ['--out'], argv);
  if (refusal) throw new UsageError(refusal.replace(/^error: /, ''));
  const { out, folder } = screenshotArgs(argv, os.homedir(), invocationDir(process.env, process.cwd()));
  const png = path.resolve(out ?? path.join(ROOT, 'docs', 'report-first-screen.png'));
  const chromiumPath = process.env.CHROMIUM_PATH;
  if (folder) {
    await screenshotFirstScreen(folder, png, chromiumPath);
  } else {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-report-demo-'));
    try {
      const code = await demoRun(path.join(tmp, 'run'), log);
      if (code === ExitCode.interrupted) return ExitCode.interrupted;
      if (code !== ExitCode.thresholdsBreached) throw new Error(`the demo run exited ${code}, expected 1 (its threshold fails on purpose)`);
      await screenshotFirstScreen(path.join(tmp, 'run'), png, chromiumPath);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  log(`screenshot: ${png}`);
  return ExitCode.ok;
}

if (require.main === module) {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  runEntry('npm run report:screenshot', () => main(process.argv.slice(2), log), (err: unknown) => {
    log(`error: ${err instanceof Error ? err.message : String(err)}`);
    return err instanceof UsageError ? ExitCode.badInput : ExitCode.rigFailure;
  });
}
