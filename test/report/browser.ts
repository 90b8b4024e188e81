/// <reference lib="dom" />
/**
 * Opens a report.html in Debian's headless Chromium (driven by playwright-core, no browser download)
 * and collects what the tests assert on: console errors, dialogs, the charts' uPlot data.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, Browser, Page } from 'playwright-core';

/** Where Debian's `chromium` package installs the browser; CHROMIUM_PATH overrides it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** What one page load produced. */
export interface OpenedReport {
  readonly page: Page;
  readonly consoleErrors: string[];
  readonly dialogs: string[];
  /** Requests the page tried to make besides the file itself (a self-contained report makes none). */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Launches a fresh Chromium (own user-data-dir) and opens the file; waits for the load event. */
export async function openReport(file: string, viewport = { width: 1366, height: 900 }): Promise<OpenedReport> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, args: ARGS, headless: true, viewport });
  const page = context.pages()[0] ?? (await context.newPage());
  const consoleErrors: string[] = [];
  const dialogs: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  const url = `file://${path.resolve(file)}`;
  page.on('request', (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  await page.goto(url, { waitUntil: 'load' });
  return {
    page,
    consoleErrors,
    dialogs,
    requests,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Every chart's series as uPlot holds them: label and the non-null [x, y] points. */
export function chartData(page: Page): Promise<Array<{ id: string; width: number; height: number; series: Array<{ label: string; points: Array<[number, number]> }> }>> {
  return page.evaluate(() => {
    type U = { data: Array<Array<number | null>>; series: Array<{ label?: string }>; width: number; height: number };
    const charts = (window as unknown as { __rigCharts?: Array<{ id: string; uplot: U }> }).__rigCharts ?? [];
    return charts.map(({ id, uplot }) => ({
      id,
      width: uplot.width,
      height: uplot.height,
      series: uplot.series.slice(1).map((s, i) => ({
        label: String(s.label),
        points: (uplot.data[0] ?? [])
          .map((x, k) => [x, uplot.data[i + 1]?.[k]] as [number, number | null | undefined])
          .filter((p): p is [number, number] => typeof p[1] === 'number'),
      })),
    }));
  });
}

/** Browser type re-exported for tests that hold one. */
export type { Browser };
