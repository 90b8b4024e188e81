/**
 * compare-<baseline-id>.html, written into the run's folder: the two runs side by side (whether they
 * are comparable, both results and rig verdicts, the table with absolute and relative deltas, the
 * run's thresholds) and both runs' timelines overlaid on one elapsed-time axis. Same page shell,
 * escaping and Content Security Policy as report.html.
 */
import * as path from 'node:path';
import { writeFileAtomic } from '../adapters/atomic-file';
import { Comparison, compareRuns, formatComparison, formatDelta, formatNumber } from './compare';
import type { RunFolder } from './read-run';
import { buildCharts, chartsSection, renderPage } from './html';
import { escapeHtml as e } from './html/escape';
import { thresholdStatus } from './threshold-status';
import { BASE_LABEL, RUN_LABEL, overlayCharts } from './html/overlay';
import type { ReportJson } from './types';

/** The comparison page's file name in the run's folder. */
export const compareFileName = (baseRunId: string): string => `compare-${baseRunId.replace(/[^A-Za-z0-9._-]/g, '_')}.html`;

function header(c: Comparison, base: ReportJson, run: ReportJson): string {
  const side = (who: string, r: ReportJson, s: Comparison['run']) =>
    `<tr><th>${e(who)}</th><td class="name">${e(r.runId)}</td><td>${e(r.scenario)}</td><td class="num">${e(s.load.vusers)}</td><td>${e(s.load.phases.join('; '))}</td>` +
    `<td class="${r.result.passed ? 'pass' : 'fail'}">${e(s.result)}</td><td>${e(s.verdict)}</td><td>${e(r.startedAt === undefined ? '–' : new Date(r.startedAt).toISOString().replace('T', ' ').slice(0, 19) + ' UTC')}</td></tr>`;
  const comparable = c.differences.length
    ? `<section class="card findings bad" id="comparable"><h2>Not comparable</h2><p>The baseline ran a different scenario or load: the deltas below are no regression measure.</p><ul>${c.differences
        .map((d) => `<li>${e(d)}</li>`)
        .join('')}</ul></section>`
    : `<section class="card findings" id="comparable"><p>Same scenario and load: ${e(c.run.load.scenario)}, ${e(c.run.load.vusers)} vusers (${e(c.run.load.phases.join('; '))}).</p></section>`;
  return `<header><h1>Comparison: ${e(run.runId)} against baseline ${e(base.runId)}</h1></header>
${comparable}
<div class="card"><table><thead><tr><th></th><th>run</th><th>scenario</th><th class="num">vusers</th><th>phases</th><th>result</th><th>rig verdict</th><th>started</th></tr></thead><tbody>
${side('baseline', base, c.base)}
${side('this run', run, c.run)}
</tbody></table></div>`;
}

function table(c: Comparison): string {
  const body = c.rows
    .map((r) => {
      const d = formatDelta(r);
      // No colour on the deltas: whether more is better depends on the metric (messages received, latency).
      return `<tr data-metric="${e(r.metric)}"><td class="name">${e(r.metric)}</td><td class="num">${e(formatNumber(r.base, r.kind))}</td><td class="num">${e(formatNumber(r.run, r.kind))}</td><td class="num">${e(d.delta)}</td><td class="num">${e(d.relative)}</td></tr>`;
    })
    .join('\n');
  return `<h2>Figures side by side</h2>
<p class="note">Δ = this run − baseline; Δ % relative to the baseline. Every counter and rate, and p50/p95/p99 of every histogram (the names an <code>--ensure</code> expression uses; <code>baseline.</code> + the name reads the baseline's).</p>
<div class="card"><table id="comparison"><thead><tr><th>metric</th><th class="num">baseline</th><th class="num">this run</th><th class="num">Δ</th><th class="num">Δ %</th></tr></thead><tbody>
${body}
</tbody></table></div>`;
}

function thresholds(run: ReportJson): string {
  if (!run.thresholds.length) return '';
  return `<h2>This run's thresholds</h2><div class="card"><table><tbody>${run.thresholds
    .map((t) => {
      const status = thresholdStatus(t);
      return `<tr><td class="name"><code>${e(t.expression)}</code></td><td class="${status.tone}">${e(status.text)}</td></tr>`;
    })
    .join('')}</tbody></table></div>`;
}

/** Renders the comparison page (self-contained, like report.html). */
export function renderComparisonHtml(c: Comparison, base: ReportJson, run: ReportJson): string {
  const set = overlayCharts(buildCharts(run), buildCharts(base), run.timeline.periodMs / 1000);
  const body = `${header(c, base, run)}
${table(c)}
${thresholds(run)}
<p class="note">Timelines: solid lines “${e(RUN_LABEL.trim())}”, dashed lines “${e(BASE_LABEL.trim())}” in the same colour, the baseline shifted so both runs start at T+0:00; phases and marks are this run's.</p>
${chartsSection(set)}`;
  return renderPage({ title: `${c.differences.length ? 'NOT COMPARABLE — ' : ''}comparison ${run.runId} vs baseline ${base.runId}`, body, set });
}

/** Compares two run folders: the comparison, its text table, and the page written into the run's folder. */
export function writeComparison(base: RunFolder, run: RunFolder): { comparison: Comparison; table: string; file: string } {
  const comparison = compareRuns(base.compared, run.compared);
  const file = path.join(run.dir, compareFileName(base.report.runId));
  writeFileAtomic(file, renderComparisonHtml(comparison, base.report, run.report));
  return { comparison, table: formatComparison(comparison), file };
}
