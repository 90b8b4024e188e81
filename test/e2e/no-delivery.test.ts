/**
 * Through the real CLI: a Socket.IO service that acks every subscribe and publish and delivers nothing fails a
 * built-in delivery run (exit 1, the reason saying so). Before, pubsub against it PASSED: 10 of 10 vusers got
 * zero messages, and none failed.
 */
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers/cli';
import { SocketIoServer, startSocketIoServer } from '../helpers/socketio-server';

jest.setTimeout(120_000);

let server: SocketIoServer;
beforeAll(async () => {
  server = await startSocketIoServer({ deliver: false });
});
afterAll(() => server.close());

test('pubsub against a service that never delivers: exit 1, "no message was delivered"', async () => {
  const out = path.join(tempDir('rig-no-delivery-'), 'run');
  const r = await runCli(['--scenario', 'pubsub', '--target', server.base, '--vusers', '6', '--generators', '1', '--ramp', '1s', '--hold', '3s', '--var', 'rooms=2', '--out', out, '--json'], { timeoutMs: 90_000 });
  expect(r.code).toBe(1);
  const c = r.json.aggregate.counters;
  expect(c['vusers.failed'] ?? 0).toBe(0);
  expect(c['pubsub.messages_sent']).toBeGreaterThan(0);
  expect(c['pubsub.vusers_zero_messages']).toBe(6);
  expect(r.json.result.reasons).toContain(`no message was delivered: ${c['pubsub.messages_sent']} published (pubsub.messages_sent), none received by any vuser (pubsub.messages_received = 0)`);
  expect(r.stderr).toMatch(/^result: FAILED \(exit 1\): .*no message was delivered/m);
});
