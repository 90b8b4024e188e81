/**
 * Whether a script's Socket.IO clients start with HTTP long-polling reads the options its engine connects with:
 * Artillery 2.0.34's one socketio engine spreads each Socket.IO scenario's own `socketio:` over `config.socketio` as it
 * compiles them, in script order, before the first vuser (engine_socketio.js createScenario, runner.js), so every
 * vuser connects with the last merge — the same options the preflight's handshake reads. Before, a scenario's own
 * `transports` were not read, then each scenario was read on its own (a warning for vusers that connect by websocket).
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

test('every vuser connects with the last merge: one scenario\'s websocket-only transports serve a scenario that names none; a later one naming polling wins; another engine\'s do not count', () => {
  const wsOnly = { engine: 'socketio', socketio: { transports: ['websocket'] }, flow: [] };
  const polling = { engine: 'socketio', socketio: { transports: ['polling', 'websocket'] }, flow: [] };
  expect(socketIoPolls(script({}, wsOnly, { engine: 'socketio', flow: [] }))).toBe(false);
  expect(socketIoPolls(script({}, { engine: 'socketio', flow: [] }, wsOnly))).toBe(false);
  expect(socketIoPolls(script({}, wsOnly, polling))).toBe(true);
  expect(socketIoPolls(script({}, polling, wsOnly))).toBe(false);
  expect(socketIoPolls(script({}, wsOnly, { engine: 'ws', socketio: { transports: ['polling'] }, flow: [] }))).toBe(false);
});

test('a Socket.IO before section connects with its own options over config.socketio', () => {
  const wsOnly = { engine: 'socketio', socketio: { transports: ['websocket'] }, flow: [] };
  expect(socketIoPolls({ ...script({}, wsOnly), before: { engine: 'socketio', flow: [] } })).toBe(true);
  expect(socketIoPolls({ ...script({}, wsOnly), before: { engine: 'socketio', socketio: { transports: ['websocket'] }, flow: [] } })).toBe(false);
});
