/**
 * Live view of a running test: reads new period files from the run store as agents write them,
 * merges each period across generators (exactly: the same merge as the final report) and produces
 * one progress line per period, once and in order, when every load process still running has shipped it. Each line is
 * labelled by the period's end (UTC and T+ from the shared start: never before the run began).
 */
import { CONTROL, KEY_KIND, SPOOL, generatorKeys } from '../load-generators/lib/run-protocol';
import type { RunStore, StartControl } from './contracts';
import { PeriodMetrics, deserializePeriod, mergePeriods, summarize } from './core/merge';
import { elapsed } from './report/findings';

/** Artillery's reporting period. */
const PERIOD_MS = 10_000;
/**
 * How often a generator's periods are listed while none is due (before its first period, while its vusers
 * only hold and Artillery reports nothing, after it ended): a line comes at most this late.
 */
export const IDLE_LIST_MS = 2_000;

/** A generator the live view follows, with its number of load processes when known. */
export interface LiveGenerator {
  readonly id: string;
  readonly processes?: number;
}

/** Cumulative figures the live line shows. */
interface Totals {
  created: number;
  completed: number;
  failed: number;
  errors: number;
  received: number;
  expected: number;
}

/** The latency a period line leads with, first found: the built-in scenarios' connect, else a user script's engine's. */
const LEAD_LATENCIES: ReadonlyArray<readonly [string, string]> = [
  ['ws.connect_time', 'connect'],
  ['http.response_time', 'response'],
  ['socketio.response_time', 'socketio response'],
];

/**
 * The scenario's key figure for one period: delivery p95 and the receipt so far for pub/sub-style runs,
 * else the connect p95 (a user's script: its HTTP or Socket.IO response p95; was "connect p95 -" on every line).
 */
function keyFigure(period: PeriodMetrics, totals: Totals): string {
  const delivery = period.histograms['pubsub.delivery_latency'] ?? period.histograms['broadcast.latency'] ?? period.histograms['recovery.delivery_latency'];
  const lead = LEAD_LATENCIES.find(([name]) => period.histograms[name]) ?? LEAD_LATENCIES[0]!;
  const sketch = period.histograms[lead[0]];
  const parts = [`${lead[1]} p95 ${sketch ? `${summarize(sketch).p95} ms` : '-'}`];
  if (delivery) parts.push(`delivery p95 ${summarize(delivery).p95} ms`);
  if (totals.expected > 0) parts.push(`receipt ${((100 * totals.received) / totals.expected).toFixed(1)}% (${totals.received}/${totals.expected})`);
  return parts.join('  ');
}

/**
 * Formats one period's line: when the period ended (never before the run's start), created / active /
 * completed / failed, errors, and the scenario's key figure.
 */
export function formatPeriodLine(period: PeriodMetrics, totals: Totals, startAt?: number): string {
  const c = period.counters;
  const errors = Object.entries(c).filter(([k]) => k.startsWith('errors.')).reduce((a, [, v]) => a + v, 0);
  const end = period.period + PERIOD_MS;
  const time = `${new Date(end).toISOString().slice(11, 19)}${startAt === undefined ? '' : ` ${elapsed(end, startAt)}`}`;
  return (
    `${time}  created ${totals.created} (+${c['vusers.created'] ?? 0})  active ${totals.created - totals.completed - totals.failed}` +
    `  completed ${totals.completed}  failed ${totals.failed}  errors ${errors}  ${keyFigure(period, totals)}`
  );
}

/** Counters a period line adds to the run's totals. */
function addTotals(totals: Totals, c: Record<string, number>): void {
  totals.created += c['vusers.created'] ?? 0;
  totals.completed += c['vusers.completed'] ?? 0;
  totals.failed += c['vusers.failed'] ?? 0;
  totals.received += c['pubsub.messages_received'] ?? 0;
  totals.expected += c['pubsub.messages_expected'] ?? 0;
}

/**
 * Tracks which period files were read and which periods were already shown. A period's line is printed once,
 * in order: when every load process of every generator still running has shipped it or a later one (Artillery
 * emits a process's periods in order, each once), has written its final report, or when it is `settleMs` old —
 * then marked partial. A process's file for a period already shown is never printed again: its counters go
 * into the totals of the next line, which says so (before, a slower process re-printed a period already shown,
 * so the lines went back in time).
 */
export class LiveMerger {
  private readonly seen = new Set<string>();
  private readonly pending = new Map<number, PeriodMetrics[]>();
  private readonly latestByProcess = new Map<string, number>();
  /** Load processes (`generators/<id>/p<k>`) whose final report is in: they ship no more periods. */
  private readonly finished = new Set<string>();
  private readonly done = new Set<string>();
  private readonly totals: Totals = { created: 0, completed: 0, failed: 0, errors: 0, received: 0, expected: 0 };
  /** Per generator: the earliest instant a LIST of its periods can find a new one. */
  private readonly nextListAt = new Map<string, number>();
  private startAt: number | undefined;
  /** The last period shown: files of it or of an earlier one are late. */
  private shownUpTo = -Infinity;
  /** Created vusers of late files not yet mentioned on a line. */
  private lateCreated: number | undefined;

  /**
   * @param now the clock: a period is also shown once it is `settleMs` old (from its start), because
   *            Artillery emits no period at all while a process's vusers only hold (think), and a process may
   *            be slow or stuck; such a line is marked partial
   */
  constructor(
    private readonly store: RunStore,
    private readonly generators: readonly LiveGenerator[],
    private readonly now: () => number = Date.now,
    private readonly settleMs: number = PERIOD_MS + 15_000,
  ) {}

  /**
   * A generator that has ended (or was lost) no longer holds periods back. Its folder is listed at the next poll,
   * whatever {@link nextList} said: the files it shipped since the last LIST (its last periods come with its final
   * report) are read before its periods are shown. Before, a period was shown with only the processes read so far,
   * and the rest folded into no line at all (`created 33 (+10)` for a run that created 44).
   */
  markDone(id: string): void {
    // Once: the orchestrator says it at every poll while the generator stays ended; listing it at every poll would
    // bring back the LIST per generator per poll that nextList exists to avoid.
    if (this.done.has(id)) return;
    this.done.add(id);
    this.nextListAt.delete(id);
  }

  /**
   * Reads new files; returns the lines of the periods now due, in order. A generator's periods are listed
   * only when one can be new (see {@link nextList}); `all` lists every generator.
   */
  async poll(all = false): Promise<string[]> {
    if (this.startAt === undefined) {
      const start = await this.store.get(CONTROL.start);
      const at: unknown = start ? (JSON.parse(start) as Partial<StartControl>).startAt : undefined;
      if (typeof at === 'number') this.startAt = at;
    }
    for (const g of this.generators) {
      if (!all && this.now() < (this.nextListAt.get(g.id) ?? 0)) continue;
      const found = await this.readNewPeriods(g.id);
      this.nextListAt.set(g.id, this.nextList(g, found));
    }
    return this.emitDue();
  }

  /** Shows every period still held back (end of run). */
  async flush(): Promise<string[]> {
    for (const g of this.generators) this.done.add(g.id);
    return this.poll(true);
  }

  /**
   * Reads the period files of generator `id` not read yet; returns how many. Lists only its load processes'
   * folders (`generators/<id>/p…`), not its health samples, which grow by one every 5 s for the whole run.
   */
  private async readNewPeriods(id: string): Promise<number> {
    let found = 0;
    for (const key of await this.store.list(`${generatorKeys(id).prefix}p`)) {
      if (key.endsWith(`/${SPOOL.final}`)) this.finished.add(key.slice(0, -SPOOL.final.length - 1));
      if (!KEY_KIND.period.test(key) || this.seen.has(key)) continue;
      const text = await this.store.get(key);
      if (text === undefined) continue;
      this.seen.add(key);
      found++;
      const p = deserializePeriod(text);
      // Keyed per load process: each emits its periods in order, but processes run side by side.
      const proc = key.split('/periods/')[0] ?? id;
      this.latestByProcess.set(proc, Math.max(this.latestByProcess.get(proc) ?? -Infinity, p.period));
      if (p.period <= this.shownUpTo) {
        this.foldLate(p);
        continue;
      }
      const list = this.pending.get(p.period) ?? [];
      list.push(p);
      this.pending.set(p.period, list);
    }
    return found;
  }

  /** A file of a period already shown: into the totals, said on the next line, never a line of its own. */
  private foldLate(p: PeriodMetrics): void {
    const merged = mergePeriods([p])[0];
    if (!merged) return;
    addTotals(this.totals, merged.counters);
    this.lateCreated = (this.lateCreated ?? 0) + (merged.counters['vusers.created'] ?? 0);
  }

  /** The load processes of generator `g` a period waits for: its planned ones, else those seen so far. */
  private processesOf(g: LiveGenerator): string[] {
    const prefix = generatorKeys(g.id).prefix;
    if (g.processes !== undefined) return Array.from({ length: g.processes }, (_, k) => `${prefix}p${k}`);
    const seen = [...this.latestByProcess.keys()].filter((proc) => proc.startsWith(prefix));
    return seen.length ? seen : [`${prefix}p?`];
  }

  /** How many load processes of generators still running have not shipped `period` (nor a later one) yet. */
  private missing(period: number): { missing: number; of: number } {
    let missing = 0;
    let of = 0;
    for (const g of this.generators) {
      if (this.done.has(g.id)) continue;
      for (const proc of this.processesOf(g)) {
        of++;
        if (!this.finished.has(proc) && (this.latestByProcess.get(proc) ?? -Infinity) < period) missing++;
      }
    }
    return { missing, of };
  }

  /**
   * When a LIST of generator `g` can next find a period. Artillery writes the period that starts at P once
   * it has ended, so with every load process's latest period P_k read, none is new before min(P_k) + 2
   * periods; then, or while some process has reported nothing yet, or when the last LIST found nothing
   * (vusers only holding: Artillery reports no period), once per {@link IDLE_LIST_MS}. Before, every
   * generator was listed in full on every poll (twice a second): ~200 LISTs a second at 100 generators.
   */
  private nextList(g: LiveGenerator, found: number): number {
    const idle = this.now() + IDLE_LIST_MS;
    if (found === 0 || g.processes === undefined) return idle;
    const latest = [...this.latestByProcess].filter(([proc]) => proc.startsWith(generatorKeys(g.id).prefix)).map(([, at]) => at);
    if (latest.length < g.processes) return idle;
    return Math.max(idle, Math.min(...latest) + 2 * PERIOD_MS);
  }

  /** The lines of the pending periods now due, oldest first; stops at the first one still waited for. */
  private emitDue(): string[] {
    const lines: string[] = [];
    const settled = this.now() - this.settleMs;
    for (const period of [...this.pending.keys()].sort((a, b) => a - b)) {
      const { missing, of } = this.missing(period);
      if (missing > 0 && period > settled) break;
      const merged = mergePeriods(this.pending.get(period) ?? [])[0];
      this.pending.delete(period);
      this.shownUpTo = period;
      if (!merged) continue;
      addTotals(this.totals, merged.counters);
      const notes: string[] = [];
      if (missing > 0) notes.push(`partial: ${missing} of ${of} load processes not in`);
      if (this.lateCreated !== undefined) notes.push(`late data of an earlier period included (+${this.lateCreated} created)`);
      this.lateCreated = undefined;
      lines.push([formatPeriodLine(merged, this.totals, this.startAt), ...notes].join('  '));
    }
    return lines;
  }
}
