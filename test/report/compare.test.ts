/// <reference lib="dom" />
/**
 * The comparison page from two synthetic reports with markup in every run-provided string: escaped,
 * self-contained, the baseline's timelines shifted onto the run's start and drawn dashed in the
 * colour of the run's matching series (checked in headless Chromium), the table holding the deltas.
 */
import * as path from 'node:path';
import { compareRuns } from '../../scripts/report/compare';
import { renderComparisonHtml } from '../../scripts/report/compare-html';
import { buildCharts } from '../../scripts/report/html';
import { BASE_LABEL, RUN_LABEL, overlayCharts } from '../../scripts/report/html/overlay';
import { loadOf } from '../../scripts/report/read-run';
import { ARTIFACTS, chartData, openRendered } from './browser';
import { T0, XSS, hostileReport } from './fixture';
import type { ReportJson } from '../../scripts/report/types';

const DAY = 86_400_000;

/** The same fixture one day earlier, with lower delivery latency: the baseline. */
function baselineReport(): ReportJson {
  const r = hostileReport();
  const shift = (at: number) => at - DAY;
  const scale = <T extends Record<string, unknown>>(s: T): T => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, typeof v === 'number' ? v / 2 : v])) as T;
  return {
    ...r,
    runId: `base-${XSS}`,
    startedAt: shift(T0),
    endedAt: shift(r.endedAt),
    aggregate: { ...r.aggregate, summaries: { ...r.aggregate.summaries, 'pubsub.delivery_latency': scale(r.aggregate.summaries['pubsub.delivery_latency'] as never) } },
    intermediate: r.intermediate.map((p) => ({ ...p, period: shift(p.period), summaries: { ...p.summaries, 'pubsub.delivery_latency': scale(p.summaries['pubsub.delivery_latency'] as never) } })),
    timeline: { ...r.timeline, health: r.timeline.health.map((h) => ({ ...h, at: shift(h.at) })), target: r.timeline.target.map((t) => ({ ...t, at: shift(t.at) })) },
    cloudwatch: undefined,
  };
}

const compared = (r: ReportJson) => ({ summary: r, load: loadOf(r) });

describe('overlayCharts', () => {
  const run = hostileReport();
  const base = baselineReport();
  const set = overlayCharts(buildCharts(run), buildCharts(base), 10);
  const chart = (id: string) => set.charts.find((c) => c.id === id);
  const points = (id: string, label: string) => {
    const c = chart(id);
    const s = c?.series.find((x) => x.label === label);
    return (c?.x ?? []).map((x, i) => [x, s?.values[i]] as const).filter(([, v]) => v !== null && v !== undefined);
  };

  test("the baseline is shifted onto the run's start: the same elapsed time lines up", () => {
    expect(set.start).toBe(T0 / 1000);
    expect(points('latency-pubsub.delivery_latency', `${RUN_LABEL}p99`)).toEqual([[T0 / 1000, 100], [T0 / 1000 + 10, 150], [T0 / 1000 + 20, 200], [T0 / 1000 + 30, 200]]);
    expect(points('latency-pubsub.delivery_latency', `${BASE_LABEL}p99`)).toEqual([[T0 / 1000, 50], [T0 / 1000 + 10, 75], [T0 / 1000 + 20, 100], [T0 / 1000 + 30, 100]]);
    for (const c of set.charts) for (const x of c.x) expect(x >= set.range[0] && x <= set.range[1]).toBe(true);
  });

  test("each baseline series is paired with the run's series of the same name; a limit is drawn once; stacked bars become steps", () => {
    const lat = chart('latency-pubsub.delivery_latency');
    const labels = lat?.series.map((s) => s.label) ?? [];
    for (const [i, s] of (lat?.series ?? []).entries()) {
      if (s.label.startsWith(BASE_LABEL)) expect(labels[s.pairedWith ?? -1]).toBe(`${RUN_LABEL}${s.label.slice(BASE_LABEL.length)}`);
      else expect([i, s.pairedWith]).toEqual([i, undefined]);
    }
    expect(chart('gen-cpu')?.series.filter((s) => s.threshold).map((s) => s.label)).toEqual([`${RUN_LABEL}saturated above 85%`]);
    const errors = chart('errors');
    expect(errors?.series.map((s) => [s.label, s.kind])).toEqual([[`${RUN_LABEL}${XSS}`, 'period'], [`${BASE_LABEL}${XSS}`, 'period']]);
    // Unstacked per-period counts, the last period closed at its end.
    expect(points('errors', `${BASE_LABEL}${XSS}`)).toEqual([[T0 / 1000, 0], [T0 / 1000 + 10, 10], [T0 / 1000 + 20, 0], [T0 / 1000 + 30, 0]]);
    // A chart only one run has (CloudWatch here) is kept with that run's series.
    expect(chart('cloudwatch-0')?.series.map((s) => s.label)).toEqual([`${RUN_LABEL}TargetCPU ${XSS}`]);
  });
});

describe('the comparison page', () => {
  const base = baselineReport();
  const run = hostileReport();
  const comparison = compareRuns(compared(base), compared(run));
  const html = renderComparisonHtml(comparison, base, run);

  test('escaped and self-contained, with the same CSP as report.html', () => {
    expect(html).not.toContain(XSS);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html.match(/<script\b/g)).toHaveLength(3);
    expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*\b(src|href)=/i);
    expect(html).toMatch(/Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;sha256-[^']+&#39; &#39;sha256-/);
  });

  test('in Chromium: no script runs but the page\'s, the table has the deltas, the timelines are overlaid', async () => {
    const opened = await openRendered(html, 'compare-hostile.html');
    try {
      const { page } = opened;
      expect(await page.locator('h1').innerText()).toBe(`Comparison: ${run.runId} against baseline ${base.runId}`);
      expect(await page.locator('#comparable').innerText()).toMatch(/^Same scenario and load/);
      const cells = await page.locator('#comparison tr[data-metric="pubsub.delivery_latency.p99"] td').allInnerTexts();
      expect(cells).toEqual(['pubsub.delivery_latency.p99', '100', '200', '+100', '+100.0%']);
      const charts = await chartData(page);
      expect(charts.map((c) => c.id)).toEqual(overlayCharts(buildCharts(run), buildCharts(base), 10).charts.map((c) => c.id));
      const lat = charts.find((c) => c.id === 'latency-pubsub.delivery_latency');
      expect(lat?.series.find((s) => s.label === `${BASE_LABEL}p99`)?.points).toEqual([[T0 / 1000, 50], [T0 / 1000 + 10, 75], [T0 / 1000 + 20, 100], [T0 / 1000 + 30, 100]]);
      // The baseline's line: dashed, in the colour of the run's.
      const style = await page.evaluate(() => {
        type S = { label?: string; dash?: number[]; _stroke?: string };
        const all = (window as unknown as { __rigCharts: Array<{ id: string; uplot: { series: S[] } }> }).__rigCharts;
        const u = all.find((c) => c.id === 'latency-pubsub.delivery_latency')?.uplot;
        const find = (l: string) => u?.series.find((s) => s.label === l);
        return { run: find('this run · p99'), base: find('baseline · p99') };
      });
      expect(style.run?.dash ?? null).toBeNull();
      expect(style.base?.dash).toEqual([7, 4]);
      expect(style.base?._stroke).toBe(style.run?._stroke);
      await page.screenshot({ path: path.join(ARTIFACTS, 'compare-hostile.png'), fullPage: true });
    } finally {
      await opened.close();
    }
  });

  test('a baseline of other load: the page says NOT COMPARABLE first and names each difference', () => {
    const other = { ...base, scenario: 'connect', rig: { ...base.rig, plan: { ...base.rig.plan, arrivalsPerGenerator: [10, 10] } } };
    const page = renderComparisonHtml(compareRuns(compared(other), compared(run)), other, run);
    expect(page).toMatch(/<title>NOT COMPARABLE — /);
    expect(page).toContain('<li>scenario: baseline connect, this run pubsub &lt;img src=x onerror=alert(1)&gt;</li>');
    expect(page).toContain('<li>vusers: baseline 20, this run 300</li>');
  });
});
