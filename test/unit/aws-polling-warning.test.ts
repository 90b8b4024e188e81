/**
 * A Socket.IO script that starts with HTTP long-polling is warned about on AWS too, before the run, when it runs
 * against the deployed reference target: its EC2 instances run several workers on one port, and the clients do not
 * send back the ALB's stickiness cookie, so polls of one session land on different workers.
 */
import { awsPollingWarning } from '../../scripts/cli';
import type { RunInput } from '../../scripts/run-input';

const script = (socketio?: Record<string, unknown>) => ({ config: { target: 'http://x', phases: [{ duration: 1, arrivalRate: 1 }], ...(socketio ? { socketio } : {}) }, scenarios: [{ engine: 'socketio', flow: [{ emit: { channel: 'echo', data: 'hi' } }] }] }) as unknown as RunInput['script'];
const input = (over: Partial<Pick<RunInput, 'targetSource' | 'script'>> & { builtIn?: boolean } = {}) => ({
  targetSource: over.targetSource ?? 'reference',
  scenario: { builtIn: over.builtIn ?? false } as RunInput['scenario'],
  script: over.script ?? script(),
});

test('your Socket.IO script with the default transports against the deployed reference target: one warning line naming the fix', () => {
  const line = awsPollingWarning(input());
  expect(line).toMatch(/^warning: your script's Socket\.IO clients start with HTTP long-polling .*"xhr poll error".* Set transports: \["websocket"\] under config\.socketio, and under every scenario's \(and a before\/after section's\) own socketio: that names transports$/);
  expect(line).not.toMatch(/\n/);
});

test('no warning for websocket-only clients, your own target, or the built-in scenarios', () => {
  expect(awsPollingWarning(input({ script: script({ transports: ['websocket'] }) }))).toBeUndefined();
  expect(awsPollingWarning(input({ targetSource: 'flag' }))).toBeUndefined();
  expect(awsPollingWarning(input({ targetSource: 'script' }))).toBeUndefined();
  expect(awsPollingWarning(input({ builtIn: true }))).toBeUndefined();
});
