/**
 * AZRebalance is suspended on the generator group and the EC2 target's group for the run, and resumed at its end
 * (EC2 Auto Scaling User Guide, "Rebalancing activities": after a zone becomes unbalanced — an instance replaced in
 * another zone, a zone back from an outage — the group launches in the zone with fewer instances and then
 * terminates instances in the other, each dropping every connection it holds). Marked like scale-in
 * (lib/safety-net/scale-in-decision.js: runs/_scale-in/processes/<group>.json), and decided like it
 * (processesDecision, shared with the safety-net Lambda): past the run's deadline a killed run's suspension is taken
 * over by the next run, resumed by `npm run leftovers` and by the safety net; before it, left to that run; one with
 * no run's mark is the operator's and never touched.
 */
import { ProcessesMark, parseProcessesMark, processesDecision, processesMarkKey } from '../../../lib/safety-net/scale-in-decision';
import type { AwsApi } from './clients';
import type { MarkStore, RestoreScaleIn, SuspendingRun } from './scale-in';

/** The process suspended for the run. */
export const AZ_REBALANCE = 'AZRebalance';

/** The auto-scaling calls the suspension makes (clients.ts, with their IAM actions in IAM_ACTIONS). */
export type ProcessesApi = Pick<AwsApi, 'describeAutoScalingGroups' | 'suspendProcesses' | 'resumeProcesses'>;

/** The group's suspended processes; undefined when the group does not exist. */
async function suspendedProcesses(api: ProcessesApi, groupName: string): Promise<string[] | undefined> {
  const res = await api.describeAutoScalingGroups({ AutoScalingGroupNames: [groupName] });
  const group = res.AutoScalingGroups?.find((g) => g.AutoScalingGroupName === groupName) ?? res.AutoScalingGroups?.[0];
  return group ? (group.SuspendedProcesses ?? []).map((p) => String(p.ProcessName)) : undefined;
}

const readMark = async (marks: MarkStore, groupName: string): Promise<ProcessesMark | undefined> => parseProcessesMark(await marks.get(processesMarkKey(groupName)));
const writeMark = (marks: MarkStore, mark: ProcessesMark) => marks.put(processesMarkKey(mark.groupName), JSON.stringify(mark));
const resumeCommand = (groupName: string) => `aws autoscaling resume-processes --auto-scaling-group-name ${groupName} --scaling-processes ${AZ_REBALANCE}`;

/**
 * Suspends AZRebalance on a group for the run (mark first, then the call); returns the resume. Where it is already
 * suspended: a killed run's, past its deadline, is taken over (this run resumes it at its end); another run's before
 * its deadline is left to that run; one with no run's mark (the operator's) is left as it is. A group that does not
 * exist is left alone.
 */
export async function suspendAzRebalance(api: ProcessesApi, groupName: string | undefined, log: (line: string) => void, run: SuspendingRun): Promise<RestoreScaleIn> {
  const noop: RestoreScaleIn = async () => undefined;
  if (!groupName) return noop;
  const suspended = await suspendedProcesses(api, groupName);
  if (suspended === undefined) return noop;
  const already = suspended.includes(AZ_REBALANCE);
  if (already) {
    const decision = processesDecision({ suspended, mark: await readMark(run.marks, groupName), now: run.now() });
    if (decision.action === 'wait') {
      log(`group ${groupName}: ${AZ_REBALANCE} is suspended by another run (${decision.why}); left to that run`);
      return noop;
    }
    if (decision.action === 'none') {
      log(`group ${groupName}: ${AZ_REBALANCE} already suspended; left as it is`);
      return noop;
    }
    log(`group ${groupName}: ${decision.why}; this run takes it over and resumes it at its end`);
  }
  const mark: ProcessesMark = { groupName, processes: [AZ_REBALANCE], runId: run.runId, suspendedAt: run.now(), restoreBy: run.restoreBy, state: 'suspended' };
  await writeMark(run.marks, mark);
  if (!already) await api.suspendProcesses({ AutoScalingGroupName: groupName, ScalingProcesses: [AZ_REBALANCE] });
  log(`group ${groupName}: ${AZ_REBALANCE} suspended for the run (no zone rebalancing terminates an instance mid-run)`);
  let resumed = false;
  return async () => {
    if (resumed) return;
    resumed = true;
    try {
      await api.resumeProcesses({ AutoScalingGroupName: groupName, ScalingProcesses: [AZ_REBALANCE] });
      await writeMark(run.marks, { ...mark, state: 'restored' });
      log(`group ${groupName}: ${AZ_REBALANCE} resumed`);
    } catch (err) {
      log(`could not resume ${AZ_REBALANCE} on ${groupName} (${(err as Error).name}: ${(err as Error).message}); run: ${resumeCommand(groupName)}`);
    }
  };
}

/**
 * Resumes the processes a killed run left suspended on a group past its deadline (`npm run leftovers`; the next run
 * takes them over instead); returns the decision's words, or undefined when there was nothing to look at.
 */
export async function resumeOverdueProcesses(api: ProcessesApi, groupName: string | undefined, marks: MarkStore, now: number, log: (line: string) => void): Promise<string | undefined> {
  if (!groupName) return undefined;
  // The group first: a group gone (torn down) or with nothing suspended needs no mark read from the bucket.
  const suspended = await suspendedProcesses(api, groupName);
  if (!suspended?.includes(AZ_REBALANCE)) return undefined;
  const mark = await readMark(marks, groupName);
  if (!mark) return undefined;
  const decision = processesDecision({ suspended, mark, now });
  if (decision.action !== 'restore') return decision.why;
  await api.resumeProcesses({ AutoScalingGroupName: groupName, ScalingProcesses: decision.processes });
  await writeMark(marks, { ...mark, state: 'restored' });
  log(`group ${groupName}: ${decision.processes.join(', ')} resumed: ${decision.why}`);
  return decision.why;
}
