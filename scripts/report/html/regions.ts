/**
 * report.html's per-region section (generators in several regions): Relaybox's figures with one column per region,
 * and each region's timeline as charts on the report's shared time axis (vusers created per period, delivery p95).
 */
import type { RegionSummary } from '../regions';
import { regionRows } from '../regions';
import type { ChartSet, ChartSpec } from './charts';
import { escapeHtml as e } from './escape';

/** The "By region" table; '' for a one-region run. */
export function regionSection(regions: readonly RegionSummary[] | undefined): string {
  if (!regions?.length) return '';
  const head = `<tr><th>figure</th>${regions.map((r) => `<th class="num">${e(r.region)}</th>`).join('')}</tr>`;
  const body = regionRows(regions).map(([label, ...cells]) => `<tr><td class="name">${e(label)}</td>${cells.map((c) => `<td class="num">${e(c)}</td>`).join('')}</tr>`).join('');
  return `<h2 id="regions">By region</h2><p class="note">Generators in ${regions.length} regions, one shared start instant; each region's figures from its own generators, merged exactly (the columns add up to the run's counters).</p>` +
    `<table id="region-figures"><thead>${head}</thead><tbody>${body}</tbody></table>`;
}

/** One chart per figure, one series per region; each value drawn over its period (closed at the last period's end). */
export function regionCharts(regions: readonly RegionSummary[] | undefined, periodMs: number): ChartSpec[] {
  if (!regions?.length) return [];
  const starts = [...new Set(regions.flatMap((r) => r.timeline.map((p) => p.period)))].sort((a, b) => a - b);
  if (!starts.length) return [];
  const x = [...starts, (starts[starts.length - 1] ?? 0) + periodMs].map((ms) => ms / 1000);
  const chart = (id: string, group: ChartSpec['group'], title: string, unit: string, f: (p: RegionSummary['timeline'][number]) => number | null): ChartSpec => ({
    id,
    group,
    title,
    unit,
    x,
    series: regions.map((r) => {
      const byPeriod = new Map(r.timeline.map((p) => [p.period, f(p)]));
      const values = starts.map((s) => byPeriod.get(s) ?? null);
      return { label: r.region, kind: 'period' as const, values: [...values, values[values.length - 1] ?? null] };
    }),
  });
  return [
    chart('region-created', 'load', 'Vusers created per period, by region', 'vusers', (p) => p.created),
    chart('region-delivery-p95', 'latency', 'Delivery time p95 per period, by region', 'ms', (p) => p.deliveryP95),
  ].filter((c) => c.series.some((s) => s.values.some((v) => v !== null && v !== 0)));
}

/** The chart set with the regions' charts added. */
export function withRegionCharts(set: ChartSet, regions: readonly RegionSummary[] | undefined, periodMs: number): ChartSet {
  const extra = regionCharts(regions, periodMs);
  return extra.length ? { ...set, charts: [...set.charts, ...extra] } : set;
}
