/**
 * Artillery's own "Summary report" text (packages/artillery/lib/console-reporter.ts, 2.0.34): every
 * counter, histogram and rate of the merged aggregate, sorted by name, each `name: ..... value` padded
 * to 79 columns, histograms as min/max/mean/median/p95/p99 — so the engine's figures (HTTP codes,
 * socketio.emit, websocket.messages_sent, a script's own counters and histograms) read as in a plain
 * `artillery run`. Plain text (no colour); pure.
 */
import type { ArtilleryReportSection } from '../core/merge';

const WIDTH = 79;

/** Artillery's `util.padded`: name, dots to the width, value. */
export function padded(name: string, value: string | number, width = WIDTH): string {
  const truncated = name.length > width ? `${name.slice(0, width - 3)}...` : name;
  return `${truncated} ${'.'.repeat(Math.max(0, width - truncated.length))} ${value}`;
}

/** Per-second bookkeeping families (`rooms.sent_per_s.<epoch s>`) feed the figures; they would flood the text. */
export const isBookkeeping = (name: string): boolean => /\.\d{9,}$/.test(name);

/**
 * The metric names Artillery's console report leaves out for a script's `config.plugins` (cmds/run.js
 * getPluginMetricsToSuppress, after util.js addDefaultPlugins): `plugins.<name>` of every plugin whose options
 * say `suppressOutput`, and metrics-by-endpoint's unless the script configures that plugin itself (Artillery adds
 * it with `suppressOutput: true`). A name is left out when it contains one (console-reporter.js). The JSON
 * report keeps every metric; only the printed table leaves these out.
 */
export function suppressedMetricNames(plugins: unknown): string[] {
  const own = plugins && typeof plugins === 'object' ? (plugins as Record<string, unknown>) : {};
  const all: Record<string, unknown> = { ...own, ...(own['metrics-by-endpoint'] ? {} : { 'metrics-by-endpoint': { suppressOutput: true } }) };
  return Object.entries(all)
    .filter(([, options]) => !!options && typeof options === 'object' && !!(options as { suppressOutput?: unknown }).suppressOutput)
    .map(([name]) => `plugins.${name}`);
}

/** The "Summary report" block of an aggregate, without its heading; `suppressed`: {@link suppressedMetricNames}. */
export function artillerySummaryLines(section: Pick<ArtilleryReportSection, 'counters' | 'rates' | 'summaries'>, suppressed: readonly string[] = []): string[] {
  const names = [...new Set([...Object.keys(section.summaries), ...Object.keys(section.counters), ...Object.keys(section.rates)])]
    .filter((n) => !isBookkeeping(n) && !suppressed.some((m) => n.includes(m)))
    .sort();
  const out: string[] = [];
  for (const name of names) {
    const c = section.counters[name];
    if (c !== undefined) out.push(padded(`${name}:`, c));
    const s = section.summaries[name];
    if (s !== undefined) {
      out.push(`${name}:`);
      for (const [label, v] of [['min', s.min], ['max', s.max], ['mean', s.mean], ['median', s.median ?? s.p50], ['p95', s.p95], ['p99', s.p99]] as const) {
        out.push(padded(`  ${label}:`, v));
      }
    }
    const r = section.rates[name];
    if (r !== undefined) out.push(`${padded(`${name}:`, r)}/sec`);
  }
  return out;
}
