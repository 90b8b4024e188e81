/**
 * A user's `before` or `after` section that fails (here a capture from a 404). Plain `artillery run` exits 1 in both
 * cases: before the load (nothing sent but the section's request) or after it (its summary printed). The rig called
 * both its own failure (exit 3): "generator stopped before it was ready", and "generator lost … data is partial" with
 * every figure in. Now: `script failure:` and exit 1 before; after, the full report and exit 1 naming the section.
 *
 * And a ws `before`/`after` section whose target answers a capture twice: those sections run in Artillery's main
 * thread, where the rig's callbacks-once guard was not installed, so the second answer called the step back again and
 * `Callback was already called.` ended the load process (plain `artillery run` dies of it too): the rig called that
 * the script's failure. The guard is installed there now, as in the load threads: the section goes on as the first
 * answer said.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import WebSocket from 'ws';
import { runCli, tempDir } from '../helpers/cli';
import { loopbackHttpServer } from '../helpers/http-server';
import { LoopbackWsServer, loopbackWsServer } from '../helpers/ws-server';

describe("a user's before/after section that fails", () => {
  let server: Awaited<ReturnType<typeof loopbackHttpServer>>;
  beforeAll(async () => {
    server = await loopbackHttpServer((req, res) => {
      if (req.url?.startsWith('/missing')) res.statusCode = 404;
      res.end(req.url?.startsWith('/missing') ? 'no' : '{"token":"t"}');
    });
  });
  afterAll(() => server.close());

  const script = (dir: string, section: 'before' | 'after') => {
    const file = path.join(dir, `${section}.yml`);
    fs.writeFileSync(
      file,
      `config:\n  target: http://127.0.0.1:${server.port}\n  phases: [{ duration: 2, arrivalRate: 3 }]\n${section}:\n  flow:\n    - get: { url: /missing, capture: { json: $.token, as: tok } }\nscenarios:\n  - flow: [ { get: { url: "/echo" } } ]\n`,
    );
    return file;
  };

  test('before: exit 1, one `script failure:` line naming the section, the error and the log; nothing else said failed', async () => {
    const dir = tempDir('rig-before-fails-');
    const r = await runCli(['--scenario', script(dir, 'before'), '--out', path.join(dir, 'run'), '--json'], { timeoutMs: 90_000 });
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => /^(script failure|rig failure|target failure|error)/.test(l));
    expect(lines).toEqual([expect.stringMatching(/^script failure: the script's `before` section failed on generator g01, load process p\d ended before start \(exit code 1: Error: Failed capture or match; see generators\/g01\/p\d\/artillery\.log\); the load never started \(plain artillery run stops there too, exit 1\)/)]);
    expect(r.json).toMatchObject({ status: 'script-failure', exitCode: 1 });
  }, 100_000);

  test('after: the full report, exit 1 naming the section and the error; no generator lost, the verdict not partial', async () => {
    const dir = tempDir('rig-after-fails-');
    const r = await runCli(['--scenario', script(dir, 'after'), '--out', path.join(dir, 'run'), '--json'], { timeoutMs: 90_000 });
    expect(r.code).toBe(1);
    expect(r.json.status).toBe('completed');
    expect(r.json.rig.lostGenerators).toEqual([]);
    expect(r.json.rig.verdict).not.toBe('partial');
    expect(r.json.aggregate.counters['vusers.created']).toBe(6);
    expect(r.json.aggregate.counters['vusers.completed']).toBe(6);
    expect(r.json.rig.failedAfterLoad).toEqual([{ code: 1, why: 'exit code 1: Error: Failed capture or match', processes: expect.any(Number) }]);
    expect(r.json.result.reasons).toContainEqual(expect.stringMatching(/^your script failed after its load in \d load process(es)? \(exit code 1: Error: Failed capture or match\): its `after` section or a plugin's cleanup; every figure is in; plain artillery run would exit 1$/));
    expect(fs.existsSync(path.join(dir, 'run', 'report.html'))).toBe(true);
  }, 100_000);
});

describe("a ws before/after section whose target answers a capture twice (Artillery's main thread)", () => {
  let server: LoopbackWsServer;
  let base = '';
  beforeAll(async () => {
    // Every message is answered twice, 50 ms apart: the second reaches the capture step's handler, still set while
    // the section thinks (engine_ws.js), which calls the step back once more. (`think: 0.5` would be 0.5 ms to Artillery.)
    server = await loopbackWsServer((ws) =>
      ws.on('message', () => {
        ws.send(JSON.stringify({ n: 1 }));
        setTimeout(() => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify({ n: 2 })), 50);
      }),
    );
    base = server.base;
  });
  afterAll(() => server.close());

  test('both sections go on as the first answer said: the load runs, exit 0 (was: script failure, Callback was already called)', async () => {
    const dir = tempDir('rig-sections-twice-');
    const file = path.join(dir, 'twice.yml');
    const section = '  engine: ws\n  flow:\n    - send: { payload: hello, capture: { json: $.n, as: n } }\n    - think: 1\n';
    fs.writeFileSync(
      file,
      `config:\n  target: ${base}/feed\n  phases: [{ duration: 1, arrivalCount: 2 }]\nbefore:\n${section}after:\n${section}scenarios:\n  - engine: ws\n    flow: [ { send: hi } ]\n`,
    );
    const r = await runCli(['--scenario', file, '--out', path.join(dir, 'run'), '--json'], { timeoutMs: 90_000 });
    expect(r.stderr).not.toMatch(/script failure|already called/);
    expect(r.code).toBe(0);
    expect(r.json.status).toBe('completed');
    expect(r.json.aggregate.counters['vusers.completed']).toBe(2);
    expect(r.json.rig.failedAfterLoad ?? []).toEqual([]);
  }, 100_000);
});
