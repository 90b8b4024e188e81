/**
 * report.html: one self-contained file (uPlot and its CSS inlined, nothing fetched; a Content
 * Security Policy allows only the two inline scripts by hash). It answers first: PASSED/FAILED with
 * the exit code and every reason, the rig verdict as the second badge, the findings; then thresholds,
 * errors, every timeline on one elapsed-time axis, latency distributions, the figures, and the rig
 * (verdict detail, plan, generators). Everything shown from the run is escaped (see html/escape.ts).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { CLIENT_JS } from './html/client';
import { ChartSet, ChartSpec, buildCharts } from './html/charts';
import { assertInlineScriptSafe, escapeHtml as e, jsonForScript } from './html/escape';
import { distributionSection, errorsSection, findingsCard, resultBanner } from './html/first-screen';
import { headerSection, rigSection, summarySection, thresholdsSection, verdictSection } from './html/sections';
import { regionSection, withRegionCharts } from './html/regions';
import { REPORT_CSS } from './html/style';
import type { ReportJson } from './types';

export { buildCharts };
export type { ChartSet, ChartSpec };

const GROUPS: ReadonlyArray<[ChartSpec['group'], string]> = [
  ['load', 'Load'],
  ['errors', 'Errors and statuses over time'],
  ['latency', 'Latency'],
  ['messages', 'Messages'],
  ['generators', 'Generators (rig health)'],
  ['target', 'Target'],
  ['cloudwatch', 'CloudWatch'],
];

const sha256 = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

/** The timelines: one card per chart, grouped, with what every chart marks and what is not shown. */
export function chartsSection(set: ChartSet): string {
  const parts = [
    `<h2>Timelines</h2><p class="note">One elapsed-time axis on every chart (T+0:00 is the shared start); hovering one moves the cursor on all. ` +
      `Shaded: the phases${set.rigLimited.length ? '; red: rig-limited periods (a generator was saturated or raised errors of its own)' : ''}.` +
      (set.scaleOuts.length ? ' Dashed orange lines: the target scaled out.' : '') +
      ` A period's figure is drawn over its period (a step or a bar); samples at their instant.</p>`,
  ];
  for (const [group, title] of GROUPS) {
    const charts = set.charts.filter((c) => c.group === group);
    if (!charts.length) continue;
    parts.push(`<h2>${e(title)}</h2>`);
    for (const c of charts) {
      parts.push(`<div class="card"><h3>${e(c.title)}</h3><div class="chart" id="chart-${e(c.id)}" data-chart="${e(c.id)}"></div></div>`);
    }
  }
  if (set.absent.length) parts.push(`<p class="note">Not shown: ${set.absent.map((a) => e(a)).join('; ')}.</p>`);
  return parts.join('\n');
}

function cloudwatchAlarms(r: ReportJson): string {
  const alarms = r.cloudwatch?.alarms ?? [];
  if (!alarms.length) return '';
  return `<div class="card"><h3>CloudWatch alarms</h3><table><tbody>${alarms
    .map((a) => `<tr><td>${e(new Date(a.at).toISOString())}</td><td class="name">${e(a.name)}</td><td>${e(a.state)}</td></tr>`)
    .join('')}</tbody></table></div>`;
}

/** The dashboard's graphs saved in the run folder (AWS runs): they outlive the dashboard after --teardown. */
function cloudwatchImages(r: ReportJson): string {
  const images = r.cloudwatch?.images ?? [];
  if (!images.length) return '';
  return `<div class="card"><h3>CloudWatch graphs (run window)</h3>${images
    .map((i) => `<figure><img src="${e(i.file)}" alt="${e(i.title)}" loading="lazy"><figcaption>${e(i.title)}</figcaption></figure>`)
    .join('')}</div>`;
}

/** What a self-contained page holds: its title, its body markup and the data its charts draw. */
export interface PageParts {
  readonly title: string;
  /** Markup of `<main>`: every run-provided value already escaped. */
  readonly body: string;
  /** The charts and their marks, read by the page's own script. */
  readonly set: Pick<ChartSet, 'charts' | 'range' | 'start' | 'phases' | 'rigLimited' | 'scaleOuts'>;
}

/**
 * One self-contained HTML page (uPlot and its CSS inlined, nothing fetched; the Content Security
 * Policy allows only the two inline scripts by hash): report.html and the comparison page.
 */
export function renderPage(parts: PageParts): string {
  const uplotJs = assertInlineScriptSafe(fs.readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'), 'uPlot');
  const uplotCss = fs.readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
  const set = parts.set;
  const data = jsonForScript({ charts: set.charts, range: set.range, start: set.start, phases: set.phases, rigLimited: set.rigLimited, scaleOuts: set.scaleOuts });
  const csp = `default-src 'none'; script-src ${sha256(uplotJs)} ${sha256(CLIENT_JS)}; style-src 'unsafe-inline'; img-src data: 'self' file:; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${e(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(parts.title)}</title>
<style>${uplotCss}</style>
<style>${REPORT_CSS}</style>
</head>
<body>
<main>
${parts.body}
</main>
<script type="application/json" id="rig-data">${data}</script>
<script>${uplotJs}</script>
<script>${CLIENT_JS}</script>
</body>
</html>
`;
}

/** Renders report.json as one self-contained HTML page. */
export function renderHtml(report: ReportJson): string {
  const set = withRegionCharts(buildCharts(report), report.regions, report.timeline.periodMs);
  return renderPage({
    title: `${report.result.passed ? 'PASSED' : 'FAILED'} — load test ${report.runId} (rig: ${report.rig.verdict})`,
    set,
    body: `${headerSection(report)}
${resultBanner(report)}
${findingsCard(report)}
${thresholdsSection(report)}
${errorsSection(report)}
${chartsSection(set)}
${distributionSection(report)}
${summarySection(report)}
${regionSection(report.regions)}
<h2 id="rig">Rig verdict</h2>
${verdictSection(report)}
${rigSection(report)}
${cloudwatchAlarms(report)}
${cloudwatchImages(report)}`,
  });
}
