/**
 * Target scale-in is suspended for the run window and restored afterwards: an instance (or task) removed during
 * a hold drops every connection it holds, which would measure the scaling policy, not the system. Scale-out
 * keeps the write-ups' rule (CPU ≥ 40% for 2 minutes) untouched.
 *
 * One mechanism for both target kinds: the target stack's scale-in alarm (output ScaleInAlarmName) has its
 * actions disabled — CloudWatch still evaluates it (it stays on the dashboard and in the report), it just does
 * not call the step-scaling policy. The EC2 auto-scaling group and the ECS service's Application Auto Scaling
 * target are both driven only through that alarm, so neither scales in while it is disabled.
 *
 * A CLI killed mid-run cannot restore it: before disabling, the run writes a mark (lib/safety-net/
 * scale-in-decision.js) with a deadline; the next run, `npm run leftovers` and the safety-net Lambda restore
 * scale-in once the deadline has passed ({@link restoreOverdueScaleIn}).
 */
import type { RunStore } from '../../../load-generators/lib/run-store';
import { ScaleInMark, parseMark, scaleInDecision, scaleInMarkKey } from '../../../lib/safety-net/scale-in-decision';
import type { Plan } from '../../core/plan';
import type { AwsApi } from './clients';
import { FLEET_BUDGETS, FleetBudgets, fleetSpanMs } from './fleet-span';

/** Restores what {@link suspendScaleIn} changed; idempotent. */
export type RestoreScaleIn = () => Promise<void>;
type AlarmApi = Pick<AwsApi, 'describeAlarms' | 'disableAlarmActions' | 'enableAlarmActions'>;
/** Where the marks are kept: a store on the results bucket's runs/ prefix (get and put only). */
export type MarkStore = Pick<RunStore, 'get' | 'put'>;
/** The run that suspends, and the instant by which it will have restored scale-in. */
export interface SuspendingRun {
  readonly marks: MarkStore;
  readonly runId: string;
  readonly now: () => number;
  readonly restoreBy: number;
}

/**
 * The restore deadline: the fleet's whole span ({@link fleetSpanMs}: both launch stages, the ready barrier, the run
 * to the orchestrator's give-up) and 30 minutes' margin (collection). Pure.
 */
export function scaleInRestoreBy(now: number, plan: Pick<Plan, 'generators'>, sessionSeconds: number, budgets: FleetBudgets = FLEET_BUDGETS): number {
  return now + fleetSpanMs(plan, sessionSeconds, budgets) + 30 * 60_000;
}

async function alarmState(api: AlarmApi, alarmName: string): Promise<boolean | undefined> {
  const res = await api.describeAlarms({ AlarmNames: [alarmName] });
  const alarm = res.MetricAlarms?.find((a) => a.AlarmName === alarmName);
  return alarm ? alarm.ActionsEnabled !== false : undefined;
}

const readMark = async (marks: MarkStore, alarmName: string) => parseMark(await marks.get(scaleInMarkKey(alarmName)));
const writeMark = (marks: MarkStore, mark: ScaleInMark) => marks.put(scaleInMarkKey(mark.alarmName), JSON.stringify(mark));

/**
 * Disables the scale-in alarm's actions when they are enabled; returns the restore. An alarm whose actions were
 * already disabled by the operator is left as it is, and so is a missing alarm (bring-your-own target); one a
 * killed run left disabled past its deadline is taken over (this run restores it at its end).
 */
export async function suspendScaleIn(api: AlarmApi, alarmName: string | undefined, log: (line: string) => void, run?: SuspendingRun): Promise<RestoreScaleIn> {
  const noop: RestoreScaleIn = async () => undefined;
  if (!alarmName) return noop;
  const enabled = await alarmState(api, alarmName);
  if (enabled === undefined) {
    log(`note: target scale-in alarm ${alarmName} not found; scale-in is not suspended for this run`);
    return noop;
  }
  const mark = (run ? await readMark(run.marks, alarmName) : undefined);
  if (!enabled) {
    const decision = scaleInDecision({ actionsEnabled: false, mark, now: run?.now() ?? Date.now() });
    if (decision.action === 'wait') {
      log(`target scale-in: alarm ${alarmName} is suspended by another run (${decision.why}); left to that run`);
      return noop;
    }
    if (decision.action === 'none') {
      log(`target scale-in: alarm ${alarmName} already has its actions disabled; left as it is`);
      return noop;
    }
    log(`target scale-in: ${decision.why}; this run takes it over and restores it at its end`);
  }
  const suspendedAt = run?.now() ?? 0;
  if (run) await writeMark(run.marks, { alarmName, runId: run.runId, suspendedAt, restoreBy: run.restoreBy, state: 'suspended' });
  if (enabled) await api.disableAlarmActions([alarmName]);
  log(`target scale-in suspended for the run (alarm ${alarmName}: actions disabled; scale-out unchanged)`);
  let restored = false;
  return async () => {
    if (restored) return;
    restored = true;
    try {
      await api.enableAlarmActions([alarmName]);
      if (run) await writeMark(run.marks, { alarmName, runId: run.runId, suspendedAt, restoreBy: run.restoreBy, state: 'restored' });
      log(`target scale-in restored (alarm ${alarmName}: actions enabled)`);
    } catch (err) {
      log(`could not restore target scale-in (${(err as Error).name}: ${(err as Error).message}); run: aws cloudwatch enable-alarm-actions --alarm-names ${alarmName}`);
    }
  };
}

/**
 * Restores a scale-in a killed run left suspended past its deadline (the next run, `npm run leftovers`);
 * returns the decision's words, or undefined when there was nothing to look at.
 */
export async function restoreOverdueScaleIn(api: AlarmApi, alarmName: string | undefined, marks: MarkStore, now: number, log: (line: string) => void): Promise<string | undefined> {
  if (!alarmName) return undefined;
  const enabled = await alarmState(api, alarmName);
  // An alarm that is gone or whose actions are on needs no mark: none is read (after a partial teardown the results
  // bucket may be gone, and reading it would fail the whole check).
  if (enabled !== false) return scaleInDecision({ actionsEnabled: enabled, mark: undefined, now }).why;
  const mark = await readMark(marks, alarmName);
  const decision = scaleInDecision({ actionsEnabled: enabled, mark, now });
  if (decision.action !== 'restore' || !mark) return decision.why;
  await api.enableAlarmActions([alarmName]);
  await writeMark(marks, { ...mark, state: 'restored' });
  log(`target scale-in restored (alarm ${alarmName}: actions enabled): ${decision.why}`);
  return decision.why;
}
