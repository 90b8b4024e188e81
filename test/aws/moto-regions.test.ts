/**
 * Two generator regions end to end on emulated AWS (moto serves every region on one endpoint): the home region
 * (us-east-1, weight 3) with the target's stacks and a generator group, and eu-west-2 (weight 1) with its own
 * LoadTestRig-Generators-eu-west-2 stack, group and results bucket. The real CLI with `--platform aws`; the test
 * plays each region's SSM agent. Checks the split, the one start instant in both regions' stores, every region's
 * data in the run folder, the per-region columns, and both groups back at 0.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AutoScalingClient, CreateAutoScalingGroupCommand, CreateLaunchConfigurationCommand, DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { TargetHandle } from '../../scripts/contracts';
import { startLocalTarget } from '../../scripts/platforms/local/target';
import { runCli, tempDir } from '../helpers/cli';
import { FakeSsmAgent, Moto, ROOT, clientConfig, startMoto } from './moto';

jest.setTimeout(170_000);

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { RESULT_KEY: PREFLIGHT_RESULT } = require('../../load-generators/lib/preflight') as { RESULT_KEY: string };

const HOME = 'us-east-1';
const REMOTE = 'eu-west-2';
const GROUPS: Record<string, string> = { [HOME]: 'LoadTestRig-Generators-GroupHome', [REMOTE]: 'LoadTestRig-Generators-eu-west-2-GroupEu' };
const BUCKETS: Record<string, string> = { [HOME]: 'loadtestrig-results-home', [REMOTE]: 'loadtestrig-results-eu' };

let moto: Moto;
let target: TargetHandle;
let work: string;
const homes: Record<string, string> = {};

const template = (resources: Record<string, unknown>, outputs: Record<string, string>) =>
  JSON.stringify({ Resources: resources, Outputs: Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, { Value: v }])) });

async function createRegion(region: string, stackName: string, extra: Record<string, string>): Promise<void> {
  const cfg = clientConfig(moto, region);
  const asg = new AutoScalingClient(cfg);
  await asg.send(new CreateLaunchConfigurationCommand({ LaunchConfigurationName: 'rig-generator', ImageId: 'ami-12c6146b', InstanceType: 'c5.large' }));
  await asg.send(new CreateAutoScalingGroupCommand({
    AutoScalingGroupName: GROUPS[region], LaunchConfigurationName: 'rig-generator', MinSize: 0, MaxSize: 4, DesiredCapacity: 0,
    AvailabilityZones: [`${region}a`],
    Tags: [{ Key: 'loadtest-rig:role', Value: 'generator', PropagateAtLaunch: true, ResourceId: GROUPS[region], ResourceType: 'auto-scaling-group' }],
  }));
  await new CloudFormationClient(cfg).send(new CreateStackCommand({
    StackName: stackName,
    TemplateBody: template(
      { Results: { Type: 'AWS::S3::Bucket', Properties: { BucketName: BUCKETS[region] } } },
      { GeneratorAsgName: GROUPS[region]!, GeneratorAgentHome: homes[region]!, ResultsBucketName: BUCKETS[region]!, Region: region, MaxGenerators: '4', GeneratorInstanceType: 'c5.large', GeneratorSecondaryIps: '1', SafetyNetFunctionName: `${stackName}-SafetyNet`, ...extra },
    ),
  }));
}

async function getText(region: string, key: string): Promise<string | undefined> {
  try {
    const obj = await new S3Client(clientConfig(moto, region)).send(new GetObjectCommand({ Bucket: BUCKETS[region], Key: key }));
    return await (obj.Body as { transformToString(): Promise<string> }).transformToString();
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  work = tempDir('rig-aws-regions-');
  for (const r of [HOME, REMOTE]) {
    homes[r] = path.join(work, r, 'opt', 'loadtest-rig', 'load-generators');
    fs.mkdirSync(homes[r]!, { recursive: true });
  }
  moto = await startMoto();
  target = await startLocalTarget({ appDir: path.join(ROOT, 'target-stack', 'app'), port: 0, workers: 1 });
  await createRegion(REMOTE, `LoadTestRig-Generators-${REMOTE}`, { RegionWeight: '1' });
  await createRegion(HOME, 'LoadTestRig-Generators', { RegionWeight: '3', RemoteGeneratorRegions: REMOTE, RigMetricsNamespace: 'LoadTestRig' });
  await new CloudFormationClient(clientConfig(moto, HOME)).send(new CreateStackCommand({
    StackName: 'LoadTestRig-Target',
    TemplateBody: template(
      { Placeholder: { Type: 'AWS::S3::Bucket', Properties: { BucketName: 'loadtestrig-target-placeholder' } } },
      // Overridden by --target (the local reference target): traffic stays on loopback.
      { TargetUrl: 'http://loadtestrig-alb.invalid', PublicTargetUrl: 'http://loadtestrig-public-alb.invalid' },
    ),
  }));
}, 60_000);

afterAll(async () => {
  await target?.stop();
  await moto?.stop();
});

test('two regions: split by weight, one start instant in both regions, every region\'s data merged, per-region columns, both groups at 0', async () => {
  const homeAgent = new FakeSsmAgent(moto, homes[HOME]!, work, HOME);
  const remoteAgent = new FakeSsmAgent(moto, homes[REMOTE]!, work, REMOTE);
  const agents = { [HOME]: homeAgent, [REMOTE]: remoteAgent };
  for (const a of Object.values(agents)) a.start();
  const out = path.join(work, 'run');
  let res;
  try {
    res = await runCli(['--platform', 'aws', '--vusers', '40', '--ramp', '4s', '--hold', '1s', '--generators', '3', '--json', '--target', target.url, '--out', out], {
      env: { ...moto.env, AWS_PROFILE: '' },
      timeoutMs: 150_000,
    });
  } finally {
    await Promise.all(Object.values(agents).map((a) => a.stop()));
  }
  const diag = `exit ${res.code}\n${res.stderr}\nagent logs: ${fs.readdirSync(work).filter((f) => f.endsWith('.log')).map((f) => `${f}: ${fs.readFileSync(path.join(work, f), 'utf8').slice(-1500)}`).join('\n')}`;
  expect({ code: res.code, diag }).toEqual({ code: 0, diag });
  expect(res.stderr).toContain(`generator regions: ${HOME} (weight 3), ${REMOTE} (weight 1)`);

  // The split: 40 vusers 3:1 → 30 in us-east-1 on 2 generators, 10 in eu-west-2 on 1 (--generators 3 by weight, one per region first).
  expect(res.stderr).toContain(`regions: ${HOME} 30 vusers on 2 generator(s), ${REMOTE} 10 vusers on 1 generator(s); one start instant for all`);
  expect(homeAgent.agents.map((a) => a.generator).sort()).toEqual(['g01', 'g02']);
  expect(remoteAgent.agents.map((a) => a.generator)).toEqual(['g03']);
  expect(remoteAgent.agents[0]?.store).toMatch(new RegExp(`^s3://${BUCKETS[REMOTE]}/runs/`));
  // Preflight per region: one probe from each region's first generator.
  expect(homeAgent.preflights).toHaveLength(1);
  expect(remoteAgent.preflights).toHaveLength(1);

  // One start instant: the same control/start.json in both regions' buckets, and every agent planned its start on it.
  const summary = res.json;
  const starts = await Promise.all([HOME, REMOTE].map((r) => getText(r, `runs/${summary.runId}/control/start.json`)));
  expect(starts[0]).toBeDefined();
  expect(starts[1]).toBe(starts[0]);
  const { startAt } = JSON.parse(starts[0]!) as { startAt: number };
  for (const g of ['g01', 'g02', 'g03']) {
    // Each load process's started-*.json (generators/gNN/pK/): the instant it was told, and when it really began.
    const dir = path.join(out, 'generators', g);
    const startedFiles = fs.readdirSync(dir).filter((p) => /^p\d+$/.test(p)).flatMap((p) => fs.readdirSync(path.join(dir, p)).filter((f) => /^started-.*\.json$/.test(f)).map((f) => path.join(dir, p, f)));
    const planned = [...new Set(startedFiles.map((f) => (JSON.parse(fs.readFileSync(f, 'utf8')) as { plannedAt: number }).plannedAt))];
    expect({ g, planned }).toEqual({ g, planned: [startAt] });
  }

  // Every region's data merged exactly: the whole run and each region's column.
  expect(summary.aggregate.counters['vusers.created']).toBe(40);
  expect(summary.regions.map((r: { region: string; generatorIds: string[]; plannedVusers: number; vusersCreated: number; vusersFailed: number }) => [r.region, r.generatorIds, r.plannedVusers, r.vusersCreated, r.vusersFailed]))
    .toEqual([[HOME, ['g01', 'g02'], 30, 30, 0], [REMOTE, ['g03'], 10, 10, 0]]);
  // eu-west-2's store was copied into the run folder next to the home region's.
  expect(fs.existsSync(path.join(out, 'generators', 'g03', 'done.json'))).toBe(true);
  expect(fs.existsSync(path.join(out, 'generators', 'g01', 'done.json'))).toBe(true);
  // …and its own keys (the preflight probe's result from eu-west-2) under regions/eu-west-2/, never its bundle.
  expect(fs.existsSync(path.join(out, 'regions', REMOTE, PREFLIGHT_RESULT))).toBe(true);
  expect(fs.existsSync(path.join(out, PREFLIGHT_RESULT))).toBe(true);
  expect(fs.existsSync(path.join(out, 'regions', REMOTE, 'bundle'))).toBe(false);
  const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
  expect(report.regions.map((r: { timeline: unknown[] }) => r.timeline.length > 0)).toEqual([true, true]);
  expect(fs.readFileSync(path.join(out, 'report.html'), 'utf8')).toContain('<h2 id="regions">By region</h2>');

  // Both regions' groups back at 0.
  for (const r of [HOME, REMOTE]) {
    const group = (await new AutoScalingClient(clientConfig(moto, r)).send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [GROUPS[r]!] }))).AutoScalingGroups?.[0];
    expect({ r, desired: group?.DesiredCapacity }).toEqual({ r, desired: 0 });
  }
});
