/**
 * Ground truth: each scenario runs through the real CLI against a reference target this test starts
 * itself (with fault injection), and the report must recover what the target says happened.
 * One file, sequential runs: the machine has 2 cores and these runs are real load.
 */
import { runCli, tempDir } from '../helpers/cli';
import { Target, getJson, startTarget } from '../target/helpers';

jest.setTimeout(240_000);

async function runAgainst(env: Record<string, string>, args: string[]): Promise<{ json: any; metrics: any; stderr: string; code: number | null }> {
  const target: Target = await startTarget({ WORKERS: '2', ...env });
  try {
    const out = tempDir('rig-scenario-');
    const res = await runCli([...args, '--generators', '2', '--target', target.base, '--out', `${out}/run`, '--json'], { timeoutMs: 90_000 });
    const metrics = (await getJson(`${target.base}/metrics`)).body;
    return { json: res.json, metrics, stderr: res.stderr, code: res.code };
  } finally {
    await target.stop();
  }
}

const counters = (r: { json: any }): Record<string, number> => r.json.aggregate.counters;

test('pubsub: delivery delay, withheld sockets and cookie 503s are recovered from the report', async () => {
  const D = 400;
  const r = await runAgainst(
    { FAULT_DELIVERY_DELAY_MS: String(D), FAULT_WITHHOLD_FRACTION: '0.25', FAULT_COOKIE_503_FRACTION: '0.1', FAULT_SEED: 'scenarios' },
    ['--scenario', 'pubsub', '--vusers', '80', '--ramp', '3s', '--hold', '5s', '--var', 'rooms=4', '--var', 'publishRate=2'],
  );
  expect(r.json).toBeDefined();
  const c = counters(r);
  expect(c['vusers.failed'] ?? 0).toBe(0);
  expect(c['cookie.ok']).toBe(80); // no vuser lost to R
  expect(c['cookie.retry']).toBe(r.metrics.cookie503); // every 503 retried and counted
  expect(r.metrics.withheldSocketsConnected).toBeGreaterThan(0);
  expect(c['pubsub.vusers_zero_messages']).toBe(r.metrics.withheldSocketsConnected);
  const p50 = r.json.aggregate.summaries['pubsub.delivery_latency'].p50;
  expect(Math.abs(p50 - D)).toBeLessThanOrEqual(D * 0.1);
  expect(c['pubsub.messages_sent']).toBeGreaterThan(0);
  // every vuser that was not withheld got (nearly) all it should have
  const notWithheld = c['ws.connected']! - r.metrics.withheldSocketsConnected;
  expect(c['pubsub.messages_received']).toBeGreaterThan(0);
  expect(c['pubsub.messages_received']! / c['pubsub.messages_expected']!).toBeGreaterThan((0.9 * notWithheld) / c['ws.connected']!);
  expect(r.json.aggregate.summaries['clock.offset_ms'].count).toBeGreaterThanOrEqual(1);
});

test('presence: announcements received equal what the target sent', async () => {
  const r = await runAgainst({}, ['--scenario', 'presence', '--vusers', '60', '--ramp', '3s', '--hold', '3s', '--var', 'linger=4']);
  const c = counters(r);
  expect(c['vusers.failed'] ?? 0).toBe(0);
  expect(r.metrics.presenceOut).toBeGreaterThan(0);
  expect(c['presence.announcements_received']).toBe(r.metrics.presenceOut);
  // The report's "expected" figure is the target's count between one vuser's baseline read and the end: joins
  // that other generators make before that first read (same start instant) are missed, never extra ones.
  expect(c['presence.target_announcements_sent']).toBeLessThanOrEqual(r.metrics.presenceOut);
  expect(c['presence.target_announcements_sent']).toBeGreaterThanOrEqual(Math.floor(r.metrics.presenceOut * 0.99));
  expect(r.json.aggregate.summaries['target.peak_send_rate_per_sec'].max).toBeGreaterThan(0);
});

test('rooms, broadcast and recovery run through the CLI and report their figures', async () => {
  const rooms = await runAgainst({}, ['--scenario', 'rooms', '--vusers', '100', '--ramp', '4s', '--var', 'messages=3', '--var', 'gap=1', '--var', 'linger=2']);
  expect(counters(rooms)['vusers.failed'] ?? 0).toBe(0);
  expect(counters(rooms)['pubsub.messages_sent']).toBe(300);
  expect(counters(rooms)['pubsub.messages_received']).toBeGreaterThan(0);
  expect(rooms.json.aggregate.summaries['pubsub.delivery_latency']).toBeDefined();

  const D = 200;
  const bc = await runAgainst({ FAULT_DELIVERY_DELAY_MS: String(D) }, ['--scenario', 'broadcast', '--vusers', '60', '--ramp', '2s', '--hold', '5s']);
  expect(counters(bc)['vusers.failed'] ?? 0).toBe(0);
  expect(counters(bc)['broadcast.messages_received']).toBeGreaterThan(60);
  // serverAt is stamped when the delayed message is actually sent: one-way latency excludes D
  expect(bc.json.aggregate.summaries['broadcast.latency'].p50).toBeLessThan(D / 2);
  expect(bc.json.aggregate.summaries['broadcast.echo_half_rtt'].count).toBeGreaterThan(0);

  const rec = await runAgainst({}, ['--scenario', 'recovery', '--vusers', '40', '--ramp', '2s', '--hold', '6s', '--var', 'dropAfter=2', '--var', 'away=1']);
  const rc = counters(rec);
  expect(rc['vusers.failed'] ?? 0).toBe(0);
  expect(rc['recovery.sessions_recovered']).toBe(40);
  expect(rc['recovery.messages_recovered']).toBeGreaterThan(0);
  // Losses are what this scenario measures; the reference target's cluster-wide recovery has been seen to lose
  // a message or two at the edge of a drop on a loaded machine (open: see the closing note), never a share.
  expect(rc['recovery.messages_lost'] ?? 0).toBeLessThanOrEqual(Math.ceil(0.05 * (rc['recovery.messages_recovered'] ?? 0)));
});
