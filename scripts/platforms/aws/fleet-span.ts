/**
 * How long a run keeps the generators (and the target's suspended scale-in): one pure reckoning shared by the
 * scale-in mark's deadline, the SSM commands' execution timeout and the check against the deployed generator
 * lifetime, so the three never disagree.
 */
import type { Plan } from '../../core/plan';
import { secondsOfPhase } from '../../core/phases';

/** The orchestrator stops a run this long past its planned end (scripts/orchestrator.ts watchRun). */
export const OVERRUN_SECONDS = 120;

/** The fleet's longest wait for its instances, each stage (preflight, then the rest of the fleet). */
export const LAUNCH_TIMEOUT_MS = 600_000;

/**
 * Seconds from the shared start until the orchestrator gives up on the run: the busiest generator's phases, one
 * session past the last arrival (a vuser that arrives last holds its connection that long), and the overrun.
 */
export function runSeconds(plan: Pick<Plan, 'generators'>, sessionSeconds: number): number {
  const phaseSeconds = Math.max(0, ...plan.generators.map((g) => g.phases.reduce((a, p) => a + secondsOfPhase(p), 0)));
  return phaseSeconds + Math.max(0, sessionSeconds) + OVERRUN_SECONDS;
}
