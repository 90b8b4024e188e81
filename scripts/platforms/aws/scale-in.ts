/**
 * Target scale-in is suspended for the run window and restored afterwards: an instance (or task) removed during
 * a hold drops every connection it holds, which would measure the scaling policy, not the system. Scale-out
 * keeps the write-ups' rule (CPU ≥ 40% for 2 minutes) untouched.
 *
 * One mechanism for both target kinds: the target stack's scale-in alarm (output ScaleInAlarmName) has its
 * actions disabled — CloudWatch still evaluates it (it stays on the dashboard and in the report), it just does
 * not call the step-scaling policy. The EC2 auto-scaling group and the ECS service's Application Auto Scaling
 * target are both driven only through that alarm, so neither scales in while it is disabled.
 */
import type { AwsApi } from './clients';

/** Restores what {@link suspendScaleIn} changed; idempotent. */
export type RestoreScaleIn = () => Promise<void>;

/**
 * Disables the scale-in alarm's actions when they are enabled; returns the restore. An alarm whose actions were
 * already disabled (by the operator) is left as it is, and so is a missing alarm (bring-your-own target).
 */
export async function suspendScaleIn(api: Pick<AwsApi, 'describeAlarms' | 'disableAlarmActions' | 'enableAlarmActions'>, alarmName: string | undefined, log: (line: string) => void): Promise<RestoreScaleIn> {
  const noop: RestoreScaleIn = async () => undefined;
  if (!alarmName) return noop;
  const res = await api.describeAlarms({ AlarmNames: [alarmName] });
  const alarm = res.MetricAlarms?.find((a) => a.AlarmName === alarmName);
  if (!alarm) {
    log(`note: target scale-in alarm ${alarmName} not found; scale-in is not suspended for this run`);
    return noop;
  }
  if (alarm.ActionsEnabled === false) {
    log(`target scale-in: alarm ${alarmName} already has its actions disabled; left as it is`);
    return noop;
  }
  await api.disableAlarmActions([alarmName]);
  log(`target scale-in suspended for the run (alarm ${alarmName}: actions disabled; scale-out unchanged)`);
  let restored = false;
  return async () => {
    if (restored) return;
    restored = true;
    try {
      await api.enableAlarmActions([alarmName]);
      log(`target scale-in restored (alarm ${alarmName}: actions enabled)`);
    } catch (err) {
      log(`could not restore target scale-in (${(err as Error).name}: ${(err as Error).message}); run: aws cloudwatch enable-alarm-actions --alarm-names ${alarmName}`);
    }
  };
}
