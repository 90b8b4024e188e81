/**
 * `{{ $testId }}` is one value per run, as in one plain `artillery run`: a script that tags its traffic with it (in a
 * URL, in `config.variables`, in a processor through `context.vars.$testId` or `global.artillery.testRunId`, in its
 * `before` section) must not see one id per load process. Each load process is its own `artillery run`, which draws
 * its own id unless ARTILLERY_TEST_RUN_ID is set: two generators tagged the target with two ids before. Now every load
 * process gets the run's id, or the user's own ARTILLERY_TEST_RUN_ID when set (as plain Artillery takes it).
 *
 * A ws scenario's `connect:` URL made from it is probed before the run where the vusers will connect: the preflight
 * said "not probed (… made per vuser)", though the id is known before the run as config.target's is.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers/cli';
import { loopbackHttpServer } from '../helpers/http-server';
import { LoopbackWsServer, loopbackWsServer } from '../helpers/ws-server';

describe('{{ $testId }}: one value per rig run, in every load process of every generator', () => {
  let server: Awaited<ReturnType<typeof loopbackHttpServer>>;
  let seen: Array<{ url: string; tag: string }> = [];
  beforeAll(async () => {
    server = await loopbackHttpServer((req, res) => {
      seen.push({ url: req.url ?? '', tag: String(req.headers['x-tag'] ?? '') });
      res.end('ok');
    });
  });
  afterAll(() => server.close());

  const script = () => {
    const dir = tempDir('rig-test-id-');
    fs.writeFileSync(
      path.join(dir, 'proc.js'),
      "module.exports = { tag(req, ctx, ee, next) { req.headers = { ...req.headers, 'x-tag': `${ctx.vars.$testId} ${global.artillery.testRunId} ${process.pid}` }; next(); } };\n",
    );
    const file = path.join(dir, 'tid.yml');
    fs.writeFileSync(
      file,
      `config:\n  target: http://127.0.0.1:${server.port}\n  processor: ./proc.js\n  phases: [{ duration: 2, arrivalRate: 4 }]\n  variables:\n    fromConfig: "{{ $testId }}"\n` +
        `before:\n  flow: [ { get: { url: "/before?t={{ $testId }}", beforeRequest: tag } } ]\n` +
        `scenarios:\n  - flow: [ { get: { url: "/v?t={{ $testId }}&c={{ fromConfig }}", beforeRequest: tag } } ]\n`,
    );
    return { dir, file };
  };

  /** Every id the target saw (URL and processor), and the load processes (pids) that sent vusers' requests. */
  const ids = () => {
    const all = new Set<string>();
    const pids = new Set<string>();
    for (const { url, tag } of seen) {
      const q = new URL(url, 'http://x').searchParams;
      for (const v of [q.get('t'), q.get('c')]) if (v !== null) all.add(v);
      const [fromVars, fromGlobal, pid] = tag.split(' ');
      all.add(fromVars as string).add(fromGlobal as string);
      if (url.startsWith('/v')) pids.add(pid as string);
    }
    return { all: [...all], pids: [...pids] };
  };

  test("two generators: every request of the run carries the run's id (there were one per load process)", async () => {
    seen = [];
    const { dir, file } = script();
    const r = await runCli(['--scenario', file, '--generators', '2', '--out', path.join(dir, 'run'), '--json'], { timeoutMs: 90_000 });
    expect(r.code).toBe(0);
    expect(seen.filter((s) => s.url.startsWith('/v'))).toHaveLength(8);
    const { all, pids } = ids();
    expect(pids.length).toBeGreaterThanOrEqual(2);
    expect(all).toEqual([r.json.runId]);
  }, 100_000);

  test("{{ $testId }} in config.target (refused before) and a function call in config: the run's one value in every load process, as plain artillery run", async () => {
    seen = [];
    const dir = tempDir('rig-test-id-target-');
    const file = path.join(dir, 'tid-target.yml');
    fs.writeFileSync(
      file,
      `config:\n  target: "http://127.0.0.1:${server.port}/t-{{ $testId }}"\n  phases: [{ duration: 2, arrivalRate: 4 }]\n  variables:\n    room: "{{ $randomString(8) }}"\n` +
        `scenarios:\n  - flow: [ { get: { url: "/v?room={{ room }}" } } ]\n`,
    );
    const r = await runCli(['--scenario', file, '--generators', '2', '--out', path.join(dir, 'run'), '--json'], { timeoutMs: 90_000, env: { ARTILLERY_TEST_RUN_ID: '' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`target: http://127.0.0.1:${server.port}/t-${r.json.runId} (config.target of tid-target.yml`);
    const urls = seen.map((s) => new URL(s.url, 'http://x'));
    expect(urls).toHaveLength(8);
    expect(new Set(urls.map((u) => u.pathname))).toEqual(new Set([`/t-${r.json.runId}/v`]));
    // Each load process is its own `artillery run`: it drew its own room before.
    expect(new Set(urls.map((u) => u.searchParams.get('room'))).size).toBe(1);
    expect(r.json.rig.generators.length).toBe(2);
  }, 100_000);

  test('ARTILLERY_TEST_RUN_ID set: that id in every load process, as plain artillery run takes it', async () => {
    seen = [];
    const { dir, file } = script();
    const r = await runCli(['--scenario', file, '--generators', '2', '--out', path.join(dir, 'run'), '--json'], { timeoutMs: 90_000, env: { ARTILLERY_TEST_RUN_ID: 'ci-build-42' } });
    expect(r.code).toBe(0);
    const { all, pids } = ids();
    expect(pids.length).toBeGreaterThanOrEqual(2);
    expect(all).toEqual(['ci-build-42']);
  }, 100_000);
});

describe('{{ $testId }} in a ws connect URL: probed before the run, where the vusers connect', () => {
  let server: LoopbackWsServer;
  const upgrades: Array<{ url: string; probe: boolean }> = [];
  beforeAll(async () => {
    server = await loopbackWsServer((ws, req) => {
      upgrades.push({ url: req.url ?? '', probe: req.headers['x-rig-preflight'] !== undefined });
      ws.on('message', (m) => ws.send(m));
    });
  });
  afterAll(() => server.close());

  test('the preflight opens /feed/<the run\'s id>, as every vuser does (was: handshake not probed)', async () => {
    const dir = tempDir('rig-test-id-ws-');
    const file = path.join(dir, 'tid-ws.yml');
    fs.writeFileSync(file, `config:\n  target: ${server.base}\n  phases: [{ duration: 1, arrivalCount: 2 }]\nscenarios:\n  - engine: ws\n    flow: [ { connect: "{{ target }}/feed/{{ $testId }}" }, { send: hi } ]\n`);
    const r = await runCli(['--scenario', file, '--out', path.join(dir, 'run'), '--json'], { timeoutMs: 90_000, env: { ARTILLERY_TEST_RUN_ID: 'ci-build-7' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/preflight from this machine: ok .*websocket handshake\)/);
    expect(r.stderr).not.toMatch(/not probed/);
    expect(upgrades).toEqual([{ url: '/feed/ci-build-7', probe: true }, { url: '/feed/ci-build-7', probe: false }, { url: '/feed/ci-build-7', probe: false }]);
  }, 100_000);
});
