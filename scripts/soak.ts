/**
 * `npm run soak -- [--runs 100] [--vusers 4] [--generators 2]`: small local runs back to back, to catch rare
 * rig failures (races between processes) that one run does not show. Not part of CI (minutes of load).
 * Prints one line per run and the tally; exits 0 when no run failed, 3 otherwise.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { longFlags, npmEatenRefusal } from './npm-flags';
import { ExitCode } from './errors';

const ROOT = path.resolve(__dirname, '..');

/** One CLI run; resolves with its exit code and the last line it printed on stderr. */
function runOnce(args: readonly string[]): Promise<{ code: number | null; last: string }> {
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
  const options = { runs: { type: 'string' }, vusers: { type: 'string' }, generators: { type: 'string' } } as const;
  const refusal = npmEatenRefusal(process.env, longFlags(options), process.argv.slice(2));
  if (refusal) {
    process.stderr.write(`${refusal}\n`);
    return ExitCode.badInput;
  }
  const { values } = parseArgs({ options });
  const runs = Number(values.runs ?? 100);
  if (!Number.isInteger(runs) || runs < 1 || runs > 10_000) {
    process.stderr.write(`error: --runs ${values.runs} must be a whole number from 1 to 10000, e.g. --runs 100\n`);
    return ExitCode.badInput;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-soak-'));
  let stop = false;
  process.on('SIGINT', () => (stop = true));
  const failures: string[] = [];
  const started = Date.now();
  let done = 0;
  try {
    for (let i = 1; i <= runs && !stop; i++) {
      const out = path.join(work, `run-${i}`);
      const r = await runOnce(['--vusers', values.vusers ?? '4', '--generators', values.generators ?? '2', '--ramp', '1s', '--hold', '1s', '--out', out]);
      done++;
      const ok = r.code === ExitCode.ok;
      if (!ok) failures.push(`run ${i}: exit ${r.code} ${r.last}`);
      process.stderr.write(`soak ${i}/${runs}: exit ${r.code}${ok ? '' : ` — ${r.last}`}\n`);
      if (ok) fs.rmSync(out, { recursive: true, force: true }); // failed runs' folders are kept to read
    }
  } finally {
    if (failures.length === 0) fs.rmSync(work, { recursive: true, force: true });
  }
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  process.stdout.write(`soak: ${done} runs in ${minutes} min, ${failures.length} rig failure(s)${failures.length ? `; run folders kept in ${work}` : ''}\n`);
  for (const f of failures) process.stdout.write(`  ${f}\n`);
  if (stop) return ExitCode.interrupted;
  return failures.length === 0 ? ExitCode.ok : ExitCode.rigFailure;
}

main().then((code) => {
  process.exitCode = code;
});
