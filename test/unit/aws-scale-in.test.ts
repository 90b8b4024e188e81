import { scaleInDecision, scaleInMarkKey } from '../../lib/safety-net/scale-in-decision';
import { restoreOverdueScaleIn, scaleInRestoreBy, suspendScaleIn } from '../../scripts/platforms/aws/scale-in';

/** A fake CloudWatch with one alarm; records the calls made. */
function cloudwatch(actionsEnabled: boolean | undefined) {
  const calls: string[] = [];
  const api = {
    describeAlarms: async () => ({ MetricAlarms: actionsEnabled === undefined ? [] : [{ AlarmName: 'in', ActionsEnabled: actionsEnabled }], $metadata: {} }),
    disableAlarmActions: async (names: string[]) => void calls.push(`disable ${names.join(',')}`),
    enableAlarmActions: async (names: string[]) => void calls.push(`enable ${names.join(',')}`),
  };
  return { api, calls };
}

test('disables the scale-in alarm\'s actions and restores them once, however often restore is called', async () => {
  const { api, calls } = cloudwatch(true);
  const restore = await suspendScaleIn(api, 'in', () => undefined);
  expect(calls).toEqual(['disable in']);
  await restore();
  await restore();
  expect(calls).toEqual(['disable in', 'enable in']);
});

test('an alarm the operator already disabled is left disabled after the run', async () => {
  const { api, calls } = cloudwatch(false);
  const lines: string[] = [];
  await (await suspendScaleIn(api, 'in', (l) => lines.push(l)))();
  expect(calls).toEqual([]);
  expect(lines).toEqual(['target scale-in: alarm in already has its actions disabled; left as it is']);
});

test('no target stack (no alarm name) or a missing alarm: nothing changed', async () => {
  const none = cloudwatch(true);
  await (await suspendScaleIn(none.api, undefined, () => undefined))();
  const missing = cloudwatch(undefined);
  await (await suspendScaleIn(missing.api, 'gone', () => undefined))();
  expect([...none.calls, ...missing.calls]).toEqual([]);
});

test('a failed restore says how to finish it by hand', async () => {
  const { api } = cloudwatch(true);
  api.enableAlarmActions = async () => {
    throw Object.assign(new Error('throttled'), { name: 'Throttling' });
  };
  const lines: string[] = [];
  await (await suspendScaleIn(api, 'in', (l) => lines.push(l)))();
  expect(lines[lines.length - 1]).toBe('could not restore target scale-in (Throttling: throttled); run: aws cloudwatch enable-alarm-actions --alarm-names in');
});

describe('after a killed CLI: the mark and its deadline', () => {
  const T = Date.UTC(2026, 10, 23, 12, 0, 0);
  const mark = { alarmName: 'in', runId: 'r1', suspendedAt: T, restoreBy: T + 3_600_000, state: 'suspended' as const };

  test('the decision: restore only a run\'s own suspension, and only past its deadline', () => {
    expect(scaleInDecision({ actionsEnabled: undefined, mark, now: T }).action).toBe('none');
    expect(scaleInDecision({ actionsEnabled: true, mark, now: T + 9e9 }).action).toBe('none');
    expect(scaleInDecision({ actionsEnabled: false, mark: undefined, now: T + 9e9 })).toEqual({ action: 'none', why: 'alarm actions were disabled by someone other than a run (no rig mark): left as they are' });
    expect(scaleInDecision({ actionsEnabled: false, mark: { ...mark, state: 'restored' }, now: T + 9e9 }).action).toBe('none');
    expect(scaleInDecision({ actionsEnabled: false, mark, now: T + 3_599_999 })).toEqual({ action: 'wait', why: 'run r1 suspended scale-in at 2026-11-23T12:00:00.000Z and restores it by 2026-11-23T13:00:00.000Z' });
    expect(scaleInDecision({ actionsEnabled: false, mark, now: T + 3_600_000 })).toEqual({ action: 'restore', why: 'run r1 suspended scale-in at 2026-11-23T12:00:00.000Z and had not restored it by 2026-11-23T13:00:00.000Z (its CLI was killed or lost)' });
  });

  // The fleet's span (fleet-span.ts fleetSpanMs): preflight launch 10 + probe 5 + scale-out 10 + ready 10 minutes.
  const SPAN = (10 + 5 + 10 + 10) * 60_000;

  test('the deadline: the fleet\'s span (both launch stages, the probe, the ready barrier) + the longest generator\'s phases + one session + 2-minute overrun + 30 minutes', () => {
    const plan = { generators: [{ phases: [{ duration: 60 }, { pause: 30 }] }, { phases: [{ duration: 600 }] }] } as unknown as Parameters<typeof scaleInRestoreBy>[1];
    expect(scaleInRestoreBy(T, plan, 0)).toBe(T + SPAN + (600 + 120) * 1000 + 1_800_000);
    expect(scaleInRestoreBy(T, { generators: [] }, 0, { launchMs: 60_000, probeMs: 30_000, readyMs: 10_000 })).toBe(T + 160_000 + 120_000 + 1_800_000);
    // Durations with units count as the rig reads them (they counted as 0).
    const withUnits = { generators: [{ phases: [{ duration: '10m', arrivalRate: 1 }, { pause: '30s' }] }] } as unknown as Parameters<typeof scaleInRestoreBy>[1];
    expect(scaleInRestoreBy(T, withUnits, 0)).toBe(T + SPAN + (630 + 120) * 1000 + 1_800_000);
  });

  test('--ramp 20m --hold 60m: scale-in stays suspended until the last vuser has left (launch + 1,200 s of phases + 3,600 s of session at least)', () => {
    const plan = { generators: [{ phases: [{ duration: 1200, arrivalRate: 10 }] }] } as unknown as Parameters<typeof scaleInRestoreBy>[1];
    expect(scaleInRestoreBy(T, plan, 3600)).toBeGreaterThanOrEqual(T + (600 + 4800) * 1000);
    expect(scaleInRestoreBy(T, plan, 3600)).toBe(T + SPAN + (1200 + 3600 + 120) * 1000 + 1_800_000);
  });

  /** A fake CloudWatch whose alarm state follows the calls, and a mark store in memory; one ordered log of both. */
  function world(enabled: boolean) {
    const log: string[] = [];
    const state = { enabled };
    const data = new Map<string, string>();
    const api = {
      describeAlarms: async () => ({ MetricAlarms: [{ AlarmName: 'in', ActionsEnabled: state.enabled }], $metadata: {} }),
      disableAlarmActions: async () => void (log.push('disable'), (state.enabled = false)),
      enableAlarmActions: async () => void (log.push('enable'), (state.enabled = true)),
    };
    const marks = {
      get: async (k: string) => data.get(k),
      put: async (k: string, body: string | Buffer) => void (log.push(`mark ${JSON.parse(String(body)).state} ${JSON.parse(String(body)).runId}`), data.set(k, String(body))),
    };
    return { api, marks, log, state, data };
  }

  test('an alarm whose actions are on (or that is gone) is not looked up in the results bucket: after a partial teardown the bucket may be gone', async () => {
    const w = world(true);
    const marks = { get: async () => { throw new Error('NoSuchBucket'); }, put: w.marks.put };
    await expect(restoreOverdueScaleIn(w.api, 'in', marks, T, () => undefined)).resolves.toBe('scale-in is active (alarm actions enabled)');
    const gone = { ...w.api, describeAlarms: async () => ({ MetricAlarms: [], $metadata: {} }) };
    await expect(restoreOverdueScaleIn(gone, 'in', marks, T, () => undefined)).resolves.toBe('the alarm does not exist');
  });

  test('a run marks before it disables and marks restored after it enables', async () => {
    const w = world(true);
    const restore = await suspendScaleIn(w.api, 'in', () => undefined, { marks: w.marks, runId: 'r1', now: () => T, restoreBy: T + 60_000 });
    await restore();
    expect(w.log).toEqual(['mark suspended r1', 'disable', 'enable', 'mark restored r1']);
    expect(JSON.parse(w.data.get(scaleInMarkKey('in')) as string)).toEqual({ alarmName: 'in', runId: 'r1', suspendedAt: T, restoreBy: T + 60_000, state: 'restored' });
  });

  test('killed mid-run: before the deadline the next run and leftovers leave it; past it, leftovers restores it, or the next run takes it over', async () => {
    const w = world(true);
    await suspendScaleIn(w.api, 'in', () => undefined, { marks: w.marks, runId: 'r1', now: () => T, restoreBy: T + 60_000 }); // never restored: SIGKILL
    expect(w.state.enabled).toBe(false);
    const lines: string[] = [];
    // Another run while r1 may still be running: left to r1.
    await (await suspendScaleIn(w.api, 'in', (l) => lines.push(l), { marks: w.marks, runId: 'r2', now: () => T + 30_000, restoreBy: T + 90_000 }))();
    expect(lines).toEqual(['target scale-in: alarm in is suspended by another run (run r1 suspended scale-in at 2026-11-23T12:00:00.000Z and restores it by 2026-11-23T12:01:00.000Z); left to that run']);
    expect(await restoreOverdueScaleIn(w.api, 'in', w.marks, T + 59_999, (l) => lines.push(l))).toMatch(/^run r1 suspended scale-in at .* and restores it by/);
    expect(w.state.enabled).toBe(false);
    // Past the deadline, `npm run leftovers` (or the safety net) restores it.
    await restoreOverdueScaleIn(w.api, 'in', w.marks, T + 60_000, (l) => lines.push(l));
    expect(w.state.enabled).toBe(true);
    expect(lines[lines.length - 1]).toBe('target scale-in restored (alarm in: actions enabled): run r1 suspended scale-in at 2026-11-23T12:00:00.000Z and had not restored it by 2026-11-23T12:01:00.000Z (its CLI was killed or lost)');

    // Killed again; this time the next run comes first and takes the suspension over, restoring it at its end.
    const v = world(true);
    await suspendScaleIn(v.api, 'in', () => undefined, { marks: v.marks, runId: 'r1', now: () => T, restoreBy: T + 60_000 });
    const took: string[] = [];
    const restore = await suspendScaleIn(v.api, 'in', (l) => took.push(l), { marks: v.marks, runId: 'r3', now: () => T + 120_000, restoreBy: T + 180_000 });
    expect(took[0]).toBe('target scale-in: run r1 suspended scale-in at 2026-11-23T12:00:00.000Z and had not restored it by 2026-11-23T12:01:00.000Z (its CLI was killed or lost); this run takes it over and restores it at its end');
    await restore();
    expect(v.log).toEqual(['mark suspended r1', 'disable', 'mark suspended r3', 'enable', 'mark restored r3']);
  });
});
