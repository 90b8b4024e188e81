/**
 * What fanning a script out over load processes changes, said before the start (pure): the `maxVusers`
 * bound the split implies, and which process reads which rows of a sequenced payload (both decided by
 * the planner, scripts/core/split.ts).
 */
import type { PayloadShare, Phase } from './core/plan';
import { isRecord } from './core/is-record';
import { type ChosenEnvironment, phaseFieldWhere } from './phase-origin';
import type { ArtilleryScript } from './scenario';

/**
 * One line per phase whose `maxVusers` is split over several load processes. Each process caps its
 * own vusers and cannot lend its room to another, so when arrivals or session lengths are uneven the
 * whole run can create fewer vusers than one plain `artillery run` would: the bound is printed, not hidden.
 */
export function maxVusersNotes(phases: readonly Phase[], perProcess: ReadonlyArray<ReadonlyArray<Phase[]>>, env?: ChosenEnvironment): string[] {
  const notes: string[] = [];
  phases.forEach((phase, i) => {
    if (phase.maxVusers === undefined) return;
    const caps = perProcess.flat().map((p) => p[i]?.maxVusers).filter((v): v is number => v !== undefined && v > 0);
    if (caps.length < 2) return;
    notes.push(
      `note: ${phaseFieldWhere(phase, i, 'maxVusers', env)}: maxVusers ${phase.maxVusers} is split ${caps.join('/')} over ${caps.length} load processes; each caps its own vusers, so the run holds at most ${phase.maxVusers} at once but may skip arrivals a single plain run would have admitted`,
    );
  });
  return notes;
}

/**
 * One line per sequenced payload that is shared out, so the run's output says how rows are read:
 * `note: payload users.csv (order: sequence): 4 load processes each read their own rows (arrivals 1-5, 6-10, …)`.
 */
export function payloadNotes(payload: unknown, shares: ReadonlyArray<ReadonlyArray<PayloadShare | undefined>>): string[] {
  const list = (Array.isArray(payload) ? payload : payload ? [payload] : []) as Array<{ path?: unknown; order?: unknown }>;
  const active = shares.flat().filter((x): x is PayloadShare => x !== undefined);
  if (active.length < 2) return [];
  const ranges = active.slice(0, 3).map((x) => `${x.start + 1}-${x.start + x.count}`).join(', ') + (active.length > 3 ? ', …' : '');
  return list
    .filter((p) => p && p.order === 'sequence')
    .map(
      (p) =>
        `note: payload ${String(p.path).split(/[\\/]/).pop()} (order: sequence): ${active.length} load processes each read the rows of their planned arrivals (${ranges}), so the run reads the rows one plain run reads; a process that creates more vusers than planned wraps around its own rows`,
    );
}

/**
 * One line per phase duration the rig reads differently from plain `artillery run`: a plain number with a
 * fraction. The rig reads "1.5" and 1.5 as 1.5 s; Artillery 2.0.34 reads the string "1.5" as 1.5 ms and refuses
 * the number 1.5 ("Invalid duration for phase"). Said before the start, never changed silently.
 */
export function durationNotes(phases: readonly Phase[], ran: readonly Phase[], env?: ChosenEnvironment): string[] {
  const notes: string[] = [];
  phases.forEach((phase, i) => {
    // Only phases of the script that run as written (flags such as --vusers may have replaced them).
    if (ran[i]?.duration !== phase.duration || ran[i]?.pause !== phase.pause) return;
    for (const field of ['duration', 'pause'] as const) {
      const v = phase[field];
      const text = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : undefined;
      if (text === undefined || !/^\d+\.\d+$/.test(text) || Number.isInteger(Number(text))) continue;
      const plain = typeof v === 'string' ? `reads "${text}" as ${text} ms` : `refuses ${text} ("Invalid duration for phase")`;
      notes.push(`note: ${phaseFieldWhere(phase, i, field, env)}: ${field} ${typeof v === 'string' ? `"${text}"` : text} is run as ${text} s (plain artillery run ${plain}); write "${text}s" to say so in the script itself`);
    }
  });
  return notes;
}

/**
 * The line said when a script has a top-level `before` or `after` and runs in more than one load process: each
 * process is its own Artillery run and runs them, so the target sees their requests once per process
 * (docs/scenarios.md, "Not the same as plain artillery run"). One process runs them once, as plain does.
 */
export function beforeAfterNote(script: ArtilleryScript, processes: number): string | undefined {
  const sections = (['before', 'after'] as const).filter((k) => script[k] !== undefined);
  if (sections.length === 0 || processes < 2) return undefined;
  const one = sections.length === 1;
  return `note: the script's ${sections.join(' and ')} section${one ? ' runs' : 's run'} once in each of the ${processes} load processes (each is its own Artillery run), so the target sees ${one ? 'its' : 'their'} requests ${processes} times, not once as under plain artillery run`;
}

/** Whether a flow has a `log` step, in loops and parallel blocks too. */
function hasLogStep(flow: unknown): boolean {
  return Array.isArray(flow) && flow.some((step) => isRecord(step) && (step.log !== undefined || hasLogStep(step.loop) || hasLogStep(step.parallel)));
}

/**
 * The line said when a script has `log` steps (its scenarios, `before`, `after`): Artillery prints them, and a
 * processor's console.log, on its own output, which under the rig is each load process's log in the run folder,
 * not the terminal as under plain `artillery run`.
 */
export function logStepNote(script: ArtilleryScript, runDir: string): string | undefined {
  const flows = [...script.scenarios, script.before, script.after].map((s) => (isRecord(s) ? s.flow : undefined));
  if (!flows.some(hasLogStep)) return undefined;
  return `note: the script's log steps (and a processor's console.log) print into each load process's log, ${runDir}/generators/<g>/p<k>/artillery.log, not on this terminal as under plain artillery run`;
}
