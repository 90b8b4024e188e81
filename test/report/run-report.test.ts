/// <reference lib="dom" />
/**
 * A real local run through the CLI: its report.html opened in headless Chromium (no console errors,
 * every chart drawn with the points of report.json, the verdict visible, a screenshot kept under
 * test-artifacts/), `npm run report` rebuilding the same report from the folder, and thresholds
 * gating the exit code (holding → 0, breached → 1).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CliResult, ROOT, runCli, tempDir } from '../helpers/cli';
import { chartData, openReport } from './browser';
import type { ReportJson } from '../../scripts/report/types';

const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const RUN = ['--vusers', '60', '--generators', '2', '--ramp', '4s', '--hold', '2s'];

function runReportCli(dir: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'launch.js'), path.join(ROOT, 'scripts', 'report-cli.ts'), dir], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('a real local run and its report', () => {
  const out = path.join(tempDir('rig-report-'), 'run');
  let result: CliResult;
  let report: ReportJson;

  beforeAll(async () => {
    result = await runCli([...RUN, '--out', out, '--json', '--ensure', 'vusers.failed == 0', '--ensure', 'ws.connect_time.p99 < 5000']);
    report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8')) as ReportJson;
  }, 120_000);

  test('a run whose thresholds hold exits 0 and records them', () => {
    expect(result.code).toBe(0);
    expect(result.json.thresholds).toEqual([
      { expression: 'vusers.failed == 0', ok: true },
      { expression: 'ws.connect_time.p99 < 5000', ok: true },
    ]);
    expect(result.json.rig.verdict).toBe(report.rig.verdict);
    expect(result.json.result).toEqual({ passed: true, exitCode: 0, reasons: ['0 of 60 vusers failed (0%) ≤ --max-error-rate 0%', 'threshold `vusers.failed == 0` held', 'threshold `ws.connect_time.p99 < 5000` held'] });
    // The terminal summary ends with the result line, the same words as the JSON.
    expect(result.stderr.trimEnd().split('\n').slice(-2)).toEqual([`report: ${path.join(out, 'report.html')}`, `result: PASSED (exit 0): ${result.json.result.reasons.join('; ')}`]);
    expect(result.stderr).toContain('ensure vusers.failed == 0');
  });

  test('report.html opens in Chromium: no console errors, charts match report.json, verdict visible', async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const opened = await openReport(path.join(out, 'report.html'));
    try {
      const { page } = opened;
      expect(opened.consoleErrors).toEqual([]);
      expect(opened.requests).toEqual([]);
      expect(await page.locator('#verdict-summary').textContent()).toBe(report.rig.verdictDetail.summary);
      expect(await page.locator('#verdict').isVisible()).toBe(true);
      expect(await page.locator('#verdict .label').innerText()).toBe(`RIG VERDICT: ${report.rig.verdict.toUpperCase()}`);
      expect(await page.locator('#result-word').innerText()).toBe('PASSED');

      const charts = await chartData(page);
      const byId = new Map(charts.map((c) => [c.id, c]));
      for (const c of charts) {
        expect(c.width).toBeGreaterThan(300);
        expect(c.series.filter((s) => !s.label.startsWith('saturated')).every((s) => s.points.length > 0)).toBe(true);
      }
      const periods = [...report.intermediate].sort((a, b) => a.period - b.period);
      const at = (ms: number) => ms / 1000;
      const series = (id: string, label: string) => byId.get(id)?.series.find((s) => s.label === label)?.points;
      // A period's value is drawn over the period: from its start (never before the run's) to the next
      // point, the last one closed at its end; a period without a value is closed by the one before it.
      const start = report.startedAt ?? (periods[0]?.period as number);
      const lastEnd = at((periods[periods.length - 1]?.period as number) + 10_000);
      const overPeriod = (f: (p: (typeof periods)[number]) => number | undefined) => {
        const values = periods.map((p) => f(p) ?? null);
        return [
          ...periods.map((p, i) => [at(Math.max(p.period, start)), values[i] ?? (i > 0 ? values[i - 1] : null)]),
          [lastEnd, values[values.length - 1] ?? null],
        ].filter(([, v]) => v !== null && v !== undefined);
      };
      // Arrivals per period = vusers.created of each merged period.
      expect(series('load', 'arrivals / 10 s')).toEqual(overPeriod((p) => p.counters['vusers.created'] ?? 0));
      expect(periods.reduce((a, p) => a + (p.counters['vusers.created'] ?? 0), 0)).toBe(60);
      // Connect-time p99 of each period.
      expect(series('latency-ws.connect_time', 'p99')).toEqual(overPeriod((p) => p.summaries['ws.connect_time']?.p99));
      // Per-generator CPU and memory: every health sample of every load process taken during the run.
      const inRun = (ms: number) => at(ms) >= at(start) && at(ms) <= Math.max(at(report.endedAt), lastEnd) + 10;
      const health = report.timeline.health.filter((h) => inRun(h.at));
      const procs = [...new Set(health.map((h) => `${h.generator}/${h.process}`))];
      expect(procs.length).toBeGreaterThanOrEqual(2);
      for (const p of procs) {
        const mine = health.filter((h) => `${h.generator}/${h.process}` === p);
        expect(series('gen-cpu', p)).toEqual(mine.filter((h) => h.cpuPercent !== undefined).map((h) => [at(h.at), h.cpuPercent]));
        expect(series('gen-files', p)).toEqual(mine.filter((h) => h.openFiles !== undefined).map((h) => [at(h.at), h.openFiles]));
      }
      expect([...byId.keys()]).toEqual(expect.arrayContaining(['load', 'latency-ws.connect_time', 'gen-cpu', 'gen-lag', 'gen-memory', 'gen-files', 'gen-ports']));
      // No empty chart: a run without errors has no errors chart, and the page says so.
      if (!Object.keys(report.aggregate.counters).some((k) => k.startsWith('errors.'))) {
        expect(byId.has('errors')).toBe(false);
        expect(await page.locator('body').innerText()).toContain('errors: the run had none');
      }
      if (report.timeline.target.length) {
        expect(series('target-instances', 'connections')).toEqual(report.timeline.target.filter((t) => t.connections !== undefined && inRun(t.at)).map((t) => [at(t.at), t.connections]));
      }
      await page.screenshot({ path: path.join(ARTIFACTS, 'report-local-run.png'), fullPage: true });
    } finally {
      await opened.close();
    }
  });

  test('npm run report rebuilds the same report.json and report.html from the folder', async () => {
    const before = { json: fs.readFileSync(path.join(out, 'report.json'), 'utf8'), html: fs.readFileSync(path.join(out, 'report.html'), 'utf8') };
    fs.rmSync(path.join(out, 'report.json'));
    fs.rmSync(path.join(out, 'report.html'));
    const r = await runReportCli(out);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(out, 'report.json'), 'utf8')).toBe(before.json);
    expect(fs.readFileSync(path.join(out, 'report.html'), 'utf8')).toBe(before.html);
    // Without outcome.json (a run folder from before it existed) the end state is derived from the raw files.
    fs.rmSync(path.join(out, 'outcome.json'));
    expect((await runReportCli(out)).code).toBe(0);
    const derived = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8')) as ReportJson;
    expect(derived.aggregate).toEqual(report.aggregate);
    expect(derived.thresholds).toEqual(report.thresholds);
  });

  test('npm run report on a folder that is not a run exits 2', async () => {
    const r = await runReportCli(tempDir('rig-not-a-run-'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a run folder/);
  });
});

test('a breached threshold exits 1 and is recorded as breached', async () => {
  const out = path.join(tempDir('rig-report-'), 'run');
  // The exit code comes from thresholds read once the load is over: a 2-s run over the same two generators shows it as
  // well as RUN's 6 s. They read the merged figures: 20 here, where either generator alone would read 10.
  const r = await runCli(['--vusers', '20', '--generators', '2', '--ramp', '1s', '--hold', '1s', '--out', out, '--json', '--ensure', 'vusers.created < 10', '--ensure', 'vusers.failed == 0']);
  expect(r.code).toBe(1);
  expect(r.json.thresholds).toEqual([
    { expression: 'vusers.created < 10', ok: false },
    { expression: 'vusers.failed == 0', ok: true },
  ]);
  expect(r.stderr).toMatch(/ensure vusers\.created < 10\s+BREACHED/);
  expect(r.json.result).toEqual({ passed: false, exitCode: 1, reasons: ['threshold `vusers.created < 10` breached: vusers.created = 20'] });
}, 120_000);
