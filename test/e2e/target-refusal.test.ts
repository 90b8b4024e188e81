/**
 * A target whose Socket.IO middleware refuses every connection (`io.use((s, next) => next(new Error('unauthorized')))`)
 * answered the vusers: the failures are the target's, not the script's. Artillery counts that refusal as
 * `errors.Error: unauthorized` (the Error of the vuser's failed connection itself, as plain `artillery run` does); the
 * verdict filed it with the script's own errors ("raised by your script's own code (processor, captures)"), which sent a
 * user asking "the target or the rig?" to the wrong place.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers/cli';
import { SocketIoServer, startSocketIoServer } from '../helpers/socketio-server';
import { LoopbackWsServer, loopbackWsServer } from '../helpers/ws-server';

describe("a target's Socket.IO middleware refusing the vusers", () => {
  let server: SocketIoServer;
  beforeAll(async () => {
    // The rig's preflight probe is admitted (a target refusing every handshake is refused before the run, exit 2);
    // every vuser after it is refused, as a token check or a connection cap would.
    server = await startSocketIoServer({ reject: 'unauthorized', admitFirst: 1 });
  });
  afterAll(() => server.close());

  test('the verdict says the figures describe the target (the refusal is its answer), exit 1 for the failed vusers', async () => {
    const dir = tempDir('rig-target-refusal-');
    const script = path.join(dir, 'refused.yml');
    fs.writeFileSync(
      script,
      `config:\n  target: ${server.base}\n  socketio: { transports: [websocket] }\n  phases: [ { duration: 1, arrivalCount: 4 } ]\nscenarios:\n  - engine: socketio\n    flow:\n      - emit: { channel: echo, data: hi }\n`,
    );
    const r = await runCli(['--scenario', script, '--out', path.join(dir, 'run'), '--json'], { timeoutMs: 90_000 });
    expect(r.code).toBe(1);
    expect(r.json.aggregate.counters).toMatchObject({ 'vusers.failed': 4, 'errors.Error: unauthorized': 4 });
    expect(r.json.rig.verdict).toBe('trustworthy');
    expect(r.json.rig.verdictDetail.summary).toBe('no generator was saturated: the figures describe the target');
    expect(r.json.rig.verdictDetail.generatorErrors).toEqual({});
  }, 100_000);
});

describe("a script's own error whose message starts with 'Error: ', in a script without a socketio scenario", () => {
  let web: http.Server;
  let base = '';
  beforeAll(async () => {
    web = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => web.close(resolve)));

  // next(new Error(String(err))) of another error: Artillery counts it by its message, `errors.Error: boom`, the words
  // Artillery's socketio engine gives a refused connection. No scenario here runs that engine: the script's.
  test('the verdict names it as raised by the script, not the target', async () => {
    const dir = tempDir('rig-wrapped-error-');
    fs.writeFileSync(path.join(dir, 'fail.js'), "module.exports = { fail(context, events, next) { next(new Error(String(new Error('boom')))); } };\n");
    const script = path.join(dir, 'wrapped.yml');
    fs.writeFileSync(script, `config:\n  target: ${base}\n  processor: ./fail.js\n  phases: [ { duration: 1, arrivalCount: 2 } ]\nscenarios:\n  - flow:\n      - function: fail\n`);
    const r = await runCli(['--scenario', script, '--out', path.join(dir, 'run'), '--json'], { timeoutMs: 90_000 });
    expect(r.code).toBe(1);
    expect(r.json.aggregate.counters).toMatchObject({ 'vusers.failed': 2, 'errors.Error: boom': 2 });
    expect(r.json.rig.verdictDetail.summary).toMatch(/2 vusers failed and all errors were raised by your script's own code .*"Error: boom" ×2/);
  }, 100_000);
});

describe('a WebSocket target that closes some connections under the scenario and leaves the others unanswered', () => {
  let server: LoopbackWsServer;
  let base = '';
  beforeAll(async () => {
    let n = 0;
    // The rig's preflight probe (its x-rig-preflight header) is admitted; of the vusers, every other connection is
    // closed at once (1011, as an overloaded server does) and the others are never answered.
    server = await loopbackWsServer((ws, req) => {
      if (req.headers['x-rig-preflight']) return;
      n += 1;
      if (n % 2 === 1) ws.close(1011, 'busy');
    });
    base = server.base;
  });
  afterAll(() => server.close());

  // ws counts a send on the closed connection as `WebSocket is not open: readyState 3 (CLOSED)` (the ws engine counts it
  // twice: the Error, then its message) and a reply that did not come within config.timeout as `response timeout`: the
  // target's doing, which the verdict once filed as "raised by your script's own code".
  test("the verdict says the figures describe the target, not that the script raised the errors", async () => {
    const dir = tempDir('rig-ws-closed-');
    const script = path.join(dir, 'closed.yml');
    fs.writeFileSync(
      script,
      `config:\n  target: ${base}\n  timeout: 1\n  phases: [ { duration: 1, arrivalCount: 4 } ]\nscenarios:\n  - engine: ws\n    flow:\n      - think: 1\n      - send: { payload: ping, match: { json: "$.ok", value: true } }\n`,
    );
    const r = await runCli(['--scenario', script, '--out', path.join(dir, 'run'), '--json'], { timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.json.aggregate.counters).toMatchObject({
      'vusers.failed': 4,
      'errors.WebSocket is not open: readyState 3 (CLOSED)': 2,
      'errors.Error: WebSocket is not open: readyState 3 (CLOSED)': 2,
    });
    // The unanswered ones' timers; the closed ones' own, 1 s after their vuser ended, only if the process still runs.
    expect(r.json.aggregate.counters['errors.response timeout']).toBeGreaterThanOrEqual(2);
    expect(r.json.rig.verdictDetail.summary).toBe('no generator was saturated: the figures describe the target');
    expect(r.json.rig.lostGenerators ?? []).toEqual([]);
  }, 70_000);
});

describe("a user's copy of a built-in scenario's script, keeping its processor (load-generators/processors)", () => {
  let server: SocketIoServer;
  // The preflight's probe admitted, every vuser's Socket.IO connection refused: connect.js fails it with WS_CONNECT_FAILED.
  beforeAll(async () => (server = await startSocketIoServer({ reject: 'unauthorized', admitFirst: 1 })));
  afterAll(() => server.close());

  // "Built in" was decided by the scenario's name: the copy's WS_CONNECT_FAILED, the rig's own code naming the target's
  // answer, was filed as "raised by your script's own code". What runs decides now: the rig's processor.
  test("the rig's codes are the target's answer, as in the built-in scenario's run", async () => {
    const dir = tempDir('rig-connect-copy-');
    const script = path.join(dir, 'my-connect.yml');
    const processor = path.resolve(__dirname, '..', '..', 'load-generators', 'processors', 'connect.js');
    fs.writeFileSync(
      script,
      `config:\n  target: ${server.base}\n  phases: [ { duration: 1, arrivalCount: 2 } ]\n  processor: ${JSON.stringify(processor)}\n  variables: { hold: 0 }\n` +
        `scenarios:\n  - name: connect\n    flow: [ { function: fetchCookie }, { function: openSocket }, { think: "{{ hold }}" }, { function: closeSocket } ]\n`,
    );
    const r = await runCli(['--scenario', script, '--out', path.join(dir, 'run'), '--json'], { timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.json.aggregate.counters).toMatchObject({ 'vusers.failed': 2, 'errors.WS_CONNECT_FAILED': 2 });
    expect(r.json.rig.verdictDetail.summary).toBe('no generator was saturated: the figures describe the target');
  }, 70_000);
});
