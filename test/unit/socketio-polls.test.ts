/**
 * Whether a script's Socket.IO clients start with HTTP long-polling reads the options its engine connects with:
 * `config.socketio` with the scenario's own `socketio:` over it (Artillery's engine_socketio.js createScenario), the
 * same merge the preflight's handshake reads. Before, a scenario's own `transports` were not read.
 */
import { socketIoPolls } from '../../scripts/preflight';
import type { ArtilleryScript } from '../../scripts/scenario';

const script = (config: Record<string, unknown>, ...scenarios: object[]): ArtilleryScript => ({ config, scenarios });

test("a scenario's own socketio.transports with polling counts, over config.socketio's websocket", () => {
  expect(socketIoPolls(script({ socketio: { transports: ['websocket'] } }, { engine: 'socketio', socketio: { transports: ['polling', 'websocket'] }, flow: [] }))).toBe(true);
});

test("a scenario's own websocket-only transports count too, over config's default", () => {
  expect(socketIoPolls(script({}, { engine: 'socketio', socketio: { transports: ['websocket'] }, flow: [] }))).toBe(false);
});

test('any Socket.IO scenario that polls counts; a scenario of another engine does not', () => {
  const wsOnly = { engine: 'socketio', socketio: { transports: ['websocket'] }, flow: [] };
  expect(socketIoPolls(script({}, wsOnly, { engine: 'socketio', flow: [] }))).toBe(true);
  expect(socketIoPolls(script({}, wsOnly, { engine: 'ws', socketio: { transports: ['polling'] }, flow: [] }))).toBe(false);
});
