/// <reference lib="dom" />
/**
 * Opens a report.html in Debian's headless Chromium (driven by playwright-core, no browser download)
 * and collects what the tests assert on: console errors, dialogs, the charts' uPlot data.
 */
import type { Browser, Page } from 'playwright-core';
import { DEFAULT_CHROMIUM, openInChromium } from '../../scripts/report/chromium';

/** Where Debian's `chromium` package installs the browser; CHROMIUM_PATH overrides it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM;

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
  const consoleErrors: string[] = [];
  const dialogs: string[] = [];
  const requests: string[] = [];
  const opened = await openInChromium(file, {
    viewport,
    executablePath: CHROMIUM,
    before: (page, url) => {
      page.on('console', (m) => {
        if (m.type() === 'error') consoleErrors.push(m.text());
      });
      page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));
      page.on('dialog', (d) => {
        dialogs.push(`${d.type()}: ${d.message()}`);
        void d.dismiss();
      });
      page.on('request', (r) => {
        if (r.url() !== url) requests.push(r.url());
      });
    },
  });
  return { page: opened.page, consoleErrors, dialogs, requests, close: () => opened.close() };
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
