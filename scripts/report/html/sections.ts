/**
 * The report's text sections as HTML strings (pure). Every value from the run goes through
 * {@link escapeHtml}; nothing else is interpolated.
 */
import { isBookkeeping } from '../artillery-format';
import { escapeHtml as e } from './escape';
import { thresholdStatus } from '../threshold-status';
import { histogramUnit } from '../units';
import type { ReportJson } from '../types';


/** Number for a table cell: integers as they are, others to one decimal. */
export function fmt(n: number | null | undefined): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  return Number.isInteger(n) ? String(n) : (Math.round(n * 10) / 10).toFixed(1);
}

const bytes = (n: number | undefined) => (n === undefined ? '–' : `${fmt(n / (1024 * 1024))} MiB`);
const clock = (ms: number | undefined) => (ms === undefined ? '–' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC');
const row = (cells: string[]) => `<tr>${cells.join('')}</tr>`;
const td = (v: unknown, cls = '') => `<td${cls ? ` class="${cls}"` : ''}>${e(v)}</td>`;
const th = (v: string, cls = '') => `<th${cls ? ` class="${cls}"` : ''}>${e(v)}</th>`;

/** Header: what ran, against what, when. */
export function headerSection(r: ReportJson): string {
  const dur = r.startedAt !== undefined ? `${fmt((r.endedAt - r.startedAt) / 1000)} s` : '–';
  return `<header>
<h1>Load test ${e(r.runId)}</h1>
<div class="meta">scenario <b>${e(r.scenario)}</b> · platform ${e(r.platform)} · status <b>${e(r.status)}</b> · target <code>${e(r.target)}</code></div>
<div class="meta">started ${e(clock(r.startedAt))} · ended ${e(clock(r.endedAt))} · ${e(dur)}</div>
</header>`;
}

/** The rig-health verdict, big, with the rig-limited periods named. */
export function verdictSection(r: ReportJson): string {
  const v = r.rig.verdictDetail;
  const t = v.thresholds;
  const limited = (v.periods ?? []).filter((p) => p.rigLimited);
  const periodsTable = limited.length
    ? `<table><thead>${row([th('period (UTC)'), th('generators saturated'), th('errors', 'num'), th('errors coincide')])}</thead><tbody>${limited
        .map((p) =>
          row([
            td(new Date(p.period).toISOString().slice(11, 19)),
            td(p.saturated.map((g) => `${g.generator}: ${g.reasons.join(', ')}`).join('; '), 'name'),
            td(fmt(p.errors), 'num'),
            td(p.errorsCoincide ? 'yes' : 'no'),
          ]),
        )
        .join('')}</tbody></table>`
    : '';
  const thresholds = t
    ? `<p class="note">Saturated means: CPU above ${e(t.cpuPercent)}% of one core, event-loop lag above ${e(t.eventLoopLagMs)} ms, open files above ${e(
        Math.round(t.openFilesShare * 100),
      )}% of the limit, or ports above ${e(Math.round(t.portsShare * 100))}% of the ephemeral range. Errors: ${e(v.errors?.total ?? 0)}, of which ${e(
        v.errors?.whileSaturated ?? 0,
      )} in rig-limited periods.</p>`
    : '';
  return `<section class="card verdict ${e(v.verdict)}" id="verdict">
<div><span class="label">Rig verdict: ${e(v.verdict)}</span></div>
<p id="verdict-summary">${e(v.summary)}</p>
${periodsTable}${thresholds}</section>`;
}

/** `--ensure` results. */
export function thresholdsSection(r: ReportJson): string {
  if (!r.thresholds.length) return `<h2>Thresholds</h2><p class="note">No thresholds (--ensure or config.ensure) were set.</p>`;
  return `<h2>Thresholds</h2><div class="card"><table id="thresholds"><thead>${row([th('expression'), th('result')])}</thead><tbody>${r.thresholds
    .map((t) => {
      const status = thresholdStatus(t);
      return row([td(t.expression, 'name'), `<td class="${status.tone}">${e(status.text)}</td>`]);
    })
    .join('')}</tbody></table></div>`;
}

/**
 * The figures: the scenario's own table, then every metric of the merged aggregate once (counters and
 * rates as Artillery names them), then every histogram with p75 and p90 beside the usual percentiles.
 */
export function summarySection(r: ReportJson): string {
  const c = r.aggregate.counters;
  const figures = (r.figures ?? []).length
    ? `<h3>${e(r.scenario)} figures</h3><table id="summary-figures"><tbody>${(r.figures ?? []).map((f) => row([td(f.label, 'name'), td(f.text, 'num')])).join('')}</tbody></table>`
    : '';
  const names = Object.keys(c).filter((k) => !isBookkeeping(k)).sort();
  const rates = Object.keys(r.aggregate.rates).sort();
  const counters = `<h3>Counters</h3><table id="summary-counters"><tbody>${[
    ...names.map((k) => row([td(k, 'name'), td(fmt(c[k]), 'num')])),
    ...rates.map((k) => row([td(`${k} (mean rate)`, 'name'), td(`${fmt(r.aggregate.rates[k])}/s`, 'num')])),
  ].join('')}</tbody></table>`;
  const stats = ['count', 'min', 'mean', 'p50', 'p75', 'p90', 'p95', 'p99', 'p999', 'max'] as const;
  const hist = Object.entries(r.aggregate.summaries).sort(([a], [b]) => a.localeCompare(b));
  const histTable = hist.length
    ? `<h3>Histograms</h3><table id="summary-histograms"><thead>${row([th('metric'), th('unit'), ...stats.map((x) => th(x, 'num'))])}</thead><tbody>${hist
        .map(([name, h]) => row([td(name, 'name'), td(histogramUnit(name) ?? 'as recorded'), ...stats.map((x) => td(fmt(h[x]), 'num'))]))
        .join('')}</tbody></table>`
    : '';
  return `<h2>Summary</h2><div class="card">${figures}${counters}${histTable}</div>`;
}

/** Phases as one readable line. */
function phaseText(phases: unknown[]): string {
  return phases
    .map((p) => {
      const o = (p ?? {}) as Record<string, unknown>;
      const parts = [o.name ? String(o.name) : 'phase'];
      if (o.duration !== undefined) parts.push(`${o.duration} s`);
      if (o.pause !== undefined) parts.push(`pause ${o.pause} s`);
      if (o.arrivalCount !== undefined) parts.push(`${o.arrivalCount} arrivals`);
      if (o.arrivalRate !== undefined) parts.push(`${o.arrivalRate}/s${o.rampTo !== undefined ? ` → ${o.rampTo}/s` : ''}`);
      return parts.join(' ');
    })
    .join(', ');
}

/** Rig-internal measurements (clock offsets and round trips to the target): next to the plan, not among the target's figures. */
function rigInternal(r: ReportJson): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const o = r.aggregate.summaries['clock.offset_ms'];
  const rtt = r.aggregate.summaries['clock.rtt_ms'];
  if (o) out.push(['clock offset vs target (per load process)', `${fmt(o.min)} … ${fmt(o.max)} ms over ${fmt(o.count)} process(es)`]);
  if (rtt) out.push(['clock probe round trip', `${fmt(rtt.min)} … ${fmt(rtt.max)} ms`]);
  if (r.aggregate.counters['clock.unavailable']) out.push(['clock offsets', 'unavailable (the target has no GET /time): latencies uncorrected']);
  return out;
}

/** The plan and the generators (start skew, clock offsets, per-generator peaks). */
export function rigSection(r: ReportJson): string {
  const p = r.rig.plan;
  const plan = `<table id="plan"><tbody>${[
    ['generators', fmt(p.generators)],
    ['arrivals per generator', p.arrivalsPerGenerator.join(' / ')],
    ['expected peak concurrent vusers', fmt(p.peakConcurrent)],
    ['capacity per generator', `${fmt(p.capacityPerGenerator)} (bound by ${p.bindingLimit})`],
    ['start skew', r.rig.startSkewMs === null ? 'n/a' : `${fmt(r.rig.startSkewMs)} ms`],
    ...rigInternal(r),
    ...r.phases.map((g) => [`phases ${g.generator}`, phaseText(g.phases)]),
  ]
    .map(([k, v]) => row([td(k), td(v, 'name')]))
    .join('')}</tbody></table>`;
  const starts = r.rig.generators.map((g) => g.startedAt).filter((x): x is number => x !== undefined);
  const first = starts.length ? Math.min(...starts) : undefined;
  const heads = ['generator', 'started (+ms)', 'created', 'failed', 'peak CPU %', 'peak lag ms', 'peak RSS', 'peak files / limit', 'peak ports', 'note'];
  const gens = `<table id="generators"><thead>${row(heads.map((h, i) => th(h, i > 0 && i < 9 ? 'num' : '')))}</thead><tbody>${r.rig.generators
    .map((g) =>
      row([
        td(g.id),
        td(g.startedAt !== undefined && first !== undefined ? `+${g.startedAt - first}` : '–', 'num'),
        td(fmt(g.counters['vusers.created'] ?? 0), 'num'),
        td(fmt(g.counters['vusers.failed'] ?? 0), 'num'),
        td(fmt(g.health.peakCpuPercent), 'num'),
        td(fmt(g.health.peakEventLoopLagMs), 'num'),
        td(bytes(g.health.peakRssBytes), 'num'),
        td(`${fmt(g.health.peakOpenFiles)} / ${fmt(g.health.openFilesLimit)}`, 'num'),
        td(fmt(g.health.peakPortsInUse), 'num'),
        td(g.lost ? `lost: ${g.lost}` : r.rig.verdictDetail.saturatedGenerators?.includes(g.id) ? 'saturated' : '', 'name'),
      ]),
    )
    .join('')}</tbody></table>`;
  return `<h2 id="plan-and-generators">Plan and generators (the rig)</h2><div class="card">${plan}</div><div class="card">${gens}</div>${osPackagesTable(r)}`;
}

/**
 * The OS package builds the generators' boots installed unpinned (each generator's `osPackages`), one row per package
 * and build with the generators that ran it, so a fleet on two builds shows as two rows, and the generators without a
 * record in one row; empty when no generator recorded any (a local run, generators booted before the record existed).
 */
function osPackagesTable(r: ReportJson): string {
  const gens = r.rig.generators;
  if (!gens.some((g) => g.osPackages)) return '';
  const builds = new Map<string, Map<string, string[]>>();
  for (const g of gens) {
    for (const [name, build] of Object.entries(g.osPackages ?? {})) {
      const byBuild = builds.get(name) ?? new Map<string, string[]>();
      byBuild.set(build, [...(byBuild.get(build) ?? []), g.id]);
      builds.set(name, byBuild);
    }
  }
  const rows = [...builds].sort(([a], [b]) => a.localeCompare(b)).flatMap(([name, byBuild]) => [...byBuild].map(([build, ids]) => row([td(name, 'name'), td(build, 'name'), td(ids.join(', '), 'name')])));
  const none = gens.filter((g) => !g.osPackages).map((g) => g.id);
  // No record has several causes (booted before the record existed, a bad ready.json skipped, a lost generator that
  // wrote none, rpm knowing none of the packages): the row says only what is known.
  if (none.length) rows.push(row([td('–', 'name'), td('no record', 'name'), td(none.join(', '), 'name')]));
  return `<div class="card"><table id="os-packages"><thead>${row([th('OS package (installed at boot, unpinned)'), th('build'), th('generators')])}</thead><tbody>${rows.join('')}</tbody></table></div>`;
}
