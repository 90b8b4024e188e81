/**
 * One reckoning of how long a run keeps its generator fleet (fleet-span.ts fleetSpanMs), and every estimate built
 * on it: the generator-lifetime check, the scale-in mark's deadline and the credentials' check. Budgets where each
 * launch stage, the probe and the ready barrier differ, so an estimate that counts one stage fewer (or one twice)
 * shows here.
 */
import { UsageError } from '../../scripts/errors';
import { FLEET_BUDGETS, checkGeneratorLifetime, fleetBudgets, fleetSpanMs, launchSpanMs } from '../../scripts/platforms/aws/fleet-span';
import { RUN_OVERHEAD_MS, credentialsNeededUntil } from '../../scripts/platforms/aws/run-checks';
import { scaleInRestoreBy } from '../../scripts/platforms/aws/scale-in';

const T = Date.UTC(2026, 10, 26, 12, 0);
const BUDGETS = { launchMs: 7 * 60_000, probeMs: 3 * 60_000, readyMs: 4 * 60_000 };
// Two generators: the busier one (900 s of phases) sets the run.
const PLAN = { generators: [{ phases: [{ duration: 600, arrivalRate: 1 }] }, { phases: [{ duration: 300, arrivalRate: 1 }, { duration: 600, arrivalRate: 2 }] }] } as unknown as Parameters<typeof fleetSpanMs>[0];
const SESSION = 300;
// Preflight launch 7 + probe 3 + scale-out 7 + ready 4 minutes, then 900 s of phases + 300 s of session + 120 s overrun.
const SPAN_MS = (7 + 3 + 7 + 4) * 60_000 + (900 + 300 + 120) * 1000;

test('the fleet\'s span counts both launch stages (the preflight\'s instance and probe, then the scale-out), the ready barrier and the run', () => {
  expect(launchSpanMs(BUDGETS)).toBe((7 + 3 + 7) * 60_000);
  expect(fleetSpanMs(PLAN, SESSION, BUDGETS)).toBe(SPAN_MS);
  expect(fleetSpanMs(PLAN, SESSION)).toBe((10 + 5 + 10 + 10) * 60_000 + (900 + 300 + 120) * 1000);
  expect(fleetBudgets({ instanceTimeoutMs: 7 * 60_000, preflightTimeoutMs: 3 * 60_000 })).toEqual({ ...BUDGETS, readyMs: FLEET_BUDGETS.readyMs });
  expect(fleetBudgets(undefined)).toEqual(FLEET_BUDGETS);
});

test('the generator-lifetime check refuses exactly past the fleet\'s span (43 min here), naming every budget', () => {
  expect(Math.ceil(SPAN_MS / 60_000)).toBe(43);
  expect(() => checkGeneratorLifetime(PLAN, SESSION, 43, BUDGETS)).not.toThrow();
  const err = (() => { try { checkGeneratorLifetime(PLAN, SESSION, 42, BUDGETS); } catch (e) { return e as Error; } return undefined; })();
  expect(err).toBeInstanceOf(UsageError);
  expect(err?.message).toMatch(/^the run needs its generators for up to 43 min \(preflight launch 7 \+ probe 3 \+ scale-out 7 \+ ready 4 \+ phases, one session and the 2-min overrun\), longer than the deployed generatorMaxLifetimeMinutes 42: .* -c generatorMaxLifetimeMinutes=43 \(npm run deploy\)$/);
});

test('the scale-in mark\'s deadline is the fleet\'s span plus 30 minutes\' margin', () => {
  expect(scaleInRestoreBy(T, PLAN, SESSION, BUDGETS)).toBe(T + SPAN_MS + 30 * 60_000);
});

test('the credentials must last the fleet\'s span plus collection', () => {
  expect(credentialsNeededUntil(T, PLAN, SESSION, BUDGETS)).toBe(T + SPAN_MS + RUN_OVERHEAD_MS.collection);
});
