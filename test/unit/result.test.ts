/** The run's result: one decision for the exit code, the banner, the JSON and the terminal's last line. */
import { decideResult, resultLine } from '../../scripts/report/result';
import type { ResultInput } from '../../scripts/report/result';

const base = (over: Partial<ResultInput> = {}): ResultInput => ({
  status: 'completed',
  failedRatio: 0,
  thresholds: [],
  aggregate: { counters: { 'vusers.created': 300, 'vusers.failed': 0 }, rates: {}, summaries: {} },
  rig: { lostGenerators: [] },
  ...over,
});

describe('decideResult', () => {
  test('a clean run passes with exit 0 and says what held', () => {
    const r = decideResult(base({ thresholds: [{ expression: 'vusers.failed == 0', ok: true }] }), 0);
    expect(r).toEqual({ passed: true, exitCode: 0, reasons: ['0 of 300 vusers failed (0%) ≤ --max-error-rate 0%', 'threshold `vusers.failed == 0` held'] });
  });

  test('failed vusers beyond --max-error-rate and a breached threshold: exit 1, both reasons with their values', () => {
    const p99 = { min: 1, max: 400, count: 10, mean: 50, p50: 40, median: 40, p75: 60, p90: 100, p95: 200, p99: 312, p999: 400 };
    const r = decideResult(
      base({
        failedRatio: 1 / 300,
        aggregate: { counters: { 'vusers.created': 300, 'vusers.failed': 1 }, rates: {}, summaries: { 'ws.connect_time': p99 } },
        thresholds: [{ expression: 'ws.connect_time.p99 < 200', ok: false }],
      }),
      0,
    );
    expect(r.passed).toBe(false);
    expect(r.exitCode).toBe(1);
    expect(r.reasons).toEqual(['1 of 300 vusers failed (0.33%) > --max-error-rate 0%', 'threshold `ws.connect_time.p99 < 200` breached: ws.connect_time.p99 = 312']);
    expect(resultLine(r)).toBe('FAILED (exit 1): 1 of 300 vusers failed (0.33%) > --max-error-rate 0%; threshold `ws.connect_time.p99 < 200` breached: ws.connect_time.p99 = 312');
  });

  test('within --max-error-rate passes', () => {
    expect(decideResult(base({ failedRatio: 1 / 300 }), 0.01).exitCode).toBe(0);
  });

  test('a threshold that cannot be evaluated fails with its error', () => {
    const r = decideResult(base({ thresholds: [{ expression: 'x <', ok: false, error: 'cannot evaluate: parse error' }] }), 0);
    expect(r.reasons).toEqual(['threshold `x <` could not be evaluated: cannot evaluate: parse error']);
  });

  test('precedence: interrupted 130 over a lost generator 3 over thresholds 1; every cause listed', () => {
    const lost = { rig: { lostGenerators: [{ id: 'g02', reason: 'agent exited with code 137' }] } };
    expect(decideResult(base({ status: 'partial', ...lost, failedRatio: 0.5 }), 0)).toMatchObject({
      exitCode: 3,
      reasons: ['generator g02 lost (agent exited with code 137): its figures stop there', expect.stringMatching(/vusers failed/)],
    });
    expect(decideResult(base({ status: 'interrupted', failedRatio: 0.5 }), 0).exitCode).toBe(130);
    expect(decideResult(base({ status: 'timed-out' }), 0)).toMatchObject({ passed: false, exitCode: 3 });
    expect(decideResult(base({ status: 'timed-out' }), 0).reasons.join('\n')).toMatch(/did not end in its expected time .*a step function that never calls its callback, a loop without an end: plain `artillery run` never ends either\)/);
  });
});

describe('a plugin that asked Artillery for an exit code', () => {
  it("fails the run with exit 1, naming the code, the plugin and its counter, as plain artillery run's exit", () => {
    const r = decideResult(
      { status: 'completed', failedRatio: 0, thresholds: [], aggregate: { counters: { 'vusers.created': 3, 'plugins.expect.failed': 3 }, rates: {}, summaries: {} }, rig: { lostGenerators: [], askedExitCodes: [{ code: 21, processes: 2 }] } },
      0,
    );
    expect(r).toEqual({
      passed: false,
      exitCode: 1,
      reasons: ['a plugin asked for exit code 21 (artillery-plugin-expect: an expectation failed: plugins.expect.failed = 3) in 2 load processes; plain artillery run would exit 21'],
    });
    const other = decideResult({ status: 'completed', failedRatio: 0, thresholds: [], aggregate: { counters: {}, rates: {}, summaries: {} }, rig: { lostGenerators: [], askedExitCodes: [{ code: 7, processes: 1 }] } }, 0);
    expect(other.reasons).toEqual(['a plugin asked for exit code 7 in 1 load process; plain artillery run would exit 7']);
  });

  it('with an ensure check failed as well, says plain exits 1 then (its ensure overrides the plugin\'s code)', () => {
    const r = decideResult(
      { status: 'completed', failedRatio: 0, thresholds: [{ expression: 'p99 < 1', ok: false }], aggregate: { counters: { 'vusers.created': 3 }, rates: {}, summaries: {} }, rig: { lostGenerators: [], askedExitCodes: [{ code: 21, processes: 1 }] } },
      0,
    );
    expect(r.reasons[0]).toMatch(/; plain artillery run would exit 21 \(1 if a failed check here is the script's own ensure\)$/);
  });
});

describe('a built-in delivery scenario that delivered nothing, or whose publishes were refused (probe: all PASSED)', () => {
  // The built-in scenario whose measurements the run made (RunSummary.rigScenario: a built-in, or a user's copy of it).
  const run = (rigScenario: string | undefined, counters: Record<string, number>) =>
    decideResult(base({ ...(rigScenario ? { rigScenario } : {}), aggregate: { counters: { 'vusers.created': 10, 'vusers.failed': 0, ...counters }, rates: {}, summaries: {} } }), 0);

  test.each([
    ['pubsub', { 'pubsub.messages_sent': 430 }, 'no message was delivered: 430 published (pubsub.messages_sent), none received by any vuser (pubsub.messages_received = 0)'],
    ['recovery', { 'pubsub.messages_sent': 430, 'recovery.messages_lost': 400 }, 'no message was delivered: 430 published (pubsub.messages_sent), none received by any vuser (pubsub.messages_received = 0)'],
    ['rooms', { 'pubsub.messages_sent': 100 }, 'no message was delivered: 100 published (pubsub.messages_sent), none received by any vuser (pubsub.messages_received = 0)'],
    ['broadcast', { 'broadcast.messages_sent': 12 }, 'no broadcast was delivered: 12 published (broadcast.messages_sent), none received by any vuser (broadcast.messages_received = 0)'],
    ['presence', { 'presence.joins': 20, 'presence.target_announcements_sent': 95 }, 'no announcement was delivered: the target sent 95 (presence.target_announcements_sent), no vuser received one (presence.announcements_received = 0)'],
  ])('%s: exit 1, the reason says it plainly', (scenario, counters, reason) => {
    const r = run(scenario, counters);
    expect(r.exitCode).toBe(1);
    expect(r.reasons).toEqual([reason]);
  });

  test("publishes the target refused (broadcast's payload over its 1 MiB: 413) fail the run, naming the answer", () => {
    const r = run('broadcast', { 'publish.failed': 6, 'publish.failed_reason.http_413': 6 });
    expect(r.exitCode).toBe(1);
    expect(r.reasons[0]).toBe("the publisher's POST /publish failed 6 times (publish.failed_reason.http_413 = 6): those messages were never published, so the delivery figures miss them");
  });

  test('presence without the target\'s own count is said, not failed; delivered runs and user scripts are not judged', () => {
    const presence = run('presence', { 'presence.joins': 20 });
    expect(presence.exitCode).toBe(0);
    expect(presence.reasons[1]).toMatch(/^no presence announcement was received \(presence.joins = 20/);
    expect(run('pubsub', { 'pubsub.messages_sent': 430, 'pubsub.messages_received': 1 }).exitCode).toBe(0);
    expect(run(undefined, { 'pubsub.messages_sent': 430 }).exitCode).toBe(0);
  });
});
