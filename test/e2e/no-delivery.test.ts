/**
 * Through the real CLI: a Socket.IO service that acks every subscribe and publish and delivers nothing fails a
 * built-in delivery run (exit 1, the reason saying so). Before, pubsub against it PASSED: 10 of 10 vusers got
 * zero messages, and none failed.
 *
 * So does a user's own copy of pubsub.yml that keeps the rig's processor and flow (`--scenario ./my-pubsub.yml`): the
 * check and the figure rows were chosen by the name `pubsub`, and the copy PASSED with neither.
 */
import * as fs from 'node:fs';
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

test("a user's copy of pubsub.yml running the rig's processor: the same exit 1 and the same figure rows", async () => {
  const dir = tempDir('rig-no-delivery-copy-');
  const root = path.resolve(__dirname, '..', '..');
  const text = fs.readFileSync(path.join(root, 'load-generators', 'scenarios', 'pubsub.yml'), 'utf8');
  const file = path.join(dir, 'my-pubsub.yml');
  fs.writeFileSync(file, text.replace('../processors/pubsub.js', path.join(root, 'load-generators', 'processors', 'pubsub.js')));
  const r = await runCli(['--scenario', file, '--target', server.base, '--vusers', '6', '--generators', '1', '--ramp', '1s', '--hold', '3s', '--var', 'rooms=2', '--out', path.join(dir, 'run'), '--json'], { timeoutMs: 90_000 });
  expect(r.code).toBe(1);
  expect(r.json.scenario).toBe('my-pubsub.yml');
  expect(r.json.rigScenario).toBe('pubsub');
  const c = r.json.aggregate.counters;
  expect(r.json.result.reasons).toContain(`no message was delivered: ${c['pubsub.messages_sent']} published (pubsub.messages_sent), none received by any vuser (pubsub.messages_received = 0)`);
  expect(r.json.figures.map((f: { label: string }) => f.label)).toContain('vusers with zero messages');
  expect(r.stderr).toMatch(/^\s*vusers with zero messages +6 of 6 connected/m);
});
