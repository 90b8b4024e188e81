/**
 * The report's first screen (pure HTML strings): the result banner (PASSED/FAILED, exit code, every
 * reason, the rig verdict as the second badge) and the findings card; then the errors section and the
 * latency distributions. Every value from the run goes through {@link escapeHtml}.
 */
import type { Distribution } from '../distribution';
import { histogramUnit } from '../units';
import { elapsed, errorRows, findingsOf, runStart } from '../findings';
import { escapeHtml as e } from './escape';
import type { ReportJson } from '../types';

const utc = (ms: number) => `${new Date(ms).toISOString().slice(11, 19)} UTC`;

/** The rig verdict as a short badge text. */
function verdictBadge(r: ReportJson): { cls: string; text: string } {
  const limited = (r.rig.verdictDetail.periods ?? []).filter((p) => p.rigLimited).length;
  switch (r.rig.verdict) {
    case 'trustworthy':
      return { cls: 'ok', text: 'measurements trustworthy (no generator saturated)' };
    case 'rig-limited':
      return { cls: 'bad', text: `rig-limited in ${limited} period${limited === 1 ? '' : 's'}: a generator was saturated, figures there may describe the rig` };
    default:
      return { cls: 'warn', text: `rig verdict: ${r.rig.verdict}` };
  }
}

/** Banner above everything: did the run pass, the exit code, why; the rig verdict second. */
export function resultBanner(r: ReportJson): string {
  const res = r.result;
  const badge = verdictBadge(r);
  return `<section class="result ${res.passed ? 'passed' : 'failed'}" id="result">
<div class="result-head"><span class="result-word" id="result-word">${res.passed ? 'PASSED' : 'FAILED'}</span><span class="exit">exit code ${e(res.exitCode)}</span><a class="badge ${e(badge.cls)}" id="rig-badge" href="#verdict">${e(badge.text)}</a></div>
<ul id="result-reasons">${res.reasons.map((x) => `<li>${e(x)}</li>`).join('')}</ul>
</section>`;
}

/** The findings card: key figures, each coloured by severity; red as a whole when any shows loss. */
export function findingsCard(r: ReportJson): string {
  const fs = findingsOf(r);
  const worst = fs.some((f) => f.severity === 'bad') ? 'bad' : fs.some((f) => f.severity === 'warn') ? 'warn' : 'ok';
  return `<section class="card findings ${worst}" id="findings"><h2>Findings</h2><dl>${fs
    .map((f) => `<div class="finding ${e(f.severity)}" id="finding-${e(f.id)}"><dt>${e(f.label)}</dt><dd>${e(f.text)}</dd></div>`)
    .join('')}</dl></section>`;
}

/** The errors table: type, count, share of vusers, first/last seen (T+ and UTC), phase. */
export function errorsSection(r: ReportJson): string {
  const rows = errorRows(r);
  if (!rows.length) return `<h2 id="errors">Errors</h2><p class="note">No errors: every vuser that ended, ended without one.</p>`;
  const start = runStart(r);
  const p = r.timeline.periodMs;
  const seen = (at: number) => `${elapsed(at + p, start)} (to ${utc(at + p)})`;
  return `<h2 id="errors">Errors</h2><div class="card"><table id="errors-table"><thead><tr><th>error</th><th class="num">count</th><th class="num">% of vusers</th><th>first seen (period to)</th><th>last seen (period to)</th><th>phase</th></tr></thead><tbody>${rows
    .map(
      (x) =>
        `<tr><td class="name">${e(x.name)}</td><td class="num">${e(x.count.toLocaleString('en-US'))}</td><td class="num">${e(x.percentOfVusers.toFixed(2))}%</td><td>${e(seen(x.firstPeriod))}</td><td>${e(seen(x.lastPeriod))}</td><td>${e(x.phase)}</td></tr>`,
    )
    .join('')}</tbody></table></div>`;
}

/** One latency distribution: Gatling-style ranges and a bar histogram (plain HTML, no script). */
function distributionCard(name: string, d: Distribution): string {
  const peak = Math.max(1, ...d.buckets.map((b) => b.count));
  const time = histogramUnit(name) === 'ms';
  const label = (v: number) => (!time ? String(v) : v >= 1000 ? `${Number((v / 1000).toFixed(2))} s` : `${v} ms`);
  const bars = d.buckets
    .map(
      (b) =>
        `<div class="bar-row"><span class="bar-label">${e(label(b.from))} – ${e(label(b.to))}</span><span class="bar-track"><span class="bar" style="width:${((100 * b.count) / peak).toFixed(1)}%"></span></span><span class="bar-count">${e(b.count.toLocaleString('en-US'))}</span></div>`,
    )
    .join('');
  const ranges = `<table class="ranges"><tbody>${d.ranges
    .map((x) => `<tr><td>${e(x.label)}</td><td class="num">${e(x.count.toLocaleString('en-US'))}</td><td class="num">${e(x.percent)}%</td></tr>`)
    .join('')}</tbody></table>`;
  return `<div class="card distribution" id="dist-${e(name)}"><h3>${e(name)} (${e(d.count.toLocaleString('en-US'))} samples${time ? '' : ", in your script's unit"})</h3><div class="dist-grid">${ranges}<div class="bars">${bars}</div></div></div>`;
}

/** Distributions of every latency histogram (connect time, delivery latency, …). */
export function distributionSection(r: ReportJson): string {
  const ds = Object.entries(r.distributions ?? {});
  if (!ds.length) return '';
  return `<h2>Latency distribution</h2><p class="note">From the merged DDSketch of the whole run (values within 1%).</p>${ds.map(([n, d]) => distributionCard(n, d)).join('')}`;
}
