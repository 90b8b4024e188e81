/**
 * Runs the real CLI (`npm run loadtest` without npm's banner) as a child process and waits for it to
 * exit: end-to-end tests drive exactly what a user types.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
/** The launcher `npm run loadtest` / `npm run report` use (scripts/launch.js), so tests start what users start. */
const LAUNCH = path.join(ROOT, 'scripts', 'launch.js');

/** What a CLI run left behind. */
export interface CliResult {
  readonly code: number | null;
  /** The signal that ended the process, when one did (startCli). */
  readonly signal?: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The parsed summary when `--json` was passed and the run produced one. */
  readonly json?: any;
}

/** Runs `scripts/cli.ts` (or another script of scripts/) with the given flags; resolves on exit (killed after `timeoutMs`). */
export function runCli(args: readonly string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; script?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LAUNCH, path.join(ROOT, 'scripts', opts.script ?? 'cli.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 110_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      let json: unknown;
      if (args.includes('--json') && stdout.trim()) {
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/** A fresh, empty folder under the OS temp dir. */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** PIDs of live processes tagged with a run's id (every agent, Artillery and target process of the run). */
export function pidsOfRun(runId: string): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const zombie = stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
      if (!zombie && env.includes(`RIG_RUN_ID=${runId}`)) out.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** A CLI run in progress, in its own process group (as a terminal runs it). */
export interface LiveCli {
  readonly pid: number;
  /** Resolves with the first match of `re` in stderr (rejects after `timeoutMs`). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  readonly exited: Promise<CliResult>;
  stderr(): string;
}

/** Starts the CLI in a new process group without waiting for it, for fault tests. */
export function startCli(args: readonly string[], opts: { env?: NodeJS.ProcessEnv } = {}): LiveCli {
  const child = spawn(process.execPath, [LAUNCH, path.join(ROOT, 'scripts', 'cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  const watchers: Array<() => void> = [];
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const w of [...watchers]) w();
  });
  const exited = new Promise<CliResult>((resolve) => {
    child.on('exit', (code, signal) => {
      let json: unknown;
      try {
        json = args.includes('--json') && stdout.trim() ? JSON.parse(stdout) : undefined;
      } catch {
        json = undefined;
      }
      resolve({ code, signal, stdout, stderr, json });
    });
  });
  return {
    pid: child.pid as number,
    exited,
    stderr: () => stderr,
    waitFor(re, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = stderr.match(re);
          if (m) {
            watchers.splice(watchers.indexOf(check), 1);
            clearTimeout(timer);
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          watchers.splice(watchers.indexOf(check), 1);
          reject(new Error(`timed out waiting for ${re} in stderr:\n${stderr}`));
        }, timeoutMs);
        watchers.push(check);
        check();
      });
    },
  };
}

/** PIDs of a run's processes whose environment also has `key=value` (e.g. RIG_GENERATOR_ID=g02). */
export function pidsOfRunWith(runId: string, key: string, value: string): number[] {
  return pidsOfRun(runId).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${key}=${value}`);
    } catch {
      return false;
    }
  });
}
