'use strict';
/**
 * Whether a target's scale-in, suspended by a run, should be restored now. Pure; shared by the CLI
 * (scripts/platforms/aws/scale-in.ts: the next run, `npm run leftovers`) and the safety-net Lambda (index.js),
 * so all three decide the same way.
 *
 * A run that suspends scale-in first writes a mark to the results bucket (runs/_scale-in/<alarm>.json):
 * which run, when, and the instant by which it will have restored it (restoreBy). A run that ends restores
 * scale-in and marks it restored; a CLI killed mid-run (SIGKILL, a closed laptop) leaves the mark saying
 * "suspended" — past restoreBy, whoever looks next restores it.
 */

/** Where the marks live in the results bucket (under runs/, which the operator policy and the agents reach). */
const SCALE_IN_MARK_PREFIX = 'runs/_scale-in';

/**
 * @typedef {{ alarmName: string, runId: string, suspendedAt: number, restoreBy: number, state: 'suspended' | 'restored' }} ScaleInMark
 * @typedef {{ action: 'none' | 'wait' | 'restore', why: string }} ScaleInDecision
 */

/**
 * @param {{ actionsEnabled: boolean | undefined, mark: ScaleInMark | undefined, now: number }} s
 *   actionsEnabled undefined: the alarm does not exist (target stack deleted, bring-your-own target)
 * @returns {ScaleInDecision}
 */
function scaleInDecision({ actionsEnabled, mark, now }) {
  if (actionsEnabled === undefined) return { action: 'none', why: 'the alarm does not exist' };
  if (actionsEnabled) return { action: 'none', why: 'scale-in is active (alarm actions enabled)' };
  if (!mark || mark.state !== 'suspended') return { action: 'none', why: 'alarm actions were disabled by someone other than a run (no rig mark): left as they are' };
  const at = (/** @type {number} */ t) => new Date(t).toISOString();
  if (now < mark.restoreBy) return { action: 'wait', why: `run ${mark.runId} suspended scale-in at ${at(mark.suspendedAt)} and restores it by ${at(mark.restoreBy)}` };
  return { action: 'restore', why: `run ${mark.runId} suspended scale-in at ${at(mark.suspendedAt)} and had not restored it by ${at(mark.restoreBy)} (its CLI was killed or lost)` };
}

/** @param {string} alarmName */
const scaleInMarkKey = (alarmName) => `${SCALE_IN_MARK_PREFIX}/${alarmName.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;

/** A mark read back, or undefined when it is absent or unreadable. @param {string | undefined} text @returns {ScaleInMark | undefined} */
function parseMark(text) {
  if (!text) return undefined;
  try {
    const m = JSON.parse(text);
    return m && typeof m.restoreBy === 'number' && typeof m.alarmName === 'string' ? m : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Auto-scaling processes a run suspended on a group (AZRebalance: EC2 Auto Scaling User Guide, "Rebalancing
 * activities" — after a zone imbalance the group launches in another zone, then terminates instances, each holding
 * connections): marked like scale-in, under runs/_scale-in/processes/, one mark per group.
 * @typedef {{ groupName: string, processes: string[], runId: string, suspendedAt: number, restoreBy: number, state: 'suspended' | 'restored' }} ProcessesMark
 */
const PROCESSES_MARK_PREFIX = `${SCALE_IN_MARK_PREFIX}/processes`;

/** @param {string} groupName */
const processesMarkKey = (groupName) => `${PROCESSES_MARK_PREFIX}/${groupName.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;

/** A processes mark read back, or undefined when absent or unreadable. @param {string | undefined} text @returns {ProcessesMark | undefined} */
function parseProcessesMark(text) {
  if (!text) return undefined;
  try {
    const m = JSON.parse(text);
    return m && typeof m.restoreBy === 'number' && typeof m.groupName === 'string' && Array.isArray(m.processes) ? m : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether processes a run suspended should be resumed now: only the run's own (a mark saying suspended), only past
 * its deadline, and only those still suspended.
 * @param {{ suspended: readonly string[] | undefined, mark: ProcessesMark | undefined, now: number }} s
 *   suspended undefined: the group does not exist
 * @returns {{ action: 'none' | 'wait' | 'restore', processes: string[], why: string }}
 */
function processesDecision({ suspended, mark, now }) {
  if (!mark || mark.state !== 'suspended') return { action: 'none', processes: [], why: 'no run mark says suspended' };
  const still = suspended ? mark.processes.filter((p) => suspended.includes(p)) : [];
  if (still.length === 0) return { action: 'none', processes: [], why: `${mark.processes.join(', ')} not suspended on ${mark.groupName}` };
  const at = (/** @type {number} */ t) => new Date(t).toISOString();
  if (now < mark.restoreBy) return { action: 'wait', processes: [], why: `run ${mark.runId} suspended ${still.join(', ')} on ${mark.groupName} and resumes it by ${at(mark.restoreBy)}` };
  return { action: 'restore', processes: still, why: `run ${mark.runId} suspended ${still.join(', ')} on ${mark.groupName} at ${at(mark.suspendedAt)} and had not resumed it by ${at(mark.restoreBy)} (its CLI was killed or lost)` };
}

module.exports = { scaleInDecision, scaleInMarkKey, parseMark, SCALE_IN_MARK_PREFIX, PROCESSES_MARK_PREFIX, processesMarkKey, parseProcessesMark, processesDecision };
