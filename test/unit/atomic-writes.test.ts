/**
 * The class behind "SyntaxError: Unexpected end of JSON input at awaitStart" (~1 run in 30): a file one
 * process writes in place while another polls and parses it. Every file the rig's processes write goes
 * through write-then-rename; this test finds any direct write that does not.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** Direct writes that no other process reads while they are written (each with its reason). */
const ALLOWED: Record<string, string> = {
  'scripts/adapters/run-folder.ts': 'the write probe: written and removed by the CLI itself before anything starts',
  'scripts/bench.ts': 'the bench writes its script before it spawns the reader, and its results after every trial ended',
  'scripts/bench/trial.ts': 'a trial writes its script before it spawns the Artillery process that reads it',
  'scripts/platforms/aws/cloudwatch-extras.ts': 'the CloudWatch graphs (PNG) are written after the run, for report.html, which no process reads meanwhile',
  'scripts/bench/first-vuser.js': 'the first-vuser instant is read by the bench only after the trial has ended',
  'scripts/target-app-lock.ts': "a developer's tool: it writes the target app's lockfile, then runs npm on it itself; no other process reads it meanwhile",
};

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(rel);
    return /\.(js|ts)$/.test(e.name) ? [rel] : [];
  });
}

describe('files handed between processes are written whole', () => {
  it('every write in the agent, plugin, run store and CLI goes to a temporary name first', () => {
    const offenders: string[] = [];
    for (const file of [...sources('load-generators'), ...sources('scripts')]) {
      if (ALLOWED[file]) continue;
      const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        const m = /\b(writeFileSync|appendFileSync|promises\.writeFile|promises\.appendFile)\(\s*([^,]+),/.exec(line);
        if (m && !/tmp/i.test(m[2] ?? '')) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });
});
