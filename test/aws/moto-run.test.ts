/**
 * End to end on emulated AWS: stand-in stacks in moto (CloudFormation outputs, the generator group
 * with tagged instances, the target group, scaling alarms, the results bucket, CloudWatch metrics),
 * the real CLI with `--platform aws`, and the test as the SSM agent running each dispatched agent on
 * this machine. The final report comes from the S3 objects the agents wrote. The agent home holds the os-packages.txt
 * a generator's boot writes (the real load-generators/record-os-packages.sh, over an `rpm` stand-in), so the agents
 * run as on an instance and their record reaches ready.json, report.json and report.html.
 */
import type { TargetHandle } from '../../scripts/contracts';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AutoScalingClient, CreateAutoScalingGroupCommand, CreateLaunchConfigurationCommand, DescribeAutoScalingGroupsCommand, DetachInstancesCommand, SetDesiredCapacityCommand } from '@aws-sdk/client-auto-scaling';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, DescribeAlarmsCommand, ListMetricsCommand, PutMetricAlarmCommand, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetCommandInvocationCommand, ListCommandsCommand, SSMClient } from '@aws-sdk/client-ssm';
import { startLocalTarget } from '../../scripts/platforms/local/target';
import { awsGenerator } from '../../scripts/core/capacity-model';
import { runCli, startCli, tempDir } from '../helpers/cli';
import { until } from '../helpers/wait';
import { scaleInMarkKey } from '../../lib/safety-net/scale-in-decision';
import { FakeSsmAgent, Moto, ROOT, clientConfig, freePort, startMoto } from './moto';
import { WidgetImageEndpoint, pngSize, startWidgetImageEndpoint } from './widget-image-endpoint';

jest.setTimeout(170_000);

const GEN_ASG = 'LoadTestRig-Generators-GroupA1B2';
const TARGET_ASG = 'LoadTestRig-Target-GroupC3D4';
const BUCKET = 'loadtestrig-results-e2e';
const LB = 'app/LoadTestRig-Alb/0123456789abcdef';
const SCALE_OUT = 'LoadTestRig-Target-ScaleOut';
const SCALE_IN = 'LoadTestRig-Target-ScaleIn';

let moto: Moto;
/** CloudWatch for the CLI: GetMetricWidgetImage answered on loopback (moto has none), every other call moto's. */
let widgets: WidgetImageEndpoint;
let target: TargetHandle;
let work: string;
let agentHome: string;

function stackTemplate(resource: Record<string, unknown>, outputs: Record<string, string>): string {
  return JSON.stringify({
    Resources: resource,
    Outputs: Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, { Value: v }])),
  });
}

async function createStandIns(): Promise<void> {
  const cfg = clientConfig(moto);
  const asg = new AutoScalingClient(cfg);
  await asg.send(new CreateLaunchConfigurationCommand({ LaunchConfigurationName: 'rig-generator', ImageId: 'ami-12c6146b', InstanceType: 'c5.large' }));
  for (const [name, desired, role] of [[GEN_ASG, 0, 'generator'], [TARGET_ASG, 1, 'target']] as const) {
    await asg.send(
      new CreateAutoScalingGroupCommand({
        AutoScalingGroupName: name,
        LaunchConfigurationName: 'rig-generator',
        MinSize: 0,
        MaxSize: 4,
        DesiredCapacity: desired,
        AvailabilityZones: ['us-east-1a'],
        Tags: [{ Key: 'loadtest-rig:role', Value: role, PropagateAtLaunch: true, ResourceId: name, ResourceType: 'auto-scaling-group' }],
      }),
    );
  }
  const cfn = new CloudFormationClient(cfg);
  await cfn.send(
    new CreateStackCommand({
      StackName: 'LoadTestRig-Generators',
      TemplateBody: stackTemplate(
        { Results: { Type: 'AWS::S3::Bucket', Properties: { BucketName: BUCKET } } },
        {
          GeneratorAsgName: GEN_ASG,
          GeneratorAgentHome: agentHome,
          ResultsBucketName: BUCKET,
          DashboardName: 'LoadTestRig',
          DashboardUrl: 'https://us-east-1.console.aws.amazon.com/cloudwatch/home?region=us-east-1#dashboards:name=LoadTestRig',
          Region: 'us-east-1',
          MaxGenerators: '4',
          GeneratorInstanceType: 'c5.large',
          GeneratorSecondaryIps: '1',
          RigMetricsNamespace: 'LoadTestRig',
          SafetyNetFunctionName: 'LoadTestRig-SafetyNet',
        },
      ),
    }),
  );
  await cfn.send(
    new CreateStackCommand({
      StackName: 'LoadTestRig-Target',
      TemplateBody: stackTemplate(
        { Placeholder: { Type: 'AWS::S3::Bucket', Properties: { BucketName: 'loadtestrig-target-placeholder' } } },
        // TargetUrl is overridden by --target (the local reference target): traffic stays on loopback.
        { TargetUrl: 'http://loadtestrig-alb.invalid', LoadBalancerFullName: LB, ScaleOutAlarmName: SCALE_OUT, ScaleInAlarmName: SCALE_IN, TargetAsgName: TARGET_ASG },
      ),
    }),
  );
  const cw = new CloudWatchClient(cfg);
  for (const [AlarmName, op] of [[SCALE_OUT, 'GreaterThanOrEqualToThreshold'], [SCALE_IN, 'LessThanOrEqualToThreshold']] as const) {
    await cw.send(
      new PutMetricAlarmCommand({
        AlarmName,
        Namespace: 'AWS/EC2',
        MetricName: 'CPUUtilization',
        Dimensions: [{ Name: 'AutoScalingGroupName', Value: TARGET_ASG }],
        Statistic: 'Average',
        Period: 60,
        EvaluationPeriods: 1,
        Threshold: op.startsWith('Greater') ? 70 : 30,
        ComparisonOperator: op,
      }),
    );
  }
}

/** Metrics the real services would have published during the run. */
async function putRunMetrics(at: Date): Promise<void> {
  const cw = new CloudWatchClient(clientConfig(moto));
  const put = (Namespace: string, MetricName: string, dims: Record<string, string>, Value: number) =>
    cw.send(new PutMetricDataCommand({ Namespace, MetricData: [{ MetricName, Dimensions: Object.entries(dims).map(([Name, V]) => ({ Name, Value: V })), Timestamp: at, Value }] }));
  await put('AWS/EC2', 'CPUUtilization', { AutoScalingGroupName: TARGET_ASG }, 42);
  await put('AWS/AutoScaling', 'GroupInServiceInstances', { AutoScalingGroupName: TARGET_ASG }, 1);
  await put('AWS/ApplicationELB', 'ActiveConnectionCount', { LoadBalancer: LB }, 40);
  await put('AWS/ApplicationELB', 'NewConnectionCount', { LoadBalancer: LB }, 40);
  await put('AWS/ApplicationELB', 'TargetResponseTime', { LoadBalancer: LB }, 0.004);
  await put('AWS/EC2', 'CPUUtilization', { AutoScalingGroupName: GEN_ASG }, 17);
  await put('CWAgent', 'mem_used_percent', { AutoScalingGroupName: GEN_ASG }, 23);
  await put('CWAgent', 'open_files', { AutoScalingGroupName: GEN_ASG }, 1200);
}

/**
 * Generator CPU every 2 s while a run goes on, as EC2 detailed monitoring would publish it: the CLI waits for the
 * run window's last minute to have datapoints before it collects. Returns the stop.
 */
function feedGeneratorCpu(): () => void {
  const cw = new CloudWatchClient(clientConfig(moto));
  const put = () =>
    cw.send(new PutMetricDataCommand({ Namespace: 'AWS/EC2', MetricData: [{ MetricName: 'CPUUtilization', Dimensions: [{ Name: 'AutoScalingGroupName', Value: GEN_ASG }], Timestamp: new Date(), Value: 17 }] })).catch(() => undefined);
  void put();
  const timer = setInterval(() => void put(), 2000);
  return () => clearInterval(timer);
}

/** The builds the stand-in `rpm` reports, as rpm's `%{NAME} %{VERSION}-%{RELEASE}.%{ARCH}` would on AL2023. */
const OS_PACKAGES = { 'amazon-cloudwatch-agent': '1.300057.1-1.amzn2023.x86_64', ethtool: '6.15-1.amzn2023.0.1.x86_64' };

/** What install-generator.sh does after its `dnf install`: record-os-packages.sh into the agent home. */
function recordOsPackages(): void {
  const bin = path.join(work, 'rpm-bin');
  fs.mkdirSync(bin, { recursive: true });
  const cases = Object.entries(OS_PACKAGES).map(([name, v]) => `    ${name}) echo "${name} ${v}" ;;`).join('\n');
  fs.writeFileSync(path.join(bin, 'rpm'), `#!/usr/bin/env bash\nshift 3\nfor p in "$@"; do\n  case "$p" in\n${cases}\n    *) echo "package $p is not installed" ;;\n  esac\ndone\n`, { mode: 0o755 });
  execFileSync('bash', [path.join(ROOT, 'load-generators', 'record-os-packages.sh'), agentHome, ...Object.keys(OS_PACKAGES)], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
}

async function getText(s3: S3Client, key: string): Promise<string> {
  const obj = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return (obj.Body as { transformToString(): Promise<string> }).transformToString();
}

beforeAll(async () => {
  work = tempDir('rig-aws-e2e-');
  agentHome = path.join(work, 'opt', 'loadtest-rig', 'load-generators');
  fs.mkdirSync(agentHome, { recursive: true });
  recordOsPackages();
  moto = await startMoto();
  widgets = await startWidgetImageEndpoint(moto.endpoint);
  target = await startLocalTarget({ appDir: path.join(ROOT, 'target-stack', 'app'), port: 0, workers: 1 });
  await createStandIns();
}, 60_000);

afterAll(async () => {
  await widgets?.stop();
  await target?.stop();
  await moto?.stop();
});

test('--platform aws: scales the group, dispatches agents through SSM, merges their S3 data, collects CloudWatch, scales to 0', async () => {
  const ssmAgent = new FakeSsmAgent(moto, agentHome, work);
  let metricsPut = false;
  const cwClient = new CloudWatchClient(clientConfig(moto));
  const scaleInEnabled = async () => (await cwClient.send(new DescribeAlarmsCommand({ AlarmNames: [SCALE_IN] }))).MetricAlarms?.[0]?.ActionsEnabled;
  let scaleInDuringRun: boolean | undefined;
  ssmAgent.start(() => {
    if (metricsPut) return;
    metricsPut = true;
    void putRunMetrics(new Date()).catch(() => undefined);
    void scaleInEnabled().then((v) => (scaleInDuringRun = v));
  });
  const out = path.join(work, 'run');
  const stopFeeding = feedGeneratorCpu();
  let res;
  try {
    res = await runCli(['--platform', 'aws', '--vusers', '40', '--ramp', '4s', '--hold', '1s', '--generators', '2', '--json', '--target', target.url, '--out', out], {
      env: { ...moto.env, AWS_PROFILE: '', AWS_ENDPOINT_URL_CLOUDWATCH: widgets.url },
      timeoutMs: 150_000,
    });
  } finally {
    stopFeeding();
    await ssmAgent.stop();
  }
  const diag = `exit ${res.code}\n${res.stderr}\nagent logs: ${fs.readdirSync(work).filter((f) => f.endsWith('.log')).map((f) => `${f}: ${fs.readFileSync(path.join(work, f), 'utf8').slice(-1500)}`).join('\n')}`;
  expect({ code: res.code, diag }).toEqual({ code: 0, diag });
  expect(res.stderr).toMatch(/platform: aws \(--platform aws via CloudFormation in us-east-1\)/);
  // The planner's per-generator capacity comes from the capacity model for the stack's instance type; the
  // target (loopback here) is private, so the secondary IP counts.
  // The instance figures come from EC2 DescribeInstanceTypes (moto serves EC2's own catalogue), the same as the
  // fixed table's for c5.large; each load process gets its share of the memory as its heap limit.
  const modelled = awsGenerator('c5.large', 1);
  expect(res.stderr).toContain(`generators: c5.large (EC2 DescribeInstanceTypes), 2 load processes (heap 1,792 MiB each), 1 secondary IP in use (private target): ${modelled.capacity.vusers.toLocaleString('en-US')} vusers each (memory binds)`);
  expect(modelled.heapLimitMiB).toBe(1792);
  expect(res.stderr).toMatch(/dashboard: https:\/\/us-east-1\.console\.aws\.amazon\.com\/cloudwatch/);

  // Preflight: one instance first, the probe from it (DNS, TCP, the scenario's first HTTP step, the Socket.IO
  // handshake), and only then the rest of the fleet.
  expect(ssmAgent.preflights).toHaveLength(1);
  expect(res.stderr).toMatch(/preflight from generator i-[0-9a-f]+: ok in \d+ ms \(dns 127\.0\.0\.1 → 127\.0\.0\.1; tcp 127\.0\.0\.1:\d+; http GET \/set-cookie 200; socketio handshake\)/);
  const one = res.stderr.indexOf('desired capacity 1 (preflight before scaling out)');
  expect(one).toBeGreaterThan(-1);
  expect(res.stderr.indexOf('desired capacity 2')).toBeGreaterThan(res.stderr.indexOf('preflight from generator'));
  expect(res.stderr.indexOf('preflight from generator')).toBeGreaterThan(one);

  // Two SSM commands, one per generator instance, each running the agent on the S3 run store.
  expect(ssmAgent.agents.map((a) => a.generator).sort()).toEqual(['g01', 'g02']);
  expect(ssmAgent.agents.every((a) => a.exit === 0)).toBe(true);
  const ssm = new SSMClient(clientConfig(moto));
  const cmds = (await ssm.send(new ListCommandsCommand({}))).Commands ?? [];
  expect(cmds.every((c) => c.DocumentName === 'AWS-RunShellScript')).toBe(true);
  const agentCmds = cmds.filter((c) => (c.Parameters?.commands ?? []).some((l) => l.includes('/agent.js')));
  expect(agentCmds).toHaveLength(2);
  for (const c of agentCmds) expect(c.Parameters?.commands).toContain('export NODE_OPTIONS=--max-old-space-size=1792');

  // The summary and report come from what the agents wrote to S3.
  const summary = res.json;
  expect(summary.platform).toBe('aws');
  expect(summary.target).toBe(target.url);
  expect(summary.aggregate.counters['vusers.created']).toBe(40);
  expect(summary.aggregate.counters['vusers.failed'] ?? 0).toBe(0);
  expect(summary.rig.generators.map((g: { id: string }) => g.id)).toEqual(['g01', 'g02']);
  const s3 = new S3Client(clientConfig(moto));
  const keys = ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `runs/${summary.runId}/` }))).Contents ?? []).map((o) => o.Key as string);
  for (const g of ['g01', 'g02']) {
    expect(keys).toContain(`runs/${summary.runId}/generators/${g}/done.json`);
    expect(keys.some((k) => k.startsWith(`runs/${summary.runId}/generators/${g}/p0/periods/`))).toBe(true);
  }
  expect(keys).toContain(`runs/${summary.runId}/bundle/load-generators/agent.js`);
  // Each generator ran on its own instance of the group (moto's ListCommands misreports InstanceIds, so
  // read the fleet's record and check SSM has an invocation of that command on that instance).
  const placed = await Promise.all(['g01', 'g02'].map(async (g) => JSON.parse(await getText(s3, `runs/${summary.runId}/generators/${g}/instance.json`)) as { instanceId: string; commandId: string }));
  expect(new Set(placed.map((p) => p.instanceId)).size).toBe(2);
  for (const p of placed) {
    expect(p.instanceId).toMatch(/^i-/);
    const inv = await ssm.send(new GetCommandInvocationCommand({ CommandId: p.commandId, InstanceId: p.instanceId }));
    expect(inv.DocumentName).toBe('AWS-RunShellScript');
  }
  // The boot's os-packages.txt in the agent home: each agent's ready.json carries it, and so does the summary.
  expect(fs.readFileSync(path.join(agentHome, 'os-packages.txt'), 'utf8')).toBe(Object.entries(OS_PACKAGES).map(([n, v]) => `${n} ${v}\n`).join(''));
  for (const g of ['g01', 'g02']) expect(JSON.parse(await getText(s3, `runs/${summary.runId}/generators/${g}/ready.json`)).osPackages).toEqual(OS_PACKAGES);
  expect(summary.rig.generators.map((g: { osPackages?: unknown }) => g.osPackages)).toEqual([OS_PACKAGES, OS_PACKAGES]);
  const created = ['g01', 'g02'].map((g) => summary.rig.generators.find((x: { id: string }) => x.id === g).counters['vusers.created']);
  expect(created[0] + created[1]).toBe(40);

  // report.json in the run folder: synced from S3, with the CloudWatch section.
  const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
  expect(report.aggregate.counters['vusers.created']).toBe(40);
  expect(fs.existsSync(path.join(out, 'generators', 'g01', 'done.json'))).toBe(true);
  expect(fs.existsSync(path.join(out, 'bundle'))).toBe(false);
  const series = Object.fromEntries(report.cloudwatch.series.map((s: { id: string; values: number[] }) => [s.id, s.values]));
  expect(series.target_cpu_avg).toContain(42);
  expect(series.alb_active).toContain(40);
  expect(series.gen_mem_max).toContain(23);
  expect(series.gen_open_files_max).toContain(1200);
  expect(report.cloudwatch.alarms.map((a: { name: string }) => a.name)).toEqual(expect.arrayContaining([SCALE_OUT, SCALE_IN]));
  // The dashboard's graphs for the run window: PNGs in the run folder (the size each widget asked for), listed
  // in report.json and shown in report.html, so --teardown does not take them away. The rest of CloudWatch
  // (metric data, alarms, alarm history) went to moto through the same endpoint.
  expect(widgets.widgets.length).toBeGreaterThan(0);
  expect(report.cloudwatch.images).toHaveLength(widgets.widgets.length);
  const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
  expect(report.rig.generators.map((g: { osPackages?: unknown }) => g.osPackages)).toEqual([OS_PACKAGES, OS_PACKAGES]);
  expect(html).toContain(`<td class="name">amazon-cloudwatch-agent</td><td class="name">${OS_PACKAGES['amazon-cloudwatch-agent']}</td><td class="name">g01, g02</td>`);
  for (const [k, img] of (report.cloudwatch.images as Array<{ title: string; file: string }>).entries()) {
    const png = fs.readFileSync(path.join(out, img.file));
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(pngSize(png)).toEqual({ width: widgets.widgets[k]?.width, height: widgets.widgets[k]?.height });
    expect(img.title).toBe(widgets.widgets[k]?.title);
    expect(html).toContain(`<img src="${img.file}" alt="${img.title}"`);
  }
  // The graphs cover the run window (whole minutes around it).
  for (const w of widgets.widgets) {
    expect(Date.parse(String(w.start))).toBeLessThanOrEqual(summary.startedAt);
    expect(Date.parse(String(w.end))).toBeGreaterThan(summary.startedAt);
  }
  expect(widgets.passed).toEqual(expect.arrayContaining(['GetMetricData', 'DescribeAlarms']));
  expect(res.stderr).toContain(`cloudwatch: ${widgets.widgets.length} graph${widgets.widgets.length === 1 ? '' : 's'} saved in ${path.join(out, 'cloudwatch')}`);
  // Collected only once the window's last minute had datapoints (the feed above keeps them coming).
  expect(res.stderr).not.toMatch(/still has no datapoints/);

  // The rig's own metrics went to the dashboard's namespace.
  const cw = new CloudWatchClient(clientConfig(moto));
  const rigMetrics = (await cw.send(new ListMetricsCommand({ Namespace: 'LoadTestRig' }))).Metrics ?? [];
  expect(rigMetrics.map((m) => m.MetricName)).toEqual(expect.arrayContaining(['vusers.created', 'vusers.active', 'vusers.failed']));

  // Target scale-in was suspended while the agents ran (the scale-in alarm's actions off) and restored after;
  // the scale-out alarm was never touched.
  expect(scaleInDuringRun).toBe(false);
  expect(await scaleInEnabled()).toBe(true);
  expect((await cwClient.send(new DescribeAlarmsCommand({ AlarmNames: [SCALE_OUT] }))).MetricAlarms?.[0]?.ActionsEnabled).toBe(true);
  expect(res.stderr).toContain(`target scale-in suspended for the run (alarm ${SCALE_IN}: actions disabled; scale-out unchanged)`);
  expect(res.stderr).toContain(`target scale-in restored (alarm ${SCALE_IN}: actions enabled)`);

  // Generators scaled back to 0 after the run.
  const asg = new AutoScalingClient(clientConfig(moto));
  const group = (await asg.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [GEN_ASG] }))).AutoScalingGroups?.[0];
  expect(group?.DesiredCapacity).toBe(0);
});

test('a failing preflight stops the run before scale-out: one line naming the step and cause, exit 3, the group back to 0, no agent started', async () => {
  const ssmAgent = new FakeSsmAgent(moto, agentHome, work);
  ssmAgent.start();
  // A loopback port nothing listens on: the probe's TCP connect is refused.
  const closed = await freePort();
  let res;
  try {
    res = await runCli(['--platform', 'aws', '--vusers', '40', '--ramp', '4s', '--hold', '1s', '--generators', '2', '--target', `http://127.0.0.1:${closed}`, '--out', path.join(work, 'run-preflight')], {
      env: { ...moto.env, AWS_PROFILE: '' },
      timeoutMs: 120_000,
    });
  } finally {
    await ssmAgent.stop();
  }
  expect({ code: res.code, stderr: res.stderr }).toEqual({
    code: 3,
    stderr: expect.stringMatching(new RegExp(`target failure: preflight from generator i-[0-9a-f]+ failed at tcp: TCP connect to 127\\.0\\.0\\.1:${closed} refused: nothing listens there`)),
  });
  expect(res.stderr.split('\n').filter((l) => /^(error|rig failure|target failure):/.test(l))).toHaveLength(1);
  expect(res.stderr).not.toMatch(/desired capacity 2/);
  expect(ssmAgent.preflights).toHaveLength(1);
  expect(ssmAgent.agents).toHaveLength(0);
  // Target scale-in, suspended as the launch began, is restored on the way out.
  expect(res.stderr).toContain(`target scale-in restored (alarm ${SCALE_IN}: actions enabled)`);
  const alarm = (await new CloudWatchClient(clientConfig(moto)).send(new DescribeAlarmsCommand({ AlarmNames: [SCALE_IN] }))).MetricAlarms?.[0];
  expect(alarm?.ActionsEnabled).toBe(true);
  const asg = new AutoScalingClient(clientConfig(moto));
  const group = (await asg.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [GEN_ASG] }))).AutoScalingGroups?.[0];
  expect(group?.DesiredCapacity).toBe(0);
});

test("--platform aws with a plugin found only here (the user's ARTILLERY_PLUGIN_PATH): exit 2 before anything starts, naming it", async () => {
  const dir = tempDir('rig-aws-plugin-');
  fs.mkdirSync(path.join(dir, 'plugins', 'artillery-plugin-mine'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'plugins', 'artillery-plugin-mine', 'index.js'), 'module.exports = { Plugin: function () {} };');
  const script = path.join(dir, 'mine.yml');
  fs.writeFileSync(script, `config:\n  target: ${target.url}\n  plugins:\n    mine: {}\n  phases:\n    - { duration: 1, arrivalCount: 2 }\nscenarios:\n  - flow:\n      - get: { url: / }\n`);
  const res = await runCli(['--platform', 'aws', '--scenario', script, '--out', path.join(dir, 'run')], { env: { ...moto.env, AWS_PROFILE: '', ARTILLERY_PLUGIN_PATH: path.join(dir, 'plugins') }, timeoutMs: 60_000 });
  expect(res.code).toBe(2);
  expect(res.stderr).toMatch(/error: config\.plugins\.mine \(artillery-plugin-mine\): installed here but not on the AWS generators, .*run this script with --platform local/);
  expect(res.stderr).not.toMatch(/desired capacity|preflight from generator/);
  expect(fs.existsSync(path.join(dir, 'run'))).toBe(false);
});

test('--platform aws with a playwright script: exit 2 before anything starts (the generators install no browser), naming --platform local', async () => {
  const dir = tempDir('rig-aws-browser-');
  fs.writeFileSync(path.join(dir, 'pw.js'), "module.exports = { visit: async (page) => { await page.goto('/'); } };\n");
  const script = path.join(dir, 'pw.yml');
  fs.writeFileSync(script, `config:\n  target: ${target.url}\n  processor: ./pw.js\n  engines:\n    playwright: {}\n  phases:\n    - { duration: 1, arrivalCount: 2 }\nscenarios:\n  - name: shop\n    engine: playwright\n    testFunction: visit\n`);
  const res = await runCli(['--platform', 'aws', '--scenario', script, '--out', path.join(dir, 'run')], { env: { ...moto.env, AWS_PROFILE: '' }, timeoutMs: 60_000 });
  expect(res.code).toBe(2);
  expect(res.stderr).toMatch(/error: scenario "shop" uses the playwright engine, but the AWS generators install Artillery without a browser .*run this script with --platform local/);
  expect(res.stderr).not.toMatch(/desired capacity|preflight from generator/);
  expect(fs.existsSync(path.join(dir, 'run'))).toBe(false);
});

test('--platform aws with a processor loading a package only installed here and a payload outside its folder: exit 2 before anything starts, naming both', async () => {
  const dir = tempDir('rig-aws-ship-');
  const project = path.join(dir, 'project');
  fs.mkdirSync(path.join(project, 'node_modules', 'leftpad'), { recursive: true });
  fs.writeFileSync(path.join(project, 'node_modules', 'leftpad', 'index.js'), 'module.exports = (s) => s;');
  fs.writeFileSync(path.join(project, 'proc.js'), "const pad = require('leftpad');\nmodule.exports = { f(c, e, d) { pad('x'); d(); } };\n");
  fs.writeFileSync(path.join(dir, 'users.csv'), 'name\na\n');
  const script = path.join(project, 'ship.yml');
  fs.writeFileSync(script, `config:\n  target: ${target.url}\n  processor: ./proc.js\n  payload: { path: ../users.csv, fields: [name] }\n  phases:\n    - { duration: 1, arrivalCount: 2 }\nscenarios:\n  - flow:\n      - function: f\n`);
  const res = await runCli(['--platform', 'aws', '--scenario', script, '--out', path.join(dir, 'run')], { env: { ...moto.env, AWS_PROFILE: '' }, timeoutMs: 60_000 });
  expect(res.code).toBe(2);
  expect(res.stderr).toMatch(/error: config\.payload\.path \.\.\/users\.csv is outside the script's folder .*; .*proc\.js loads the package leftpad, installed here but not on the AWS generators .*run with --platform local/);
  expect(res.stderr).not.toMatch(/desired capacity|preflight from generator/);
  expect(fs.existsSync(path.join(dir, 'run'))).toBe(false);
  // A script in the home folder: the whole folder would ship (and its hidden files are never copied).
  const home = await runCli(['--platform', 'aws', '--scenario', script, '--out', path.join(dir, 'run')], { env: { ...moto.env, AWS_PROFILE: '', HOME: project }, timeoutMs: 60_000 });
  expect(home.code).toBe(2);
  expect(home.stderr).toMatch(/error: --scenario: .*project is your home folder, and a script's whole folder ships to the AWS generators/);
  // A template reading this machine's environment: empty on every generator.
  const envScript = path.join(dir, 'env', 'env.yml');
  fs.mkdirSync(path.dirname(envScript));
  fs.writeFileSync(envScript, `config:\n  target: ${target.url}\n  phases:\n    - { duration: 1, arrivalCount: 2 }\nscenarios:\n  - flow:\n      - get: { url: /, headers: { x-key: "{{ $env.API_KEY }}" } }\n`);
  const env = await runCli(['--platform', 'aws', '--scenario', envScript, '--out', path.join(dir, 'run')], { env: { ...moto.env, AWS_PROFILE: '', API_KEY: 'here-only' }, timeoutMs: 60_000 });
  expect(env.code).toBe(2);
  expect(env.stderr).toMatch(/error: env\.yml reads \{\{ \$env\.API_KEY \}\}, which the AWS generators do not have/);
});

test('--platform aws where the stacks are not deployed: one line saying to deploy, exit 2, nothing started', async () => {
  const res = await runCli(['--platform', 'aws', '--vusers', '10', '--target', target.url], { env: { ...moto.env, AWS_REGION: 'us-west-2', AWS_DEFAULT_REGION: 'us-west-2', AWS_PROFILE: '' }, timeoutMs: 60_000 });
  expect(res.code).toBe(2);
  expect(res.stderr).toMatch(/error: --platform aws: the rig stacks \(LoadTestRig-Generators\) are not deployed in region us-west-2; run `npm run deploy` first/);
});

test('a generator whose instance disappears mid-run: the run finishes on the other, the report is partial, exit 3', async () => {
  const asg = new AutoScalingClient(clientConfig(moto));
  const s3 = new S3Client(clientConfig(moto));
  const ssmAgent = new FakeSsmAgent(moto, agentHome, work);
  let terminated = '';
  ssmAgent.start((agent) => {
    if (agent.generator !== 'g02') return;
    void (async () => {
      // Once g02's load has started (its first load thread's started marker in the run store), its instance goes away
      // (spot reclaim, someone terminates it…): mid-ramp, with most of its share still to come.
      const prefix = agent.store.replace(`s3://${BUCKET}/`, '');
      const started = async () => ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${prefix}/generators/g02/p0/started-` }))).Contents ?? []).length > 0;
      await until(started, { timeoutMs: 60_000, what: "g02's load to start", pollMs: 250 });
      const { instanceId } = JSON.parse(await getText(s3, `${prefix}/generators/g02/instance.json`)) as { instanceId: string };
      agent.child.kill('SIGKILL');
      // (moto answers TerminateInstanceInAutoScalingGroup with a 500; detaching removes it from the group the same way.)
      await asg.send(new DetachInstancesCommand({ AutoScalingGroupName: GEN_ASG, InstanceIds: [instanceId], ShouldDecrementDesiredCapacity: true }));
      terminated = instanceId;
    })().catch((err: Error) => (terminated = `failed: ${err.message}`));
  });
  const out = path.join(work, 'run-partial');
  const stopFeeding = feedGeneratorCpu();
  let res;
  try {
    // g02's loss is seen ~10 s after it goes (the fleet's poll of the group): a 1-s hold has g01 done by then too.
    res = await runCli(['--platform', 'aws', '--vusers', '20', '--ramp', '4s', '--hold', '1s', '--generators', '2', '--json', '--target', target.url, '--out', out], {
      env: { ...moto.env, AWS_PROFILE: '' },
      timeoutMs: 120_000,
    });
  } finally {
    stopFeeding();
    await ssmAgent.stop();
  }
  expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 3, stderr: expect.stringMatching(/generator g02 \(i-[0-9a-f]+\): instance left the generator group/) });
  expect(terminated).toMatch(/^i-/);
  expect(res.json.status).toBe('partial');
  const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
  expect(report.status).toBe('partial');
  expect(JSON.stringify(report)).toMatch(/g02/);
  // The AWS fleet says how the generator was lost, not only a bare exit code.
  expect(res.stderr).toMatch(/generator g02 lost \(agent exit 3, instance left the generator group/);
  // g01 finished its whole share.
  const g01 = report.rig.generators.find((g: { id: string }) => g.id === 'g01');
  expect({ created: g01.counters['vusers.created'], stderr: res.stderr }).toEqual({ created: 10, stderr: res.stderr });
});

test('a CLI killed mid-run (SIGKILL) leaves scale-in suspended with its mark; past the deadline `npm run leftovers` restores it', async () => {
  const cfg = clientConfig(moto);
  const cw = new CloudWatchClient(cfg);
  const s3 = new S3Client(cfg);
  const scaleInEnabled = async () => (await cw.send(new DescribeAlarmsCommand({ AlarmNames: [SCALE_IN] }))).MetricAlarms?.[0]?.ActionsEnabled;
  const ssmAgent = new FakeSsmAgent(moto, agentHome, work);
  ssmAgent.start();
  const env = { ...moto.env, AWS_PROFILE: '' };
  const cli = startCli(['--platform', 'aws', '--vusers', '10', '--ramp', '4s', '--hold', '60s', '--generators', '1', '--target', target.url, '--out', path.join(work, 'run-killed')], { env });
  try {
    await cli.waitFor(/all generators ready; shared start/, 120_000);
    process.kill(-cli.pid, 'SIGKILL'); // the closed laptop: no finally, no restore
    await cli.exited;
  } finally {
    await ssmAgent.stop();
    await new AutoScalingClient(cfg).send(new SetDesiredCapacityCommand({ AutoScalingGroupName: GEN_ASG, DesiredCapacity: 0 }));
  }
  expect(await scaleInEnabled()).toBe(false);
  const key = scaleInMarkKey(SCALE_IN);
  const mark = JSON.parse(await getText(s3, key)) as { runId: string; suspendedAt: number; restoreBy: number };
  expect(mark).toEqual({ alarmName: SCALE_IN, runId: expect.stringMatching(/\S/), suspendedAt: expect.any(Number), restoreBy: expect.any(Number), state: 'suspended' });
  expect(mark.restoreBy - mark.suspendedAt).toBeGreaterThanOrEqual(30 * 60_000);

  // Before the deadline the run might still be going (another machine): leftovers leaves it.
  const early = await runCli(['--region', 'us-east-1'], { script: 'leftovers.ts', env, timeoutMs: 60_000 });
  expect(early.stderr).not.toContain('target scale-in restored');
  expect(await scaleInEnabled()).toBe(false);

  // The deadline passes (the mark as it reads then); leftovers restores scale-in and marks it restored.
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: JSON.stringify({ ...mark, restoreBy: Date.now() - 1000 }) }));
  const late = await runCli(['--region', 'us-east-1'], { script: 'leftovers.ts', env, timeoutMs: 60_000 });
  expect(late.stderr).toContain(`target scale-in restored (alarm ${SCALE_IN}: actions enabled): run ${mark.runId} suspended scale-in at ${new Date(mark.suspendedAt).toISOString()}`);
  expect(await scaleInEnabled()).toBe(true);
  expect(JSON.parse(await getText(s3, key)).state).toBe('restored');
});
