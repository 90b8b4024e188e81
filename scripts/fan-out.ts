/**
 * What fanning a script out over load processes changes, decided in one place and pure:
 * which process gets which share of a sequenced payload, and the `maxVusers` bound the split implies.
 */
import { estimateArrivals } from './core/plan';
import type { Phase } from './core/plan';

/** A load process's place among those that create vusers: payload rows index, index+count, … are its own. */
export interface PayloadShare {
  readonly index: number;
  readonly count: number;
}

/**
 * Shares for every process (`perProcess[generator][process]` = its phases). Processes with no arrivals
 * get none, so no rows are parked where no vuser will read them.
 */
export function payloadShares(perProcess: ReadonlyArray<ReadonlyArray<Phase[]>>): Array<Array<PayloadShare | undefined>> {
  const active = perProcess.map((procs) => procs.map((phases) => estimateArrivals(phases) > 0));
  const count = active.flat().filter(Boolean).length;
  let next = 0;
  return active.map((procs) => procs.map((a) => (a ? { index: next++, count } : undefined)));
}

/**
 * One line per phase whose `maxVusers` is split over several load processes. Each process caps its
 * own vusers and cannot lend its room to another, so when arrivals or session lengths are uneven the
 * whole run can create fewer vusers than one plain `artillery run` would: the bound is printed, not hidden.
 */
export function maxVusersNotes(phases: readonly Phase[], perProcess: ReadonlyArray<ReadonlyArray<Phase[]>>): string[] {
  const notes: string[] = [];
  phases.forEach((phase, i) => {
    if (phase.maxVusers === undefined) return;
    const caps = perProcess.flat().map((p) => p[i]?.maxVusers).filter((v): v is number => v !== undefined && v > 0);
    if (caps.length < 2) return;
    const name = phase.name ? `"${phase.name}"` : `${i + 1}`;
    notes.push(
      `note: phase ${name}: maxVusers ${phase.maxVusers} is split ${caps.join('/')} over ${caps.length} load processes; each caps its own vusers, so the run holds at most ${phase.maxVusers} at once but may skip arrivals a single plain run would have admitted`,
    );
  });
  return notes;
}
