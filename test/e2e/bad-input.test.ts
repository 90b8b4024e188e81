/**
 * Bad input, table-driven: each case is refused with one clear line naming the flag or file and the
 * fix, exit code 2, nothing started, no run folder left behind.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { MEASURED } from '../../scripts/core/capacity-model';
import { ROOT, runCli, tempDir } from '../helpers/cli';

const scratch = tempDir('rig-bad-input-');
const malformed = path.join(scratch, 'malformed.yml');
fs.writeFileSync(malformed, 'config:\n  target: "http://x"\n  phases: [ { duration: 5\n');
const noScenarios = path.join(scratch, 'no-scenarios.yml');
fs.writeFileSync(noScenarios, 'config:\n  target: "http://127.0.0.1:1"\n  phases:\n    - duration: 5\n      arrivalRate: 1\n');
const occupied = path.join(scratch, 'occupied');
fs.mkdirSync(occupied);
fs.writeFileSync(path.join(occupied, 'something.txt'), 'not a run');
// A ws script whose connect step names its own URL, mistyped (port out of range): checked as --target is.
const badConnect = path.join(scratch, 'bad-connect.yml');
fs.writeFileSync(badConnect, 'config:\n  target: "ws://127.0.0.1:9/unused"\n  phases: [{ duration: 1, arrivalRate: 1 }]\nscenarios:\n  - engine: ws\n    flow:\n      - connect: "ws://127.0.0.1:99999/feed"\n      - send: hi\n');
// A Socket.IO emit in a scenario the http engine runs: every vuser would fail ("an URL must be specified").
const wrongEngine = path.join(scratch, 'wrong-engine.yml');
fs.writeFileSync(wrongEngine, 'config:\n  target: "http://127.0.0.1:9"\n  phases: [{ duration: 1, arrivalRate: 1 }]\nscenarios:\n  - name: chat\n    flow:\n      - emit: { channel: join, data: lobby }\n');
const aFile = path.join(scratch, 'a-file');
fs.writeFileSync(aFile, 'not a folder');

/** A loopback port nobody listens on (bound, then released). */
async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

interface Case {
  readonly name: string;
  readonly args: () => Promise<string[]> | string[];
  /** What the one error line must name. */
  readonly mentions: RegExp;
  /** Extra environment (e.g. what `npm run` sets). */
  readonly env?: NodeJS.ProcessEnv;
}

const cases: Case[] = [
  { name: '--vusers 0', args: () => ['--vusers', '0'], mentions: /--vusers "0".*at least 1/ },
  { name: '--vusers -5', args: () => ['--vusers=-5'], mentions: /--vusers "-5"/ },
  { name: '--vusers abc', args: () => ['--vusers', 'abc'], mentions: /--vusers "abc"/ },
  { name: '--vusers 1e12', args: () => ['--vusers', '1e12'], mentions: /--vusers "1e12"/ },
  { name: '--vusers beyond the limit', args: () => ['--vusers', '1000000000000'], mentions: /--vusers 1000000000000 is more than/ },
  { name: '--ramp soon', args: () => ['--ramp', 'soon'], mentions: /--ramp "soon" is not a duration/ },
  { name: '--hold never', args: () => ['--hold', 'never'], mentions: /--hold "never" is not a duration/ },
  { name: '--generators 0', args: () => ['--generators', '0'], mentions: /--generators "0"/ },
  { name: '--platform moon', args: () => ['--platform', 'moon'], mentions: /--platform "moon"/ },
  { name: 'unknown scenario', args: () => ['--scenario', 'warpdrive'], mentions: /--scenario "warpdrive" is not a built-in scenario/ },
  { name: 'missing scenario file', args: () => ['--scenario', path.join(scratch, 'nope.yml')], mentions: /no such file/ },
  { name: 'malformed scenario file', args: () => ['--scenario', malformed], mentions: /is not valid YAML/ },
  { name: 'scenario file without scenarios', args: () => ['--scenario', noScenarios], mentions: /has no "scenarios" list/ },
  { name: '--var without =', args: () => ['--var', 'rooms'], mentions: /--var "rooms" is not KEY=VALUE/ },
  { name: '--target not a URL', args: () => ['--target', 'not a url'], mentions: /--target "not a url" is not a URL/ },
  { name: "a ws connect step's own URL that is not one", args: () => ['--scenario', badConnect], mentions: /bad-connect(\.yml)?: the connect step's URL "ws:\/\/127\.0\.0\.1:99999\/feed" is not a URL: port 99999 is out of range/ },
  { name: '--target ftp', args: () => ['--target', 'ftp://127.0.0.1/'], mentions: /must be http/ },
  { name: '--target whose name does not resolve', args: () => ['--target', 'http://no-such-host.invalid', '--vusers', '5'], mentions: /^error: target http:\/\/no-such-host\.invalid: the name no-such-host\.invalid does not resolve \(ENOTFOUND\); check the host in the URL$/ },
  { name: '--target with no scheme', args: () => ['--target', '127.0.0.1:4101'], mentions: /has no scheme; write it as http:\/\/127\.0\.0\.1:4101/ },
  { name: '--target port out of range', args: () => ['--target', 'http://127.0.0.1:99999'], mentions: /port 99999 is out of range \(1-65535\)/ },
  { name: '--max-error-rate 200', args: () => ['--max-error-rate', '200'], mentions: /--max-error-rate "200"/ },
  { name: '--teardown on a local run', args: () => ['--platform', 'local', '--teardown'], mentions: /--teardown only applies to --platform aws/ },
  { name: '--out folder already holding files', args: () => ['--vusers', '5', '--ramp', '1s', '--hold', '1s', '--out', occupied], mentions: /--out .* already holds files/ },
  { name: 'unknown flag', args: () => ['--vusrs', '10'], mentions: /unknown option '--vusrs'/ },
  // A value flag last, its value missing (it used to end in commander's stack trace, exit 1).
  { name: '--vusers with no value', args: () => ['--out', path.join(scratch, 'run-no-value-vusers'), '--vusers'], mentions: /^error: option '--vusers <n>' argument missing$/ },
  { name: '--platform with no value', args: () => ['--vusers', '5', '--out', path.join(scratch, 'run-no-value-platform'), '--platform'], mentions: /^error: option '--platform <where>' argument missing$/ },
  // Run-folder paths that can never be a run folder (one of these used to spin a core forever).
  { name: '--out an existing file', args: () => ['--vusers', '5', '--out', aFile], mentions: /--out .*a-file is an existing file, not a folder/ },
  { name: '--out under a file', args: () => ['--vusers', '5', '--out', path.join(aFile, 'run')], mentions: /--out .*a-file\/run: .*is a file, not a folder/ },
  { name: '--out under /proc', args: () => ['--vusers', '5', '--out', `/proc/rig-run-${process.pid}/x`], mentions: /--out \/proc\/rig-run-\d+\/x is on the proc pseudo-filesystem/ },
  { name: '--out under /sys', args: () => ['--vusers', '5', '--out', `/sys/rig-run-${process.pid}`], mentions: /is on the sysfs pseudo-filesystem/ },
  { name: '--output in a missing folder', args: () => ['--vusers', '5', '--output', path.join(scratch, 'nope', 'summary.json')], mentions: /--output .*nope.* is not an existing folder/ },
  // Durations no timer can hold (Node's timers cap at ~24.8 days; a longer one fired after 1 ms).
  { name: '--hold 30d', args: () => ['--vusers', '5', '--hold', '30d'], mentions: /--hold 30d is longer than the 2147483 s .* a timer can hold/ },
  { name: '--ramp 25d', args: () => ['--vusers', '5', '--ramp', '25d'], mentions: /--ramp 25d is longer than/ },
  { name: '--plateau 30d', args: () => ['--vusers', '5', '--plateau', '30d'], mentions: /--plateau 30d is longer than/ },
  { name: '--plateau with --hold', args: () => ['--vusers', '5', '--hold', '5s', '--plateau', '5s'], mentions: /--plateau only applies with --vusers and without --hold/ },
  // An absurd local plan: refused with this machine's limit, pointing to AWS.
  // More local generators than the machine starts (each is `cores` Artillery processes of ~290 MiB, ~3.7 CPU-s to
  // start): 500 used to start 1,000 processes and stop at the ready deadline, or run the machine out of memory.
  { name: 'a step of another engine', args: () => ['--scenario', wrongEngine], mentions: /^error: wrong-engine\.yml: scenario "chat" \(engine http\) step 1 is a Socket\.IO "emit" step, which the http engine does not run: .*; use engine: socketio for that scenario$/ },
  { name: '--target-port 99999', args: () => ['--target-port', '99999'], mentions: /^error: --target-port 99999 is not a port; pass one from 1 to 65535, or leave it out for any free port$/ },
  { name: '--generators 500 locally', args: () => ['--platform', 'local', '--vusers', '500', '--generators', '500'], mentions: /^error: --generators 500 is more than the \d+ generators allowed here; (this machine's memory|start-up): each runs \d+ Artillery process(es)?\b.*; pass --generators \d+ or fewer$/ },
  { name: '--vusers 10000000 locally', args: () => ['--platform', 'local', '--vusers', '10000000'], mentions: /10,000,000 vusers at once is more than this machine holds \(~[\d,]+: .*GiB free.*\); ask for fewer or run on --platform aws/ },
  // `npm run loadtest --vusers 300` (no "--"): npm keeps the flag and hands over only "300".
  {
    name: 'flags npm took for itself',
    args: () => ['300'],
    env: { npm_lifecycle_event: 'loadtest', npm_config_vusers: 'true' },
    mentions: /npm took --vusers for itself because no "--" came before the flags; put "--" first: npm run loadtest -- --vusers/,
  },
];

describe('bad input is refused before anything starts', () => {
  let occupiedPort: net.Server;
  let port = 0;
  beforeAll(async () => {
    occupiedPort = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => occupiedPort.once('listening', r));
    port = (occupiedPort.address() as net.AddressInfo).port;
  });
  afterAll(() => occupiedPort.close());

  it.each(cases)('$name → exit 2, one clear line', async (c) => {
    const out = path.join(scratch, `run-${c.name.replace(/\W+/g, '-')}`);
    const args = await c.args();
    const withOut = args.includes('--out') ? args : [...args, '--out', out];
    const began = Date.now();
    const r = await runCli(withOut, { timeoutMs: 30_000, ...(c.env ? { env: c.env } : {}) });
    expect(r.code).toBe(2);
    // Within seconds (ts-node start-up included, on a loaded machine); a spinning case is killed at 30 s.
    expect(Date.now() - began).toBeLessThan(25_000);
    const errorLines = r.stderr.split('\n').filter((l) => /^error/.test(l));
    expect(errorLines).toHaveLength(1);
    expect(errorLines[0]).toMatch(c.mentions);
    expect(r.stdout).toBe('');
    if (!args.includes('--out')) expect(fs.existsSync(out)).toBe(false);
  });

  it('arrivals faster than this machine creates them: a warning naming the rate and the fix, before anything starts', async () => {
    const out = path.join(scratch, 'run-fast-arrivals');
    // 50/s above the capacity model's rate for this machine's cores, over 2 s; the unreachable target then stops it (exit 3).
    const rate = os.availableParallelism() * MEASURED.sharedArrivalsPerCorePerSecond + 50;
    const r = await runCli(['--vusers', String(2 * rate), '--ramp', '2s', '--target', `http://127.0.0.1:${await freePort()}`, '--out', out], { timeoutMs: 30_000 });
    expect(r.code).toBe(3);
    const warning = r.stderr.split('\n').find((l) => l.startsWith('warning: '));
    expect(warning).toMatch(new RegExp(`^warning: peak arrival rate ${rate.toLocaleString('en-US')}/s is above the ~[\\d,]+/s this machine's cores sustain .*longer --ramp$`));
    expect(r.stderr.indexOf(warning!)).toBeLessThan(r.stderr.indexOf('is unreachable'));
    expect(fs.existsSync(out)).toBe(false);
  });

  it("nothing listening at --target: the target's failure, exit 3 (as the preflight says it), nothing started", async () => {
    const out = path.join(scratch, 'run-unreachable');
    const r = await runCli(['--target', `http://127.0.0.1:${await freePort()}`, '--vusers', '5', '--out', out], { timeoutMs: 30_000 });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^target failure: target http:\/\/127\.0\.0\.1:\d+ is unreachable \(ECONNREFUSED\); start the target or fix the URL/m);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(out)).toBe(false);
  });

  it('a mistyped URL with a password: the line and --output hide it (was: echoed whole, into --output too)', async () => {
    const output = path.join(scratch, 'mistyped-url.json');
    const r = await runCli(['--target', 'http://bob:pa/ss99@127.0.0.1:4101', '--output', output], { timeoutMs: 30_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --target "http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:4101" is not a URL; /m);
    expect(JSON.parse(fs.readFileSync(output, 'utf8'))).toMatchObject({ status: 'bad-input', exitCode: 2 });
    expect([r.stdout, r.stderr, fs.readFileSync(output, 'utf8')].filter((t) => /pa\/ss99|bob/.test(t))).toEqual([]);
  });

  it("--output naming the user's own script: exit 2, the script untouched, the summary on stdout only", async () => {
    const script = path.join(scratch, 'mine.yml');
    const text = 'config:\n  target: "http://127.0.0.1:1"\n  phases:\n    - duration: 1\n      arrivalCount: 1\nscenarios:\n  - flow:\n      - get: { url: / }\n';
    fs.writeFileSync(script, text);
    const r = await runCli(['--scenario', script, '--output', path.join(scratch, '.', 'mine.yml'), '--json'], { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error: --output \S+mine\.yml is your script \(\S+mine\.yml\); the summary JSON would replace it/);
    expect(r.json).toMatchObject({ status: 'bad-input', exitCode: 2 });
    // Before the fix the summary JSON replaced the script.
    expect(fs.readFileSync(script, 'utf8')).toBe(text);
  }, 60_000);

  it('--output - : exit 2 with the flag for stdout, and no file named "-" (the summary of the refusal is not written there either)', async () => {
    const dash = path.join(ROOT, '-');
    const r = await runCli(['--vusers', '5', '--output', '-'], { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --output - would write a file named "-"; for the summary JSON on standard output pass --json/m);
    expect(fs.existsSync(dash)).toBe(false);
  }, 60_000);

  it('a local target port already in use → exit 2 naming the port, no run folder', async () => {
    const out = path.join(scratch, 'run-port-in-use');
    const r = await runCli(['--vusers', '5', '--target-port', String(port), '--out', out], { timeoutMs: 30_000 });
    expect(r.code).toBe(2);
    // The flag the rig takes, not the target app's own PORT setting.
    expect(r.stderr).toMatch(new RegExp(`^error: port ${port} on 127\\.0\\.0\\.1 is already in use; pass another --target-port \\(or none, for any free port\\) or stop the other process$`, 'm'));
    expect(fs.existsSync(out)).toBe(false);
  });
});

/** CDK context is input too: `npx cdk synth -c key=value` runs bin/app.ts with it. */
describe('bad CDK context is refused before synthesis', () => {
  const cdkCases: Array<{ name: string; context: Record<string, unknown>; mentions: RegExp }> = [
    { name: 'targetKind kubernetes', context: { targetKind: 'kubernetes' }, mentions: /"targetKind" is "kubernetes"; allowed: ec2 \| fargate \| none/ },
    { name: 'targetInstanceType m5.large', context: { targetInstanceType: 'm5.large' }, mentions: /"targetInstanceType" is "m5.large"; allowed: t2/ },
    { name: 'operatorCidr 0.0.0.0/0', context: { operatorCidr: '0.0.0.0/0' }, mentions: /"operatorCidr"/ },
    { name: 'scaleOutCpuPercent 150', context: { scaleOutCpuPercent: 150 }, mentions: /"scaleOutCpuPercent"/ },
  ];
  it.each(cdkCases)('$name → exit 2, one clear line, nothing synthesized', (c) => {
    const outdir = tempDir('rig-bad-cdk-');
    const r = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'ts-node'), ['--transpile-only', 'bin/app.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CDK_OUTDIR: outdir, CDK_CONTEXT_JSON: JSON.stringify(c.context) },
    });
    expect(r.status).toBe(2);
    const lines = r.stderr.split('\n').filter((l) => l.trim());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(c.mentions);
    expect(fs.readdirSync(outdir)).toEqual([]);
  });
});
