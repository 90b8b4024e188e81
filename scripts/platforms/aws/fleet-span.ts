/**
 * How long a run keeps the generators (and the target's suspended scale-in): one pure reckoning,
 * {@link fleetSpanMs}, from one set of budgets ({@link FleetBudgets}), shared by the fleet's own launch deadline
 * (fleet.ts), the check against the deployed generator lifetime, the scale-in mark's deadline (scale-in.ts) and the
 * credentials' check (run-checks.ts), so the four never disagree (test/unit/fleet-span.test.ts).
 */
import type { Plan } from '../../core/plan';
import { UsageError } from '../../errors';
import { secondsOfPhase } from '../../core/phases';

/** The orchestrator stops a run this long past its planned end (scripts/orchestrator.ts watchRun). */
export const OVERRUN_SECONDS = 120;

/** The longest each step of getting the fleet going may take. */
export interface FleetBudgets {
  /**
   * The longest wait for the group's instances (and their SSM registration), each stage: the preflight's first
   * instance, then the rest of the fleet. Each stage has its own: the preflight's boot does not eat the fleet's.
   */
  readonly launchMs: number;
  /** The longest wait for the preflight probe's answer, once its command is sent. */
  readonly probeMs: number;
  /** The longest the agents wait for the ready barrier before the start (the AWS platform's readyTimeoutMs). */
  readonly readyMs: number;
}

/** The AWS run's budgets: 10 min per launch stage, 5 min for the probe, 10 min for the ready barrier. */
export const FLEET_BUDGETS: FleetBudgets = { launchMs: 600_000, probeMs: 300_000, readyMs: 600_000 };

/** Agents wait this long at most for the ready barrier before the start (the AWS platform's readyTimeoutMs). */
export const READY_TIMEOUT_MS = FLEET_BUDGETS.readyMs;

/** The budgets with a test's shorter fleet timings (fleet-context.ts's instanceTimeoutMs, preflightTimeoutMs) in. Pure. */
export function fleetBudgets(timings?: { readonly instanceTimeoutMs?: number; readonly preflightTimeoutMs?: number }): FleetBudgets {
  return { ...FLEET_BUDGETS, launchMs: timings?.instanceTimeoutMs ?? FLEET_BUDGETS.launchMs, probeMs: timings?.preflightTimeoutMs ?? FLEET_BUDGETS.probeMs };
}

/**
 * The launch's whole span, from its start to the last agent command sent: the preflight stage (its instance, then
 * its probe) and the scale-out stage, each with its own instance budget. fleet.ts never waits past it. Pure.
 */
export function launchSpanMs(budgets: FleetBudgets = FLEET_BUDGETS): number {
  return budgets.launchMs + budgets.probeMs + budgets.launchMs;
}

/**
 * Seconds from the shared start until the orchestrator gives up on the run: the busiest generator's phases, one
 * session past the last arrival (a vuser that arrives last holds its connection that long), and the overrun.
 */
export function runSeconds(plan: Pick<Plan, 'generators'>, sessionSeconds: number): number {
  const phaseSeconds = Math.max(0, ...plan.generators.map((g) => g.phases.reduce((a, p) => a + secondsOfPhase(p), 0)));
  return phaseSeconds + Math.max(0, sessionSeconds) + OVERRUN_SECONDS;
}

/**
 * How long a run keeps its generator fleet at the most, from the launch's start to the orchestrator's give-up (the
 * first instance's age at the run's end): the launch ({@link launchSpanMs}), the ready barrier, and the run
 * ({@link runSeconds}). The single source of every estimate of the fleet's span. Pure.
 */
export function fleetSpanMs(plan: Pick<Plan, 'generators'>, sessionSeconds: number, budgets: FleetBudgets = FLEET_BUDGETS): number {
  return launchSpanMs(budgets) + budgets.readyMs + runSeconds(plan, sessionSeconds) * 1000;
}

/**
 * SSM executionTimeout of an agent's command: the ready barrier, the run until the orchestrator gives up, and 10
 * minutes for the agent's last upload; a command never outlives the run it serves.
 */
export function commandTimeoutSeconds(plan: Pick<Plan, 'generators'>, sessionSeconds: number): number {
  return Math.ceil(READY_TIMEOUT_MS / 1000 + runSeconds(plan, sessionSeconds) + 600);
}

const minutes = (ms: number) => Math.round(ms / 60_000);

/**
 * Refuses, before anything scales, a run that needs its generators longer than the deployed lifetime
 * (generatorMaxLifetimeMinutes): the safety net would scale the group to 0 mid-run. The span counted is
 * {@link fleetSpanMs}.
 * @throws UsageError naming both figures and the fix
 */
export function checkGeneratorLifetime(plan: Pick<Plan, 'generators'>, sessionSeconds: number, maxLifetimeMinutes: number | undefined, budgets: FleetBudgets = FLEET_BUDGETS): void {
  if (maxLifetimeMinutes === undefined) return;
  const needed = Math.ceil(fleetSpanMs(plan, sessionSeconds, budgets) / 60_000);
  if (needed <= maxLifetimeMinutes) return;
  const { launchMs, probeMs, readyMs } = budgets;
  throw new UsageError(
    `the run needs its generators for up to ${needed} min (preflight launch ${minutes(launchMs)} + probe ${minutes(probeMs)} + scale-out ${minutes(launchMs)} + ready ${minutes(readyMs)} + phases, one session and the 2-min overrun), longer than the deployed generatorMaxLifetimeMinutes ${maxLifetimeMinutes}: the safety net would scale them to 0 mid-run; shorten the run (--ramp, --hold) or redeploy with -c generatorMaxLifetimeMinutes=${Math.min(1440, needed)} (npm run deploy)`,
  );
}
