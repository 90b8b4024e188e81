import { suspendScaleIn } from '../../scripts/platforms/aws/scale-in';

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
