/**
 * AZRebalance is suspended on the generator group and the EC2 target's group for the run, and resumed at its end
 * (EC2 Auto Scaling User Guide, "Rebalancing activities": after a zone becomes unbalanced — an instance replaced in
 * another zone, a zone back from an outage — the group launches in the zone with fewer instances and then
 * terminates instances in the other, each dropping every connection it holds). Marked like scale-in
 * (lib/safety-net/scale-in-decision.js: runs/_scale-in/processes/<group>.json), so the safety net resumes it after
 * a killed CLI once the run's deadline has passed.
 */
import { AutoScalingClient, DescribeAutoScalingGroupsCommand, ResumeProcessesCommand, SuspendProcessesCommand } from '@aws-sdk/client-auto-scaling';
import { processesMarkKey } from '../../../lib/safety-net/scale-in-decision';
import type { RestoreScaleIn, SuspendingRun } from './scale-in';

/** The process suspended for the run. */
export const AZ_REBALANCE = 'AZRebalance';

/** The auto-scaling calls the suspension makes. */
export interface ProcessesApi {
  /** The group's suspended processes; undefined when the group does not exist. */
  suspendedProcesses(groupName: string): Promise<string[] | undefined>;
  suspendProcesses(groupName: string, processes: string[]): Promise<void>;
  resumeProcesses(groupName: string, processes: string[]): Promise<void>;
}

/** The IAM actions {@link ProcessesApi} needs besides autoscaling:DescribeAutoScalingGroups (iam/operator-policy.json). */
export const PROCESSES_IAM_ACTIONS = ['autoscaling:SuspendProcesses', 'autoscaling:ResumeProcesses'] as const;

/**
 * The SDK's {@link ProcessesApi}, with the run path's client settings (scripts/platforms/aws/clients.ts: region,
 * 5 attempts, AWS_ENDPOINT_URL). Its own client only until clients.ts's AwsApi carries these two calls.
 */
export function createProcessesApi(region: string): ProcessesApi {
  const asg = new AutoScalingClient({ region, maxAttempts: 5 });
  return {
    async suspendedProcesses(groupName) {
      const res = await asg.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [groupName] }));
      const group = res.AutoScalingGroups?.[0];
      return group ? (group.SuspendedProcesses ?? []).map((p) => String(p.ProcessName)) : undefined;
    },
    async suspendProcesses(groupName, processes) {
      await asg.send(new SuspendProcessesCommand({ AutoScalingGroupName: groupName, ScalingProcesses: processes }));
    },
    async resumeProcesses(groupName, processes) {
      await asg.send(new ResumeProcessesCommand({ AutoScalingGroupName: groupName, ScalingProcesses: processes }));
    },
  };
}

/**
 * Suspends AZRebalance on a group for the run (mark first, then the call); returns the resume. A group where it was
 * already suspended (by the operator) is left as it is, and so is a group that does not exist.
 */
export async function suspendAzRebalance(api: ProcessesApi, groupName: string | undefined, log: (line: string) => void, run: SuspendingRun): Promise<RestoreScaleIn> {
  const noop: RestoreScaleIn = async () => undefined;
  if (!groupName) return noop;
  const suspended = await api.suspendedProcesses(groupName);
  if (suspended === undefined) return noop;
  if (suspended.includes(AZ_REBALANCE)) {
    log(`group ${groupName}: ${AZ_REBALANCE} already suspended; left as it is`);
    return noop;
  }
  const mark = { groupName, processes: [AZ_REBALANCE], runId: run.runId, suspendedAt: run.now(), restoreBy: run.restoreBy };
  const key = processesMarkKey(groupName);
  await run.marks.put(key, JSON.stringify({ ...mark, state: 'suspended' }));
  await api.suspendProcesses(groupName, [AZ_REBALANCE]);
  log(`group ${groupName}: ${AZ_REBALANCE} suspended for the run (no zone rebalancing terminates an instance mid-run)`);
  let resumed = false;
  return async () => {
    if (resumed) return;
    resumed = true;
    try {
      await api.resumeProcesses(groupName, [AZ_REBALANCE]);
      await run.marks.put(key, JSON.stringify({ ...mark, state: 'restored' }));
      log(`group ${groupName}: ${AZ_REBALANCE} resumed`);
    } catch (err) {
      log(`could not resume ${AZ_REBALANCE} on ${groupName} (${(err as Error).name}: ${(err as Error).message}); run: aws autoscaling resume-processes --auto-scaling-group-name ${groupName} --scaling-processes ${AZ_REBALANCE}`);
    }
  };
}
