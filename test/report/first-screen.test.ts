/// <reference lib="dom" />
/**
 * The report answers first, on a real failing run: the CLI runs the built-in pub/sub scenario against a
 * reference target this test starts, which answers 30% of cookie requests with 503 and withholds
 * messages from 20% of sockets; `--ensure pubsub.vusers_zero_messages == 0` makes the run fail.
 * report.html, opened in headless Chromium, shows FAILED and its reasons before the first chart and the
 * zero-message finding on the first screen, at laptop and at phone width; the JSON and the terminal say
 * the same; received messages are booked in the periods they arrived.
 */
import * as path from 'node:path';
import * as fs from 'node:fs';
import { CliResult, ROOT, runCli, tempDir } from '../helpers/cli';
import { Target, getJson, startTarget } from '../target/helpers';
import { resultLine } from '../../scripts/report/result';
import { openReport } from './browser';
import type { ReportJson } from '../../scripts/report/types';

const ARTIFACTS = path.join(ROOT, 'test-artifacts');
jest.setTimeout(150_000);

describe('a failing run whose target withholds messages', () => {
  const out = path.join(tempDir('rig-first-screen-'), 'run');
  let result: CliResult;
  let report: ReportJson;
  let withheld: number;

  beforeAll(async () => {
    const target: Target = await startTarget({ WORKERS: '2', FAULT_WITHHOLD_FRACTION: '0.2', FAULT_COOKIE_503_FRACTION: '0.3', FAULT_SEED: 'first-screen' });
    try {
      result = await runCli(
        ['--scenario', 'pubsub', '--vusers', '60', '--ramp', '3s', '--hold', '6s', '--var', 'rooms=4', '--var', 'publishRate=2', '--generators', '2', '--target', target.base, '--out', out, '--json', '--ensure', 'pubsub.vusers_zero_messages == 0'],
        { timeoutMs: 100_000 },
      );
      withheld = (await getJson(`${target.base}/metrics`)).body.withheldSocketsConnected;
    } finally {
      await target.stop();
    }
    report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8')) as ReportJson;
  });

  test('exit 1; the JSON result and the terminal say FAILED and why, with the value that breached', () => {
    expect(result.code).toBe(1);
    const zero = report.aggregate.counters['pubsub.vusers_zero_messages'];
    expect(withheld).toBeGreaterThan(0);
    expect(zero).toBe(withheld);
    expect(result.json.result).toMatchObject({ passed: false, exitCode: 1 });
    const failed = report.aggregate.counters['vusers.failed'] ?? 0;
    // On a loaded machine a cookie request can time out past its retries: then that is a reason too.
    expect(result.json.result.reasons).toEqual([
      ...(failed ? [expect.stringMatching(new RegExp(`^${failed} of ${report.aggregate.counters['vusers.created']} vusers failed .* > --max-error-rate 0%$`))] : []),
      `threshold \`pubsub.vusers_zero_messages == 0\` breached: pubsub.vusers_zero_messages = ${zero}`,
    ]);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('result: '))).toEqual([`result: ${resultLine(result.json.result)}`]);
    // The engine's counters as Artillery prints them, including the causes of the retries.
    expect(result.stderr).toMatch(/^cookie\.retry_reason\.http_503: \.+ \d+$/m);
    expect(report.aggregate.counters['cookie.retry_reason.http_503']).toBe(report.aggregate.counters['cookie.retry']);
  });

  test('received messages are booked in the period they arrived: each period follows its delivery histogram', () => {
    const periods = report.intermediate;
    const received = periods.map((p) => p.counters['pubsub.messages_received'] ?? 0);
    const delivered = periods.map((p) => (p.summaries['pubsub.delivery_latency']?.count ?? 0) + (p.counters['pubsub.delivery_latency_negative'] ?? 0));
    expect(received).toEqual(delivered);
    expect(received.reduce((a, b) => a + b, 0)).toBe(report.aggregate.counters['pubsub.messages_received']);
    expect(received.some((n) => n > 0)).toBe(true);
  });

  test('report.html: FAILED and its reasons before the first chart, the zero-message finding on the first screen', async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const opened = await openReport(path.join(out, 'report.html'), { width: 1366, height: 900 });
    try {
      const { page } = opened;
      expect(opened.consoleErrors).toEqual([]);
      expect(await page.locator('#result-word').innerText()).toBe('FAILED');
      expect(await page.locator('#result-reasons li').allInnerTexts()).toEqual(report.result.reasons);
      expect(await page.locator('#result').innerText()).toContain('exit code 1');
      const banner = await page.locator('#result').boundingBox();
      const firstChart = await page.locator('.chart').first().boundingBox();
      expect(banner && firstChart && banner.y + banner.height <= firstChart.y).toBe(true);
      // The rig verdict is the second badge, inside the banner.
      expect(await page.locator('#result #rig-badge').innerText()).toMatch(/trustworthy|rig-limited/);
      const zero = page.locator('#finding-zero-messages');
      expect(await zero.getAttribute('class')).toBe('finding bad');
      expect(await zero.innerText()).toContain(`${report.aggregate.counters['pubsub.vusers_zero_messages']} of ${report.aggregate.counters['ws.connected']} connected`);
      const box = await zero.boundingBox();
      expect(box && box.y + box.height <= 900).toBe(true);
      expect(await page.locator('#findings').getAttribute('class')).toContain('bad');
      await page.screenshot({ path: path.join(ARTIFACTS, 'report-first-screen.png') });

      // Phone width: nothing wider than the screen, table cells not squeezed to a letter, findings still first.
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const narrowest = await page.evaluate(() => Math.min(...Array.from(document.querySelectorAll('td.name')).map((td) => (td as HTMLElement).getBoundingClientRect().width)));
      expect(narrowest).toBeGreaterThanOrEqual(80);
      const phoneBanner = await page.locator('#result').boundingBox();
      expect(phoneBanner && phoneBanner.y < 844).toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, 'report-first-screen-phone.png') });
    } finally {
      await opened.close();
    }
  });
});
