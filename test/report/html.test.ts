/// <reference lib="dom" />
/**
 * report.html from a synthetic report with markup in every run-provided string: the markup appears
 * only escaped, the page runs no injected script (checked in headless Chromium), nothing is fetched,
 * and the charts hold the report's numbers.
 */
import * as path from 'node:path';
import { buildCharts, renderHtml } from '../../scripts/report/html';
import { jsonForScript } from '../../scripts/report/html/escape';
import { ARTIFACTS, chartData, openRendered } from './browser';
import { T0, XSS, hostileReport } from './fixture';


describe('renderHtml (static)', () => {
  const html = renderHtml(hostileReport());

  test('run-provided markup appears only escaped', () => {
    expect(html).not.toContain(XSS);
    expect(html).not.toContain('<script>alert(2)');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('http://127.0.0.1:1/&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    // Three script elements only: the JSON data, uPlot, the report's own script.
    expect(html.match(/<script\b/g)).toHaveLength(3);
  });

  test('self-contained: no external reference, a CSP that allows only the inline scripts by hash', () => {
    expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*\b(src|href)=/i);
    expect(html).toMatch(/Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;sha256-[^']+&#39; &#39;sha256-/);
  });

  test('JSON embedded for the page survives any string', () => {
    const tricky = { s: `</script><!-- ${XSS} \u2028 & > <` };
    const text = jsonForScript(tricky);
    expect(text).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(text)).toEqual(tricky);
  });
});

describe('buildCharts', () => {
  const set = buildCharts(hostileReport());
  const chart = (id: string) => set.charts.find((c) => c.id === id);

  test('one shared x range covering every chart', () => {
    for (const c of set.charts) for (const x of c.x) expect(x >= set.range[0] && x <= set.range[1]).toBe(true);
  });

  test('rig-limited periods and scale-out moments are marked', () => {
    expect(set.rigLimited).toEqual([[(T0) / 1000, (T0 + 10_000) / 1000], [(T0 + 10_000) / 1000, (T0 + 20_000) / 1000]]);
    expect(set.scaleOuts).toEqual([(T0 + 15_500) / 1000]);
  });

  test('arrivals over their period, active vusers at the period end, errors stacked, latency, messages/s, health, target and CloudWatch', () => {
    const load = chart('load');
    const points = (label: string) => {
      const s = load?.series.find((x) => x.label === label);
      return (load?.x ?? []).map((x, i) => [x, s?.values[i]] as const).filter(([, v]) => v !== null && v !== undefined);
    };
    const at = (ms: number) => ms / 1000;
    // A period's arrivals from its start to its end (the last point closes the last period).
    expect(points('arrivals / 10 s')).toEqual([[at(T0), 100], [at(T0 + 10_000), 100], [at(T0 + 20_000), 100], [at(T0 + 30_000), 100]]);
    // Active vusers is a level at the end of each period (it leads nothing).
    expect(points('active vusers')).toEqual([[at(T0 + 10_000), 100], [at(T0 + 20_000), 100], [at(T0 + 30_000), 110]]);
    expect(points('target connections').map(([, v]) => v)).toEqual([0, 50, 100, 150, 200, 250]);
    expect(chart('errors')?.series.map((s) => [s.label, s.kind, s.raw?.filter((v) => v !== null)])).toEqual([[XSS, 'bars', [0, 10, 0]]]);
    expect(chart('latency-pubsub.delivery_latency')?.series.find((s) => s.label === 'p99')?.values).toEqual([100, 150, 200, 200]);
    expect(chart('latency-pubsub.delivery_latency')?.series.map((s) => s.label)).toEqual(['p50', 'p75', 'p90', 'p95', 'p99', 'max']);
    expect(chart('messages')?.series[0]?.values).toEqual([50, 100, 150, 150]);
    expect(chart('gen-cpu')?.series.map((s) => s.label)).toEqual(['g01/p0', 'g02/p0', 'saturated above 85%']);
    expect(chart('target-instances')?.series.map((s) => [s.label, s.scale])).toEqual([['connections', undefined], ['active vusers', undefined], ['instances', 'y2']]);
    expect(chart('cloudwatch-0')?.series[0]?.values).toEqual([10, 55]);
  });

  test('every chart has data: none is drawn empty, what is missing is named', () => {
    for (const c of set.charts) expect(c.series.some((s) => !s.threshold && s.values.some((v) => v !== null && v !== 0))).toBe(true);
    expect(set.absent.join('; ')).toMatch(/target event-loop lag: the target did not report it/);
  });

  test('period alignment of every timeline series: period values over their period, levels at their instant', () => {
    const r = hostileReport();
    const starts = r.intermediate.map((p) => p.period / 1000);
    const lastEnd = Math.max(...starts) + r.timeline.periodMs / 1000;
    const instants = new Set([...r.timeline.health.map((h) => h.at / 1000), ...r.timeline.target.map((t) => t.at / 1000)]);
    for (const c of set.charts.filter((x) => !x.id.startsWith('cloudwatch'))) {
      for (const s of c.series) {
        const xs = c.x.filter((_, i) => s.values[i] !== null);
        if (s.kind === 'period') expect(xs).toEqual([...starts, lastEnd]);
        else if (s.kind === 'bars') expect(xs).toEqual(starts);
        else if (s.label === 'active vusers') expect(xs).toEqual(starts.map((x) => x + 10));
        else if (!s.threshold) for (const x of xs) expect(instants.has(x)).toBe(true);
      }
    }
  });

  test('phases are laid on the elapsed-time axis from the run start, with "after arrivals" after the last arrival', () => {
    expect(set.start).toBe(T0 / 1000);
    expect(set.phases).toEqual([{ name: XSS, from: T0 / 1000, to: T0 / 1000 + 20 }, { name: 'after arrivals', from: T0 / 1000 + 20, to: T0 / 1000 + 30 }]);
  });
});

describe('report.html in headless Chromium', () => {
  test('markup is shown as text, no injected script runs, every chart is drawn', async () => {
    const opened = await openRendered(renderHtml(hostileReport()), 'report-hostile.html');
    try {
      const { page } = opened;
      const text = await page.evaluate(() => document.body.innerText);
      expect(text).toContain(XSS);
      expect(text).toContain('RIG VERDICT: RIG-LIMITED');
      expect(await page.locator('#result-word').innerText()).toBe('FAILED');
      const charts = await chartData(page);
      expect(charts.map((c) => c.id)).toEqual(buildCharts(hostileReport()).charts.map((c) => c.id));
      for (const c of charts) {
        expect(c.width).toBeGreaterThan(300);
        expect(c.series.some((s) => s.points.length > 0)).toBe(true);
      }
      // The same plot width on every chart: a right-hand axis (instances) does not narrow its chart.
      const plotWidths = await page.evaluate(() =>
        ((window as unknown as { __rigCharts: Array<{ uplot: { bbox: { width: number } } }> }).__rigCharts ?? []).map((c) => c.uplot.bbox.width),
      );
      expect(plotWidths).toEqual(plotWidths.map(() => plotWidths[0]));
      // The first screen answers first: FAILED and the reasons above the first chart.
      const banner = await page.locator('#result').boundingBox();
      const firstChart = await page.locator('.chart').first().boundingBox();
      expect(banner && firstChart && banner.y + banner.height < firstChart.y).toBe(true);
      // uPlot's legend shows the hostile error name as text.
      const legend = await page.evaluate(() => Array.from(document.querySelectorAll('#chart-errors .u-legend .u-label')).map((e) => e.textContent));
      expect(legend).toContain(XSS);
      await page.screenshot({ path: path.join(ARTIFACTS, 'report-hostile.png'), fullPage: true });
    } finally {
      await opened.close();
    }
  });
});
