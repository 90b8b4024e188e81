/**
 * The compatibility suite: the project's own Artillery scripts (test/compat/scripts), each run under
 * plain `artillery run` (node_modules/.bin/artillery, one worker) and under the rig (`npm run loadtest
 * -- --scenario <file>`, fanned out over load processes) against one small loopback server. Exit codes,
 * ensure results and every counter must be identical; every histogram must count the same samples, and
 * the scripts' own deterministic histograms (compat.*) must agree within DDSketch's 1% relative error.
 * Latency percentiles are not compared: two runs never see the same latencies.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers/cli';
import { PlainResult, runPlain } from './plain';
import { CompatServer, startCompatServer } from './server';

const SCRIPTS = path.join(__dirname, 'scripts');

/** Artillery's "Checks:" lines (`ok: expr`, `fail: expr (optional)`), as the rig reports thresholds. */
function plainChecks(stdout: string): Array<{ expression: string; ok: boolean; optional: boolean }> {
  const after = stdout.split('\nChecks:\n')[1] ?? '';
  return after
    .split('\n')
    .map((l) => /^(ok|fail): (.*?)( \(optional\))?$/.exec(l.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ expression: m[2] as string, ok: m[1] === 'ok', optional: Boolean(m[3]) }));
}

interface Case {
  readonly script: string;
  /** Flags for both runs (Artillery's own: -e, --target). */
  readonly args?: (server: CompatServer) => string[];
  readonly exit: number;
  /** The rig's exit code when it differs from plain's (a plugin's own code is mapped to the rig's documented ones). */
  readonly rigExit?: number;
  /** What the rig prints before the run. */
  readonly says?: RegExp[];
  /** Counters that must be there (so an empty run cannot pass). */
  readonly expect: Record<string, number>;
  /** Plain and the rig each run from their own copy of the scripts folder (Artillery writes beside the script). */
  readonly isolated?: boolean;
}

const CASES: Case[] = [
  {
    script: 'http.yml',
    exit: 1,
    says: [/target: http:\/\/127\.0\.0\.1:\d+ \(config\.target of http\.yml/, /maxVusers 50 is split 25\/25 over 2 load processes/, /payload users\.csv \(order: sequence\): 2 load processes each read the rows of their planned arrivals \(1-4, 5-8\)/],
    expect: { 'vusers.created': 8, 'compat.token_ok': 8, 'compat.before_scenario': 8, 'compat.async_step': 8, 'compat.reject_step': 8, 'vusers.failed': 2, 'errors.COMPAT_REJECTED': 2,
      // afterScenario runs only for vusers that did not fail: the two rejected ones (u4, u8) skip it.
      'compat.after_scenario': 6, 'compat.before_request': 8, 'http.codes.404': 8, 'compat.row.u1': 1, 'compat.row.u8': 1 },
  },
  {
    script: 'socketio.yml',
    args: () => ['-e', 'local'],
    exit: 0,
    says: [/target: http:\/\/127\.0\.0\.1:\d+ \(config\.environments\.local\.target of socketio\.yml/],
    // 2 + 3 + 4 over the 3-s ramp: the middle second's 3 split over two load processes as Artillery's workers split it.
    expect: { 'vusers.created': 9, 'vusers.completed': 9, 'socketio.emit': 36 },
  },
  {
    script: 'ws.yml',
    args: (s) => ['--target', `ws://127.0.0.1:${s.port}/ws`],
    exit: 1,
    says: [/target: ws:\/\/127\.0\.0\.1:\d+\/ws \(--target\)/],
    expect: { 'vusers.created': 4, 'vusers.completed': 4, 'websocket.messages_sent': 16 },
  },
  { script: 'plugin-ensure.yml', exit: 1, expect: { 'vusers.created': 6, 'http.codes.404': 6, 'http.codes.200': 12, 'plugins.metrics-by-endpoint./me.codes.200': 6 } },
  // TypeScript: plain bundles it into dist/ beside the script (the rig into each load process's spool): own copies.
  { script: 'ts.yml', exit: 0, isolated: true, expect: { 'vusers.created': 4, 'vusers.completed': 4, 'compat.ts_step': 4, 'compat.ts_beside': 12, 'compat.ts_in_dist': 4, 'http.codes.200': 4 } },
  { script: 'ensure-off.yml', exit: 0, says: [/config\.ensure is not evaluated/], expect: { 'vusers.created': 2, 'http.codes.200': 2 } },
  // A plugin's exit code (expect: 21) is the script's verdict, not a crash: plain exits 21, the rig 1 and says why.
  { script: 'expect.yml', exit: 21, rigExit: 1, says: [/a plugin asked for exit code 21 \(artillery-plugin-expect: an expectation failed: plugins\.expect\.failed = 3\) in [12] load process(es)?; plain artillery run would exit 21/], expect: { 'vusers.created': 3, 'vusers.completed': 3, 'plugins.expect.ok': 9, 'plugins.expect.failed': 3 } },
  // No phases: one vuser in both (the rig refused the script before, exit 2).
  { script: 'no-phases.yml', exit: 0, says: [/note: no-phases\.yml has no config\.phases, so it runs one vuser, as artillery run does/], expect: { 'vusers.created': 1, 'vusers.completed': 1, 'http.requests': 2 } },
  // An ES-module processor (default export object, named export, top-level await): the rig refused it before (exit 2).
  { script: 'esm.yml', exit: 0, expect: { 'vusers.created': 3, 'vusers.completed': 3, 'compat.esm_default': 3, 'compat.esm_named': 3, 'http.codes.200': 3 } },
];

describe('compatibility: the same script under plain `artillery run` and under the rig', () => {
  let server: CompatServer;
  beforeAll(async () => {
    server = await startCompatServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  test.each(CASES)('$script: same exit code, ensure results and counters', async (c) => {
    const env = { COMPAT_PORT: String(server.port), COMPAT_REGION: 'eu', COMPAT_ITEM: '42' };
    const dir = tempDir('rig-compat-');
    const extra = c.args?.(server) ?? [];
    const copy = (name: string) => {
      const to = path.join(dir, name);
      fs.cpSync(SCRIPTS, to, { recursive: true });
      return to;
    };
    const [plainDir, rigDir] = c.isolated ? [copy('plain-scripts'), copy('rig-scripts')] : [SCRIPTS, SCRIPTS];
    const [plain, rig] = await Promise.all([
      runPlain(c.script, extra, env, dir, plainDir),
      runCli(['--platform', 'local', '--generators', '1', '--scenario', path.join(rigDir, c.script), '--out', path.join(dir, 'rig'), '--json', ...extra], { env }),
    ]);
    for (const re of c.says ?? []) expect(rig.stderr).toMatch(re);
    // On a mismatch the rig's last lines say why (a lost generator, a load process that failed).
    const rigExit = c.rigExit ?? c.exit;
    const why = rig.code === rigExit ? {} : { rigStderr: rig.stderr.split('\n').slice(-25).join('\n') };
    expect({ plain: plain.code, rig: rig.code, ...why }).toEqual({ plain: c.exit, rig: rigExit });
    expect(rig.stderr).not.toMatch(/lost|rig failure/);

    const p = plain.report.aggregate;
    const r = rig.json.aggregate as PlainResult['report']['aggregate'];
    for (const [k, v] of Object.entries(c.expect)) expect([k, p.counters[k]]).toEqual([k, v]);
    expect(r.counters).toEqual(p.counters);
    // Read as an Artillery report: every key of plain's --output aggregate is there (histograms beside summaries, period…).
    for (const key of Object.keys(p)) expect([key, key in r]).toEqual([key, true]);
    expect((r as unknown as { histograms: unknown }).histograms).toEqual(r.summaries);
    expect(Object.keys(r.summaries).sort()).toEqual(Object.keys(p.summaries).sort());
    for (const [name, s] of Object.entries(p.summaries)) {
      expect([name, r.summaries[name]?.count]).toEqual([name, s.count]);
      if (!name.startsWith('compat.')) continue;
      for (const stat of ['min', 'max', 'p50', 'p95', 'p99']) {
        const want = s[stat] as number;
        expect(Math.abs((r.summaries[name]?.[stat] ?? NaN) - want)).toBeLessThanOrEqual(Math.abs(want) * 0.01 + 1e-9);
      }
    }
    const rigChecks = (rig.json.thresholds as Array<{ expression: string; ok: boolean; optional?: boolean }>).map((t) => ({ expression: t.expression, ok: t.ok, optional: Boolean(t.optional) }));
    const sortBy = (a: { expression: string }, b: { expression: string }) => a.expression.localeCompare(b.expression);
    expect(rigChecks.sort(sortBy)).toEqual(plainChecks(plain.stdout).sort(sortBy));
  }, 120_000);
});
