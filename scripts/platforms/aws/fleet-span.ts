/**
 * How long a run keeps the generators (and the target's suspended scale-in): one pure reckoning shared by the
 * scale-in mark's deadline, the SSM commands' execution timeout and the check against the deployed generator
 * lifetime, so the three never disagree.
 */
import type { Plan } from '../../core/plan';
import { UsageError } from '../../errors';
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

/** Agents wait this long at most for the ready barrier before the start (the AWS platform's readyTimeoutMs). */
export const READY_TIMEOUT_MS = 600_000;

/**
 * SSM executionTimeout of an agent's command: the ready barrier, the run until the orchestrator gives up, and 10
 * minutes for the agent's last upload; a command never outlives the run it serves.
 */
export function commandTimeoutSeconds(plan: Pick<Plan, 'generators'>, sessionSeconds: number): number {
  return Math.ceil(READY_TIMEOUT_MS / 1000 + runSeconds(plan, sessionSeconds) + 600);
}

/**
 * Refuses, before anything scales, a run that needs its generators longer than the deployed lifetime
 * (generatorMaxLifetimeMinutes): the safety net would scale the group to 0 mid-run. The span counted is the
 * launch, the ready barrier and the run (the first instance's age at the run's end).
 * @throws UsageError naming both figures and the fix
 */
export function checkGeneratorLifetime(plan: Pick<Plan, 'generators'>, sessionSeconds: number, maxLifetimeMinutes: number | undefined): void {
  if (maxLifetimeMinutes === undefined) return;
  const needed = Math.ceil((LAUNCH_TIMEOUT_MS + READY_TIMEOUT_MS) / 60_000 + runSeconds(plan, sessionSeconds) / 60);
  if (needed <= maxLifetimeMinutes) return;
  throw new UsageError(
    `the run needs its generators for up to ${needed} min (launch 10 + ready 10 + phases, one session and the 2-min overrun), longer than the deployed generatorMaxLifetimeMinutes ${maxLifetimeMinutes}: the safety net would scale them to 0 mid-run; shorten the run (--ramp, --hold) or redeploy with -c generatorMaxLifetimeMinutes=${Math.min(1440, needed)} (npm run deploy)`,
  );
}
