/**
 * Comparing runs through the real CLIs: `npm run loadtest -- --baseline` (the table at the end, the
 * comparison page in the run folder, baseline expressions gating the exit code), bad baselines
 * refused before anything starts, and `npm run report -- --compare` on the two folders (exit 0 when
 * every expression holds, 1 on a regression, a baseline of other load reported as not comparable).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CliResult, runCli, tempDir } from '../helpers/cli';
import type { ReportJson } from '../../scripts/report/types';

// A vuser lost to a cookie timeout on a loaded machine is not what these tests are about.
const RUN = ['--vusers', '20', '--generators', '1', '--ramp', '2s', '--hold', '2s', '--scenario', 'pubsub', '--max-error-rate', '50'];
const report = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')) as ReportJson;
const compareCli = (args: string[]) => runCli(['--compare', ...args], { script: 'report-cli.ts' });

describe('a run against its baseline', () => {
  const root = tempDir('rig-baseline-');
  const baseDir = path.join(root, 'base');
  const runDir = path.join(root, 'run');
  let base: CliResult;
  let run: CliResult;

  beforeAll(async () => {
    base = await runCli([...RUN, '--out', baseDir, '--json']);
    run = await runCli([...RUN, '--out', runDir, '--json', '--baseline', baseDir, '--ensure', 'p99 <= baseline.p99 * 1000', '--ensure', 'vusers.created > baseline.vusers.created']);
  }, 200_000);

  test('a regression against the baseline exits 1, each expression recorded; the table and the page come at the end', () => {
    expect(base.code).toBe(0);
    expect(run.code).toBe(1);
    expect(run.json.thresholds).toEqual([
      { expression: 'p99 <= baseline.p99 * 1000', ok: true },
      { expression: 'vusers.created > baseline.vusers.created', ok: false, values: 'vusers.created = 20, baseline.vusers.created = 20' },
    ]);
    expect(run.json.result.exitCode).toBe(1);
    const baseId = report(baseDir).runId;
    // The summary JSON names the baseline and says it was comparable.
    expect(run.json.baseline).toEqual({ runId: baseId, differences: [] });
    expect(run.stderr).toContain(`Comparison: this run ${report(runDir).runId} against baseline ${baseId}`);
    expect(run.stderr).toContain('same scenario and load: pubsub, 20 vusers (ramp 2 s, 20 arrivals)');
    // The load planned before the start and the load read back from the folder agree: no warning.
    expect(run.stderr).not.toContain('warning: baseline');
    expect(run.stderr).toMatch(/^vusers\.created\s+20\s+20\s+0\s+0\.0%$/m);
    const page = path.join(runDir, `compare-${baseId}.html`);
    expect(run.stderr).toContain(`comparison: ${page}`);
    expect(fs.readFileSync(page, 'utf8')).toContain('<table id="comparison">');
    // The result line stays last.
    expect(run.stderr.trimEnd().split('\n').slice(-1)[0]).toBe('result: FAILED (exit 1): threshold `vusers.created > baseline.vusers.created` breached: vusers.created = 20, baseline.vusers.created = 20');
  });

  test('npm run report rebuilds the run with the same baseline thresholds', async () => {
    const before = report(runDir).thresholds;
    fs.rmSync(path.join(runDir, 'report.json'));
    const r = await runCli([runDir], { script: 'report-cli.ts' });
    expect(r.code).toBe(0);
    expect(report(runDir).thresholds).toEqual(before);
  }, 60_000);

  test('npm run report -- --compare: the table on stdout, exit 0 when the expressions hold, 1 on a regression', async () => {
    const held = await compareCli([baseDir, runDir, '--ensure', 'vusers.created <= baseline.vusers.created']);
    expect(held.code).toBe(0);
    expect(held.stdout).toMatch(/^pubsub\.delivery_latency\.p99\s+\S+\s+\S+\s+\S+\s+\S+$/m);
    expect(held.stderr).toContain('threshold `vusers.created <= baseline.vusers.created` held');
    const breached = await compareCli([baseDir, runDir, '--json', '--ensure', 'vusers.created < baseline.vusers.created']);
    expect(breached.code).toBe(1);
    // --json: the comparison on stdout for a CI step to read.
    expect(breached.json.rows.find((r: { metric: string }) => r.metric === 'vusers.created')).toEqual({ kind: 'counter', metric: 'vusers.created', base: 20, run: 20, delta: 0, relative: 0 });
    expect(breached.json.differences).toEqual([]);
    expect(breached.json.thresholds).toEqual([{ expression: 'vusers.created < baseline.vusers.created', ok: false, values: 'vusers.created = 20, baseline.vusers.created = 20' }]);
    expect(breached.stderr).toContain('threshold `vusers.created < baseline.vusers.created` breached: vusers.created = 20, baseline.vusers.created = 20');
  }, 60_000);

  test('a baseline of another load is reported as not comparable, and an expression reading it fails', async () => {
    const other = path.join(root, 'other');
    fs.cpSync(runDir, other, { recursive: true });
    const runJson = JSON.parse(fs.readFileSync(path.join(other, 'run.json'), 'utf8'));
    fs.writeFileSync(path.join(other, 'run.json'), JSON.stringify({ ...runJson, options: { ...runJson.options, holdSeconds: 5, vars: { rooms: 4 } } }));
    const r = await compareCli([other, runDir, '--ensure', 'p99 <= baseline.p99 * 1000']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('NOT COMPARABLE');
    expect(r.stdout).toContain('  - hold: baseline 5 s, this run 2 s');
    expect(r.stdout).toContain('  - --var rooms: baseline 4, this run (not set)');
    expect(r.stderr).toMatch(/threshold `p99 <= baseline.p99 \* 1000` could not be evaluated: not compared: baseline \S+ ran a different scenario or load/);
  }, 60_000);
});

describe('bad baselines are refused before anything starts (exit 2, one line, no run folder)', () => {
  test.each([
    ['a folder that does not exist', (root: string) => path.join(root, 'missing'), /--baseline \S+missing does not exist; pass a run folder such as runs\/<run-id>/],
    ['a folder that is not a run', (root: string) => root, /--baseline \S+ is not a run folder \(no run\.json\)/],
    ['a file (a summary JSON), not a folder', (root: string) => { const f = path.join(root, 'summary.json'); fs.writeFileSync(f, '{}'); return f; }, /--baseline \S+summary\.json is a file, not a run folder/],
  ])('%s', async (_what, folder, message) => {
    const root = tempDir('rig-bad-baseline-');
    const out = path.join(tempDir('rig-bad-baseline-out-'), 'run');
    const r = await runCli([...RUN, '--out', out, '--baseline', folder(root)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
    expect(fs.existsSync(out)).toBe(false);
  }, 60_000);

  test('--ensure reading baseline.* without --baseline', async () => {
    const out = path.join(tempDir('rig-bad-baseline-out-'), 'run');
    const r = await runCli([...RUN, '--out', out, '--ensure', 'p99 <= baseline.p99 * 1.1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: --ensure "p99 <= baseline.p99 * 1.1" reads baseline.* but no --baseline was given; add --baseline runs/<run-id>');
    expect(fs.existsSync(out)).toBe(false);
  }, 60_000);

  test('npm run report -- --compare with one folder', async () => {
    const r = await compareCli([tempDir('rig-x-')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --compare takes two run folders, the baseline first \(got 1\)/);
  }, 60_000);
});
