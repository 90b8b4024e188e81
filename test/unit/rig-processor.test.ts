/**
 * Whose `WS_CONNECT_FAILED`, `COOKIE_HTTP_503`, … a run's errors are is decided by what runs: the rig's own processors
 * (load-generators/processors) name the target's answer with them, so a copy of a built-in scenario's script that keeps
 * its processor gets the built-in's reading, and a script of the user's own does not, whatever either is called. It was
 * decided by the scenario's name.
 *
 * So are a built-in scenario's figure rows and delivery checks (`no message was delivered`, exit 1): a user's copy of
 * pubsub.yml that keeps its processor and flow got neither, as they were chosen by the name `pubsub`; a script that
 * borrows only some of the processor's functions (a publisher with no receiver) must not be told nothing arrived.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scriptErrors } from '../../scripts/core/verdict';
import { validateFlags } from '../../scripts/options';
import { rigProcessorName, rigScenarioOf } from '../../scripts/rig-processor';
import { decideResult } from '../../scripts/report/result';
import { scenarioFigures } from '../../scripts/report/scenario-figures';
import { prepareRunInput } from '../../scripts/run-input';
import { preflightSpec } from '../../scripts/preflight';

const root = path.resolve(__dirname, '..', '..');
const processors = path.join(root, 'load-generators', 'processors');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-processor-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const script = (name: string, processor: string, folder = dir) => {
  const file = path.join(folder, name);
  fs.writeFileSync(file, `config:\n  target: http://127.0.0.1:9\n  processor: ${JSON.stringify(processor)}\n  phases: [{ duration: 1, arrivalCount: 1 }]\nscenarios:\n  - name: connect\n    flow: [ { function: openSocket } ]\n`);
  return file;
};

/** A user's copy of a built-in scenario's script, in a folder of its own, naming the rig's processor by its path. */
const copyOf = (name: string, edit = (text: string) => text) => {
  const own = fs.mkdtempSync(path.join(dir, `${name}-`));
  const text = fs.readFileSync(path.join(root, 'load-generators', 'scenarios', `${name}.yml`), 'utf8').replace('../processors/', `${processors}/`);
  const file = path.join(own, `my-${name}.yml`);
  fs.writeFileSync(file, edit(text));
  return file;
};

describe('rigProcessorName: the rig\'s own processor, by what Artillery loads', () => {
  test('a built-in scenario\'s processor, as its script names it', () => {
    expect(rigProcessorName('../processors/connect.js', path.join(root, 'load-generators', 'scenarios'), root)).toBe('connect');
  });

  test('a user\'s script naming the rig\'s processor (as Artillery resolves it: no extension too), or a copy of it', () => {
    expect(rigProcessorName(path.join(processors, 'connect.js'), dir, root)).toBe('connect');
    expect(rigProcessorName(path.relative(dir, path.join(processors, 'pubsub')), dir, root)).toBe('pubsub');
    const copies = path.join(dir, 'copied');
    fs.cpSync(processors, copies, { recursive: true });
    expect(rigProcessorName('./copied/rooms.js', dir, root)).toBe('rooms');
  });

  test('a processor of the user\'s own (an edited copy too), none, or a missing file: not the rig\'s', () => {
    fs.writeFileSync(path.join(dir, 'connect.js'), `${fs.readFileSync(path.join(processors, 'connect.js'), 'utf8')}\n// edited\n`);
    expect(rigProcessorName('./connect.js', dir, root)).toBeUndefined();
    expect(rigProcessorName(undefined, dir, root)).toBeUndefined();
    expect(rigProcessorName('./nowhere.js', dir, root)).toBeUndefined();
  });
});

describe("the run's error origins (prepareRunInput): decided by the processor, not the name", () => {
  test("--scenario connect, and a user's copy keeping its processor: the rig's codes are the target's answer", () => {
    expect(prepareRunInput(validateFlags({ scenario: 'connect' }), root, {}).errorOrigins.builtInScenario).toBe(true);
    const copy = prepareRunInput(validateFlags({ scenario: script('my-connect.yml', path.join(processors, 'connect.js')) }), root, {});
    expect(copy.errorOrigins.builtInScenario).toBe(true);
    expect(scriptErrors({ 'errors.WS_CONNECT_FAILED': 3 }, copy.errorOrigins)).toEqual({});
  });

  test("a script called connect.yml with a processor of its own: its WS_CONNECT_FAILED is its own code's", () => {
    const own = path.join(dir, 'own');
    fs.mkdirSync(own);
    fs.writeFileSync(path.join(own, 'proc.js'), "module.exports = { openSocket(c, e, next) { next(Object.assign(new Error('no'), { code: 'WS_CONNECT_FAILED' })); } };\n");
    const input = prepareRunInput(validateFlags({ scenario: script('connect.yml', './proc.js', own) }), root, {});
    expect(input.errorOrigins.builtInScenario).toBe(false);
    expect(scriptErrors({ 'errors.WS_CONNECT_FAILED': 3 }, input.errorOrigins)).toEqual({ WS_CONNECT_FAILED: 3 });
  });
});

describe("a built-in scenario's figures and delivery checks: decided by the processor and the functions the flows call", () => {
  const flow = (fns: string[]) => ({ config: {}, scenarios: [{ flow: fns.map((f) => ({ function: f })) }] });
  const PUBSUB = ['syncClock', 'pubsubPublisher', 'fetchCookie', 'openSocket', 'pubsubSubscribe', 'pubsubReport', 'closeSocket'];

  test('every built-in scenario measures as itself, read from its own script (not its name)', () => {
    for (const name of ['connect', 'pubsub', 'presence', 'broadcast', 'rooms', 'recovery']) {
      expect(prepareRunInput(validateFlags({ scenario: name }), root, {}).rigScenario).toBe(name);
    }
  });

  test("the sender and the receiver both called (in loops and hooks too), on the scenario's own processor", () => {
    expect(rigScenarioOf(flow(PUBSUB), 'pubsub')).toBe('pubsub');
    expect(rigScenarioOf({ config: {}, scenarios: [{ beforeScenario: 'pubsubPublisher', flow: [{ function: 'openSocket' }, { loop: [{ function: 'pubsubSubscribe' }, { function: 'pubsubReport' }], count: 1 }] }] }, 'pubsub')).toBe('pubsub');
    // Split over two scenarios Artillery picks: the publisher's messages reach the other's subscribers.
    expect(rigScenarioOf({ config: {}, scenarios: [{ flow: [{ function: 'pubsubPublisher' }] }, { flow: [{ function: 'openSocket' }, { function: 'pubsubSubscribe' }, { function: 'pubsubReport' }] }] }, 'pubsub')).toBe('pubsub');
  });

  test('borrowed functions only: the connect flow, or a publisher with no receiver, is not told nothing arrived', () => {
    expect(rigScenarioOf(flow(['fetchCookie', 'openSocket', 'closeSocket']), 'pubsub')).toBe('connect');
    expect(rigScenarioOf(flow(['fetchCookie', 'openSocket', 'pubsubPublisher', 'closeSocket']), 'pubsub')).toBe('connect');
    // The receiver in a scenario Artillery never picks (weight 0), or only in `before`: its counters reach no report.
    expect(rigScenarioOf({ config: {}, scenarios: [{ flow: [{ function: 'pubsubPublisher' }, { function: 'openSocket' }] }, { weight: 0, flow: [{ function: 'pubsubSubscribe' }, { function: 'pubsubReport' }] }] }, 'pubsub')).toBe('connect');
    expect(rigScenarioOf({ config: {}, before: { flow: [{ function: 'pubsubSubscribe' }] }, scenarios: [{ flow: [{ function: 'pubsubPublisher' }] }] }, 'pubsub')).toBeUndefined();
    // Another scenario's functions are not on this processor: a rooms flow named on pubsub.js is not rooms.
    expect(rigScenarioOf(flow(['openSocket', 'roomsJoin', 'roomsPublish', 'roomsReport']), 'pubsub')).toBe('connect');
    expect(rigScenarioOf(flow(PUBSUB), undefined)).toBeUndefined();
  });

  const nothingDelivered = { 'vusers.created': 6, 'vusers.failed': 0, 'pubsub.messages_sent': 40, 'ws.connected': 6, 'pubsub.vusers_zero_messages': 6 };
  const resultOf = (rigScenario: string | undefined) => decideResult({ status: 'completed', failedRatio: 0, thresholds: [], aggregate: { counters: nothingDelivered, rates: {}, summaries: {} }, rig: { lostGenerators: [] }, ...(rigScenario ? { rigScenario } : {}) }, 0);

  test("a user's copy of pubsub.yml keeping the rig's processor: its figure rows and the delivery check (was: PASSED, no rows)", () => {
    const input = prepareRunInput(validateFlags({ scenario: copyOf('pubsub'), target: 'http://127.0.0.1:9' }), root, {});
    expect(input.scenario.builtIn).toBe(false);
    expect(input.rigScenario).toBe('pubsub');
    expect(resultOf(input.rigScenario)).toMatchObject({ exitCode: 1, reasons: ['no message was delivered: 40 published (pubsub.messages_sent), none received by any vuser (pubsub.messages_received = 0)'] });
    expect(scenarioFigures(input.rigScenario, { counters: nothingDelivered, summaries: {} }, []).map((f) => f.label)).toContain('vusers with zero messages');
  });

  test('a copy whose flow drops the subscription, or a script named pubsub.yml with a processor of its own: neither', () => {
    const noSubscribe = prepareRunInput(validateFlags({ scenario: copyOf('pubsub', (t) => t.replace('      - function: pubsubSubscribe\n', '')), target: 'http://127.0.0.1:9' }), root, {});
    expect(noSubscribe.rigScenario).toBe('connect');
    expect(resultOf(noSubscribe.rigScenario).exitCode).toBe(0);
    expect(scenarioFigures(noSubscribe.rigScenario, { counters: nothingDelivered, summaries: {} }, [])).toEqual([]);
    const own = path.join(dir, 'named');
    fs.mkdirSync(own);
    fs.writeFileSync(path.join(own, 'proc.js'), 'module.exports = { openSocket(c, e, next) { next(); } };\n');
    const named = prepareRunInput(validateFlags({ scenario: script('pubsub.yml', './proc.js', own) }), root, {});
    expect(named.rigScenario).toBeUndefined();
    expect(resultOf(named.rigScenario).exitCode).toBe(0);
  });
});

describe("the preflight and -k follow the functions that run, not their names (was: by the scenario's name)", () => {
  test("a user's own openSocket and fetchCookie are not probed as the rig's: plain artillery runs them (was: exit 2, 'nothing answers at /socket.io/')", () => {
    const own = path.join(dir, 'own-fns');
    fs.mkdirSync(own);
    fs.writeFileSync(path.join(own, 'proc.js'), 'module.exports = { fetchCookie(c, e, next) { next(); }, openSocket(c, e, next) { next(); } };\n');
    const file = path.join(own, 'own.yml');
    fs.writeFileSync(file, 'config:\n  target: http://127.0.0.1:9\n  processor: ./proc.js\n  phases: [{ duration: 1, arrivalCount: 1 }]\nscenarios:\n  - flow: [ { function: fetchCookie }, { function: openSocket } ]\n');
    const input = prepareRunInput(validateFlags({ scenario: file }), root, {});
    expect(input.rigConnect).toBe(false);
    expect(preflightSpec(input.script, 'http://127.0.0.1:9', input.rigConnect)).toEqual({ target: 'http://127.0.0.1:9', timeoutMs: 5000, httpStatusAdvisory: true });
  });

  test("a copy of pubsub.yml keeping the rig's processor, at a target with a path: probed where openSocket connects, its cookie request judged (was: namespace /base, exit 2)", () => {
    const input = prepareRunInput(validateFlags({ scenario: copyOf('pubsub'), target: 'http://127.0.0.1:9/base' }), root, {});
    expect(input.rigConnect).toBe(true);
    expect(preflightSpec(input.script, 'http://127.0.0.1:9/base', input.rigConnect)).toMatchObject({ http: { method: 'GET', path: '/set-cookie' }, realtime: 'socketio', realtimePath: '/base/socket.io', realtimeAtOrigin: true });
    expect(preflightSpec(input.script, 'http://127.0.0.1:9/base', input.rigConnect).httpStatusAdvisory).toBeUndefined();
  });

  test("-k on a copy keeping the rig's processor is refused as on the built-in (its functions check the certificate: every vuser failed COOKIE_FAILED)", () => {
    expect(() => prepareRunInput(validateFlags({ scenario: copyOf('pubsub'), target: 'https://127.0.0.1:9', insecure: true }), root, {})).toThrow(/-k\/--insecure sets .*config\.tls\.rejectUnauthorized: false, but its flows connect through the rig's own processor functions \(fetchCookie, openSocket\)/);
  });
});
