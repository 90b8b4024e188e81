import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { spawnSync } from 'node:child_process';
import { BOOT_MARKER, BOOT_STEP_PREFIX } from '../../lib/instance-paths';
import { SCENARIO_FOLDER_LIMITS, agentCommand, bundleFiles, instanceLayout, notShipped, parseAgentCommand, parsePreflightCommand, preflightCommand, scenarioFolderProblem, shq, uploadBundle } from '../../scripts/platforms/aws/bundle';
import { createAwsApi } from '../../scripts/platforms/aws/clients';
import { SSM_INLINE_STDERR_CHARS, failureDetail } from '../../scripts/platforms/aws/fleet-context';

const ROOT = path.resolve(__dirname, '..', '..');
const HOME = '/opt/loadtest-rig/load-generators';
const s3 = mockClient(S3Client);
beforeEach(() => s3.reset());

test('a built-in scenario runs from the agent home; a user scenario ships separately under the run', () => {
  expect(instanceLayout({ root: ROOT, scenarioDir: path.join(ROOT, 'load-generators', 'scenarios'), agentHome: HOME, runId: 'r1' })).toEqual({ scriptDir: `${HOME}/scenarios`, separateScenario: false });
  expect(instanceLayout({ root: ROOT, scenarioDir: '/home/me/my-test', agentHome: HOME, runId: 'r1' })).toEqual({ scriptDir: '/opt/loadtest-rig/runs/r1/scenario', separateScenario: true });
});

test('bundleFiles: load-generators without node_modules or logs, plus a user scenario folder', () => {
  const mine = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-scn-'));
  fs.writeFileSync(path.join(mine, 'test.yml'), 'config: {}');
  fs.mkdirSync(path.join(mine, 'node_modules', 'x'), { recursive: true });
  fs.writeFileSync(path.join(mine, 'node_modules', 'x', 'index.js'), '');
  fs.writeFileSync(path.join(mine, 'run.log'), '');
  const keys = bundleFiles({ root: ROOT, scenarioDir: mine, separateScenario: true }).map((f) => f.key);
  expect(keys).toEqual(expect.arrayContaining(['load-generators/agent.js', 'load-generators/lib/run-store.js', 'load-generators/lib/run-protocol.js', 'load-generators/plugins/artillery-plugin-rig/index.js', 'scenario/test.yml']));
  expect(keys.filter((k) => k.includes('node_modules') || k.endsWith('.log'))).toEqual([]);
});

test("a user's folder ships without hidden files and folders (.env, .ssh, .aws), cdk.out or earlier run folders", () => {
  const mine = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-scn-'));
  const put = (rel: string) => {
    fs.mkdirSync(path.dirname(path.join(mine, rel)), { recursive: true });
    fs.writeFileSync(path.join(mine, rel), 'x');
  };
  for (const rel of ['test.yml', 'data/users.csv', '.env', '.ssh/id_ed25519', '.aws/credentials', 'cdk.out/manifest.json', 'runs/r0/run.json', 'runs/r0/report.json']) put(rel);
  const keys = bundleFiles({ root: ROOT, scenarioDir: mine, separateScenario: true }).map((f) => f.key).filter((k) => k.startsWith('scenario/'));
  expect(keys).toEqual(['scenario/data/users.csv', 'scenario/test.yml']);
});

test('a scenario folder that is the home folder, the root, or holds more than the limit is refused with the way out', () => {
  const mine = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-scn-'));
  fs.writeFileSync(path.join(mine, 'test.yml'), 'config: {}');
  expect(scenarioFolderProblem(mine, '/home/nobody')).toBeUndefined();
  expect(scenarioFolderProblem(mine, mine)).toMatch(/is your home folder, and a script's whole folder ships to the AWS generators; put the script, its processor and payloads in a folder of their own/);
  expect(scenarioFolderProblem('/', '/home/nobody')).toMatch(/is the filesystem root/);
  fs.mkdirSync(path.join(mine, 'many'));
  for (let i = 0; i <= SCENARIO_FOLDER_LIMITS.files; i++) fs.writeFileSync(path.join(mine, 'many', `f${i}`), '');
  expect(scenarioFolderProblem(mine, '/home/nobody')).toMatch(/holds more than 2,000 files .*ships to every AWS generator/);
});

test("a script's folder reached through a symlink: a file inside it is inside, by real path (Node reports loads by real path)", () => {
  const real = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-real-'));
  fs.writeFileSync(path.join(real, 'proc.js'), '');
  const link = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rig-link-')), 'project');
  fs.symlinkSync(real, link);
  expect(notShipped(ROOT, link)(path.join(real, 'proc.js'))).toBeUndefined();
  expect(notShipped(ROOT, link)(path.join(link, 'proc.js'))).toBeUndefined();
  expect(notShipped(ROOT, link)(path.join(os.tmpdir(), 'elsewhere.js'))).toBe('outside');
});

test('uploadBundle puts every file under runs/<runId>/bundle/', async () => {
  s3.on(PutObjectCommand).resolves({});
  const files = bundleFiles({ root: ROOT, scenarioDir: path.join(ROOT, 'load-generators', 'scenarios'), separateScenario: false });
  expect(await uploadBundle(createAwsApi({ region: 'us-east-1' }), 'bkt', 'r1', files)).toBe(files.length);
  const inputs = s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
  expect(inputs.every((i) => i.Bucket === 'bkt' && i.Key?.startsWith('runs/r1/bundle/'))).toBe(true);
  expect(inputs.map((i) => i.Key).sort()).toEqual(files.map((f) => `runs/r1/bundle/${f.key}`).sort());
});

test('agentCommand waits for the boot, syncs the bundle, runs the agent on the S3 store, ships its log and exits with its code', () => {
  const layout = { scriptDir: '/opt/loadtest-rig/runs/r1/scenario', separateScenario: true };
  const lines = agentCommand({ bucket: 'bkt', runId: 'r1', generatorId: 'g03', agentHome: HOME, region: 'eu-west-1', layout });
  const text = lines.join('\n');
  expect(text).toMatch(/cloud-init status --wait/);
  expect(text).toContain(`aws s3 sync --only-show-errors 's3://bkt/runs/r1/bundle/load-generators/' '${HOME}/'`);
  expect(text).toContain(`aws s3 sync --only-show-errors 's3://bkt/runs/r1/bundle/scenario/' '/opt/loadtest-rig/runs/r1/scenario/'`);
  expect(text).toContain(`node '${HOME}/agent.js' --store 's3://bkt/runs/r1' --generator 'g03'`);
  expect(text).toContain(`'s3://bkt/runs/r1/generators/g03/agent.log'`);
  expect(lines[lines.length - 1]).toBe('exit $code');
  expect(parseAgentCommand(lines)).toEqual({ store: 's3://bkt/runs/r1', generator: 'g03', bundle: 's3://bkt/runs/r1/bundle/load-generators/', scenarioDir: '/opt/loadtest-rig/runs/r1/scenario' });
});

// SSM's GetCommandInvocation returns "the first 8,000 characters written by the plugin to stderr" (SSM API Reference,
// StandardErrorContent); a failed agent's line quotes the last lines of that. A stack trace through a bundled (one-line)
// processor prints that source line before the error's message: 20 lines of the log can be far over 8,000 characters.
test("a failed agent's reason survives SSM's inline stderr (its first 8,000 characters): the command writes the log's tail cut to its end", () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-ssm-stderr-'));
  const agentHome = path.join(base, 'load-generators');
  const bin = path.join(base, 'bin');
  fs.mkdirSync(agentHome, { recursive: true });
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'aws'), '#!/bin/sh\nexit 0\n', { mode: 0o755 }); // s3 sync / cp stand-in
  fs.writeFileSync(path.join(agentHome, 'agent.js'), [
    "process.stderr.write('agent g01: starting\\n');",
    "process.stderr.write('/opt/loadtest-rig/runs/r/scenario/processor.bundle.js:1\\n' + 'var a=1;'.repeat(2500) + '\\n');",
    "process.stderr.write('                    ^\\n\\nTypeError: the real reason\\n    at Object.<anonymous> (processor.bundle.js:1:9)\\n');",
    'process.exit(1);',
  ].join('\n'));
  const runId = `ssm-stderr-${process.pid}`;
  const lines = agentCommand({ bucket: 'b', runId, generatorId: 'g01', agentHome, region: 'us-east-1', layout: { scriptDir: `${agentHome}/scenarios`, separateScenario: false } });
  const res = spawnSync('bash', ['-c', lines.join('\n')], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8' });
  fs.rmSync(`/tmp/loadtest-rig-${runId}-g01.log`, { force: true });
  expect(res.status).toBe(1);
  const inline = res.stderr.slice(0, SSM_INLINE_STDERR_CHARS); // what GetCommandInvocation returns
  // The stack frame and the caret say nothing; the cut's partial first line (the source's end) is dropped.
  expect(failureDetail(inline, 3)).toBe('TypeError: the real reason');
  expect(res.stderr.length).toBeLessThan(SSM_INLINE_STDERR_CHARS);
});

describe("the stderr a command keeps of its process's log (the agent's, the probe's)", () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-stderr-tail-'));
  const agentHome = path.join(base, 'load-generators');
  const bin = path.join(base, 'bin');
  fs.mkdirSync(path.join(agentHome, 'lib'), { recursive: true });
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'aws'), '#!/bin/sh\nexit 0\n', { mode: 0o755 }); // s3 sync / cp stand-in
  const runPreflight = (stderrJs: string) => {
    fs.writeFileSync(path.join(agentHome, 'lib', 'preflight.js'), `process.stderr.write(${stderrJs});\nprocess.exit(1);\n`);
    const runId = `stderr-tail-${process.pid}`;
    const lines = preflightCommand({ bucket: 'b', runId, agentHome, region: 'us-east-1' });
    const res = spawnSync('bash', ['-c', lines.join('\n')], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    fs.rmSync(`/tmp/loadtest-rig-${runId}-preflight.log`, { force: true });
    return { status: res.status, stderr: res.stderr };
  };

  test("the preflight command's stderr is its log's end, under SSM's 8,000 inline characters (it was the probe's whole stderr)", () => {
    const res = runPreflight(`'preflight: loading\\n' + 'x'.repeat(20000) + '\\npreflight: TypeError: the real reason\\n    at probe (preflight.js:1:1)\\n'`);
    expect(res.status).toBe(1);
    const text = res.stderr.toString('utf8');
    expect(text.length).toBeLessThan(SSM_INLINE_STDERR_CHARS);
    expect(failureDetail(text.slice(0, SSM_INLINE_STDERR_CHARS), 2)).toBe('preflight: TypeError: the real reason');
  });

  test('a cut that lands inside a line (and a UTF-8 character) drops that partial line; an uncut tail keeps its first line; a lone line is kept', () => {
    // 'é' is 2 bytes: 10,002 of them and 11 more make 7,000 bytes back from the end fall on the second byte of one.
    const cut = runPreflight(`'é'.repeat(5001) + '\\nlast word\\n'`).stderr;
    expect(Buffer.from('é'.repeat(5001) + '\nlast word\n').subarray(-7000).toString('utf8').startsWith('\uFFFD')).toBe(true);
    expect(cut.toString('utf8')).toBe('last word\n');
    expect(runPreflight(`'first of few\\nlast words\\n'`).stderr.toString('utf8')).toBe('first of few\nlast words\n');
    const lone = runPreflight(`'y'.repeat(9000) + '\\n'`).stderr.toString('utf8');
    expect(lone).toBe(`${'y'.repeat(6999)}\n`);
  });
});

test("a user scenario's folder finds the agent's packages: ESM import and CJS require, without NODE_PATH (Node looks in each parent folder's node_modules; ESM never reads NODE_PATH)", () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-link-'));
  const agentHome = path.join(base, 'load-generators');
  const layout = { scriptDir: path.join(base, 'runs', 'r1', 'scenario'), separateScenario: true };
  fs.mkdirSync(path.join(agentHome, 'node_modules', 'agentpkg'), { recursive: true });
  fs.writeFileSync(path.join(agentHome, 'node_modules', 'agentpkg', 'index.js'), 'module.exports = 42;');
  fs.mkdirSync(layout.scriptDir, { recursive: true });
  fs.writeFileSync(path.join(layout.scriptDir, 'proc.mjs'), "import n from 'agentpkg';\nif (n !== 42) process.exit(1);\n");
  fs.writeFileSync(path.join(layout.scriptDir, 'proc.cjs'), "if (require('agentpkg') !== 42) process.exit(1);\n");
  const load = () => ['proc.mjs', 'proc.cjs'].map((f) => spawnSync(process.execPath, [path.join(layout.scriptDir, f)], { env: { PATH: process.env.PATH } }).status);
  expect(load()).toEqual([1, 1]);
  const link = agentCommand({ bucket: 'b', runId: 'r1', generatorId: 'g00', agentHome, region: 'us-east-1', layout }).find((l) => l.startsWith('ln -sfn'));
  expect(link).toBeDefined();
  expect(spawnSync('bash', ['-c', link!]).status).toBe(0);
  expect(load()).toEqual([0, 0]);
  // A built-in scenario runs inside the agent home, whose node_modules it already finds: no link.
  expect(agentCommand({ bucket: 'b', runId: 'r1', generatorId: 'g00', agentHome, region: 'us-east-1', layout: { scriptDir: `${agentHome}/scenarios`, separateScenario: false } }).some((l) => l.startsWith('ln '))).toBe(false);
});

test('shq quotes for the shell', () => {
  expect(shq("it's")).toBe(`'it'\\''s'`);
});

describe('the boot wait every command starts with', () => {
  // cloud-init `status --wait` exits 2 for "done, with recoverable errors/warnings" (cloud-init 23.4+): the rig's
  // own marker, written by user-data after its last step, decides whether the boot finished.
  const waitLine = (marker: string) =>
    preflightCommand({ bucket: 'b', runId: 'r', agentHome: HOME, region: 'us-east-1' })
      .find((l) => l.includes('cloud-init status --wait'))!
      .split(BOOT_MARKER).join(marker)
      .replace('/var/log/loadtest-rig-user-data.log', path.join(dir, 'user-data.log'));
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-boot-'));
    fs.writeFileSync(path.join(dir, 'cloud-init'), '#!/bin/sh\nexit 2\n', { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'user-data.log'), `${BOOT_STEP_PREFIX} install Node (checksum-verified)\ncurl: (22) 503\n`);
  });
  const run = (line: string) => spawnSync('bash', ['-c', `${line}\necho continued`], { env: { ...process.env, PATH: `${dir}:${process.env.PATH}` }, encoding: 'utf8' });

  test('a cloud-init warning exit code with the boot marker present is a finished boot', () => {
    const marker = path.join(dir, 'boot-finished');
    fs.writeFileSync(marker, 'now');
    const res = run(waitLine(marker));
    expect({ status: res.status, stdout: res.stdout.trim() }).toEqual({ status: 0, stdout: 'continued' });
  });

  test('without the marker the boot failed: exit 3, naming the last boot step', () => {
    const res = run(waitLine(path.join(dir, 'boot-finished')));
    expect(res.status).toBe(3);
    expect(res.stderr).toContain(`generator boot (user-data) failed (cloud-init status 2): ${BOOT_STEP_PREFIX} install Node (checksum-verified)`);
  });

  test('the preflight command runs the probe from the agent home against the run store', () => {
    const lines = preflightCommand({ bucket: 'bkt', runId: 'r1', agentHome: HOME, region: 'eu-west-1' });
    expect(lines.join('\n')).toContain(`node '${HOME}/lib/preflight.js' --store 's3://bkt/runs/r1'`);
    expect(parsePreflightCommand(lines)).toEqual({ store: 's3://bkt/runs/r1', bundle: 's3://bkt/runs/r1/bundle/load-generators/' });
    expect(parseAgentCommand(lines)).toBeUndefined();
  });
});
