import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { agentCommand, bundleFiles, instanceLayout, parseAgentCommand, shq, uploadBundle } from '../../scripts/platforms/aws/bundle';
import { createAwsApi } from '../../scripts/platforms/aws/clients';

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
  expect(keys).toEqual(expect.arrayContaining(['load-generators/agent.js', 'load-generators/lib/run-store.js', 'load-generators/plugins/artillery-plugin-rig/index.js', 'scenario/test.yml']));
  expect(keys.filter((k) => k.includes('node_modules') || k.endsWith('.log'))).toEqual([]);
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

test('shq quotes for the shell', () => {
  expect(shq("it's")).toBe(`'it'\\''s'`);
});
