/**
 * Runs the real CLI (`npm run loadtest` without npm's banner) as a child process and waits for it to
 * exit: end-to-end tests drive exactly what a user types.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
const TS_NODE = path.join(ROOT, 'node_modules', '.bin', 'ts-node');

/** What a CLI run left behind. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The parsed summary when `--json` was passed and the run produced one. */
  readonly json?: any;
}

/** Runs `scripts/cli.ts` with the given flags; resolves on exit (killed after `timeoutMs`). */
export function runCli(args: readonly string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(TS_NODE, ['--transpile-only', path.join(ROOT, 'scripts', 'cli.ts'), ...args], {
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
  return fs.mkdtempSync(path.join(require('node:os').tmpdir(), prefix));
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
