/**
 * The run's result (pure): passed or failed, the exit code the CLI returns, and every reason in words.
 * One function decides both the exit code and what the report, the terminal and the JSON say about it,
 * so they can never disagree.
 */
import { ExitCode } from '../errors';
import { deliveryReasons } from './delivery';
import { metricVariables } from './thresholds';
import type { RunResult, RunSummary, ThresholdResult } from './types';

/** What the result is decided from: the summary without its result. */
export type ResultInput = Pick<RunSummary, 'status' | 'failedRatio' | 'thresholds' | 'aggregate'> & Partial<Pick<RunSummary, 'rigScenario'>> & {
  readonly rig: Pick<RunSummary['rig'], 'lostGenerators' | 'askedExitCodes' | 'failedAfterLoad'>;
};

/** Why a plugin asks Artillery for an exit code, for the codes Artillery's bundled plugins use. */
const ASKED_BY: Readonly<Record<number, { readonly plugin: string; readonly counter?: string }>> = {
  21: { plugin: 'artillery-plugin-expect: an expectation failed', counter: 'plugins.expect.failed' },
};

const percent = (ratio: number): string => `${Number((ratio * 100).toFixed(2))}%`;

/** The metrics an expression names, with their values ("vusers.created = 60"). */
function valuesIn(t: ThresholdResult, aggregate: ResultInput['aggregate']): string {
  const vars = metricVariables(aggregate);
  const names = [...vars.keys()].filter((n) => t.expression.includes(n)).sort((a, b) => b.length - a.length);
  // Longest first, and drop names that are only part of a longer one already shown (a.b in a.b.p99).
  const shown = names.filter((n, i) => !names.slice(0, i).some((longer) => longer.includes(n)));
  return shown.map((n) => `${n} = ${vars.get(n)}`).join(', ');
}

/** The reason line of one threshold. */
export function thresholdReason(t: ThresholdResult, aggregate: ResultInput['aggregate']): string {
  const note = t.note ? ` (${t.note})` : '';
  if (t.ok) return `threshold \`${t.expression}\` held${note}`;
  if (t.error) return `threshold \`${t.expression}\` could not be evaluated: ${t.error}`;
  const values = t.values ?? valuesIn(t, aggregate);
  return `threshold \`${t.expression}\` breached${values ? `: ${values}` : ''}${note}`;
}

/** How a failed-vuser budget taken from the script (not `--max-error-rate`) is named in the result's reasons. */
export const SCRIPT_BUDGET = "your script's ensure.maxErrorRate";

/**
 * Decides the result. Exit code precedence: interrupted (130), rig failure (3), thresholds, failed
 * vusers or a built-in delivery scenario that delivered nothing (1), else 0; the reasons list every cause, not only the one that chose the code.
 * `budgetName` names the failed-vuser budget in the reasons (the flag, or {@link SCRIPT_BUDGET}).
 */
export function decideResult(s: ResultInput, maxErrorRate: number, budgetName = '--max-error-rate'): RunResult {
  const failures: string[] = [];
  const held: string[] = [];
  let exitCode: number = ExitCode.ok;
  const raise = (code: number) => {
    // 130 beats 3 beats 1 beats 0.
    const rank = (c: number) => (c === ExitCode.interrupted ? 3 : c === ExitCode.rigFailure ? 2 : c === ExitCode.thresholdsBreached ? 1 : 0);
    if (rank(code) > rank(exitCode)) exitCode = code;
  };
  if (s.status === 'interrupted') {
    raise(ExitCode.interrupted);
    failures.push('interrupted before the end: the figures are partial');
  }
  if (s.status === 'timed-out') {
    raise(ExitCode.rigFailure);
    // What holds a load process past its plan is nearly always a vuser that never finishes: a step function that
    // never calls its callback, or a loop without an end (a process.exit() in a step is caught sooner: the agent stops
    // at once, see load-generators/plugins/artillery-plugin-rig/thread-exit.js).
    failures.push("the run did not end in its expected time (its phases and sessions plus 2 minutes): the rig stopped it, the figures are partial; vusers that never finish hold a load process (a step function that never calls its callback, a loop without an end: plain `artillery run` never ends either)");
  }
  if (s.status === 'partial') raise(ExitCode.rigFailure);
  for (const l of s.rig.lostGenerators) failures.push(`generator ${l.id} lost (${l.reason}): its figures stop there`);
  if (s.status === 'partial' && !s.rig.lostGenerators.length) failures.push('a generator was lost: the figures are partial');

  // A plugin's verdict (plain `artillery run` exits with the code it asked for): a failed check, exit 1 here.
  // Artillery's ensure sets exit 1 over a plugin's code: with a failed check too, plain exits 1 (a --ensure flag has no
  // counterpart there, so the line says both).
  const checkFailed = s.thresholds.some((t) => !t.ok && !t.optional);
  for (const a of s.rig.askedExitCodes ?? []) {
    raise(ExitCode.thresholdsBreached);
    const by = ASKED_BY[a.code];
    const count = by?.counter !== undefined ? s.aggregate.counters[by.counter] : undefined;
    const why = by ? ` (${by.plugin}${count !== undefined ? `: ${by.counter} = ${count}` : ''})` : '';
    failures.push(`a plugin asked for exit code ${a.code}${why} in ${a.processes} load process${a.processes === 1 ? '' : 'es'}; plain artillery run would exit ${a.code}${checkFailed ? ' (1 if a failed check here is the script\'s own ensure)' : ''}`);
  }
  // The script failed after its load (its `after` section, a plugin's cleanup): plain `artillery run` exits with that
  // code after its summary; every figure is in, so this is the script's verdict (exit 1), not a lost generator.
  for (const f of s.rig.failedAfterLoad ?? []) {
    raise(ExitCode.thresholdsBreached);
    failures.push(`your script failed after its load in ${f.processes} load process${f.processes === 1 ? '' : 'es'} (${f.why}): its \`after\` section or a plugin's cleanup; every figure is in; plain artillery run would exit ${f.code}`);
  }
  const c = s.aggregate.counters;
  const created = c['vusers.created'] ?? 0;
  const failed = c['vusers.failed'] ?? 0;
  const vusers = `${failed} of ${created} vusers failed (${percent(s.failedRatio)})`;
  if (s.failedRatio > maxErrorRate) {
    raise(ExitCode.thresholdsBreached);
    failures.push(`${vusers} > ${budgetName} ${percent(maxErrorRate)}`);
  } else held.push(`${vusers} ≤ ${budgetName} ${percent(maxErrorRate)}`);

  // A built-in delivery scenario with nothing delivered, or publishes refused: the test of that service failed.
  for (const d of deliveryReasons(s.rigScenario, c)) {
    if (d.fails) raise(ExitCode.thresholdsBreached);
    (d.fails ? failures : held).push(d.text);
  }

  for (const t of s.thresholds) {
    if (t.ok) held.push(thresholdReason(t, s.aggregate));
    // A `strict: false` ensure condition: shown, but it does not fail the run (as in Artillery).
    else if (t.optional) held.push(`${thresholdReason(t, s.aggregate)} (optional: strict: false)`);
    else {
      raise(ExitCode.thresholdsBreached);
      failures.push(thresholdReason(t, s.aggregate));
    }
  }
  const passed = exitCode === ExitCode.ok;
  return { passed, exitCode, reasons: passed ? held : failures };
}

/** The one-line form for the terminal (the summary table ends with it). */
export function resultLine(r: RunResult): string {
  return `${r.passed ? 'PASSED' : 'FAILED'} (exit ${r.exitCode}): ${r.reasons.join('; ')}`;
}
