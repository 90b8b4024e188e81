/** Plain `artillery run` (node_modules/.bin/artillery, one worker) on a script, for the suites that compare the rig with it. */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/cli';

const ARTILLERY = path.join(ROOT, 'node_modules', '.bin', 'artillery');

/** What plain `artillery run` exited with, printed, and wrote with `--output`. */
export interface PlainResult {
  code: number | null;
  stdout: string;
  report: { aggregate: { counters: Record<string, number>; rates?: Record<string, number>; summaries: Record<string, Record<string, number>> } };
}

/** Runs `artillery run ...args --output <outDir>/plain.json script` from `scriptsDir`. */
export function runPlain(script: string, args: readonly string[], env: NodeJS.ProcessEnv, outDir: string, scriptsDir: string): Promise<PlainResult> {
  const output = path.join(outDir, 'plain.json');
  return new Promise((resolve, reject) => {
    const child = spawn(ARTILLERY, ['run', ...args, '--output', output, script], {
      cwd: scriptsDir,
      env: { ...process.env, ...env, WORKERS: '1', ARTILLERY_DISABLE_TELEMETRY: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, report: JSON.parse(fs.readFileSync(output, 'utf8')) });
    });
  });
}
