/**
 * A fresh account on emulated AWS (moto), through the real CLI:
 * - a vCPU quota too small for the plan: exit 2 with the numbers and the console link, nothing scaled,
 *   nothing dispatched, nothing written. moto 5.2.5 implements Service Quotas for the `vpc` service only
 *   (GetServiceQuota answers NoSuchResource for ec2), so the CLI's Service Quotas endpoint
 *   (AWS_ENDPOINT_URL_SERVICE_QUOTAS, the SDK's standard per-service override) points at a stub on loopback
 *   answering GetServiceQuota; everything else is moto.
 * - an empty secrets path: the run goes ahead and says "no secrets" once, however many generators read it.
 */
import type { TargetHandle } from '../../scripts/contracts';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { AutoScalingClient, CreateAutoScalingGroupCommand, CreateLaunchConfigurationCommand, DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { ListCommandsCommand, SSMClient } from '@aws-sdk/client-ssm';
import { startLocalTarget } from '../../scripts/platforms/local/target';
import { runCli, tempDir } from '../helpers/cli';
import { FakeSsmAgent, Moto, ROOT, clientConfig, startMoto } from './moto';

jest.setTimeout(150_000);

const GEN_ASG = 'LoadTestRig-Generators-FleetGroupQ1';
const BUCKET = 'loadtestrig-results-account';

let moto: Moto;
let target: TargetHandle;
let work: string;
let agentHome: string;
let quotas: { server: http.Server; url: string; asked: Array<{ target: string; body: unknown }>; value: number };

/** Service Quotas' JSON protocol, GetServiceQuota only: the applied value of whatever quota is asked. */
function startQuotaStub(): Promise<typeof quotas> {
  const state = { asked: [] as Array<{ target: string; body: unknown }>, value: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const amzTarget = String(req.headers['x-amz-target'] ?? '');
      const input = JSON.parse(body || '{}') as { ServiceCode?: string; QuotaCode?: string };
      state.asked.push({ target: amzTarget, body: input });
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (amzTarget !== 'ServiceQuotasV20190624.GetServiceQuota') {
        res.statusCode = 400;
        res.end(JSON.stringify({ __type: 'UnknownOperationException', message: amzTarget }));
        return;
      }
      res.end(JSON.stringify({ Quota: { ServiceCode: input.ServiceCode, QuotaCode: input.QuotaCode, QuotaName: 'stub', Value: state.value, Unit: 'None' } }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const port = (server.address() as AddressInfo).port;
    resolve(Object.assign(state, { server, url: `http://127.0.0.1:${port}` }));
  }));
}

async function createStandIns(): Promise<void> {
  const cfg = clientConfig(moto);
  const asg = new AutoScalingClient(cfg);
  await asg.send(new CreateLaunchConfigurationCommand({ LaunchConfigurationName: 'rig-gen-account', ImageId: 'ami-12c6146b', InstanceType: 'c5.large' }));
  await asg.send(new CreateAutoScalingGroupCommand({
    AutoScalingGroupName: GEN_ASG, LaunchConfigurationName: 'rig-gen-account', MinSize: 0, MaxSize: 4, DesiredCapacity: 0, AvailabilityZones: ['us-east-1a'],
    Tags: [{ Key: 'loadtest-rig:role', Value: 'generator', PropagateAtLaunch: true, ResourceId: GEN_ASG, ResourceType: 'auto-scaling-group' }],
  }));
  const outputs: Record<string, string> = {
    GeneratorAsgName: GEN_ASG, GeneratorAgentHome: agentHome, ResultsBucketName: BUCKET, Region: 'us-east-1',
    MaxGenerators: '4', GeneratorInstanceType: 'c5.large', GeneratorSecondaryIps: '1',
  };
  await new CloudFormationClient(cfg).send(new CreateStackCommand({
    StackName: 'LoadTestRig-Generators',
    TemplateBody: JSON.stringify({
      Resources: { Results: { Type: 'AWS::S3::Bucket', Properties: { BucketName: BUCKET } } },
      Outputs: Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, { Value: v }])),
    }),
  }));
}

beforeAll(async () => {
  work = tempDir('rig-aws-account-');
  agentHome = path.join(work, 'opt', 'loadtest-rig', 'load-generators');
  fs.mkdirSync(agentHome, { recursive: true });
  moto = await startMoto();
  quotas = await startQuotaStub();
  target = await startLocalTarget({ appDir: path.join(ROOT, 'target-stack', 'app'), port: 0, workers: 1 });
  await createStandIns();
}, 60_000);

afterAll(async () => {
  await target?.stop();
  await new Promise<void>((resolve) => (quotas?.server ? quotas.server.close(() => resolve()) : resolve()));
  await moto?.stop();
});

test('a vCPU quota too small for the plan: exit 2 with the numbers and the link, nothing scaled, dispatched or written', async () => {
  quotas.value = 2; // a fresh account's quota can be this low; 2 c5.large generators need 4
  const res = await runCli(['--platform', 'aws', '--vusers', '20', '--ramp', '2s', '--hold', '1s', '--generators', '2', '--target', target.url, '--out', path.join(work, 'refused')], {
    env: { ...moto.env, AWS_PROFILE: '', AWS_ENDPOINT_URL_SERVICE_QUOTAS: quotas.url },
    timeoutMs: 90_000,
  });
  expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 2, stderr: expect.stringContaining(
    'error: the run needs 4 vCPUs of the quota "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances" (L-1216C47A) in us-east-1 ' +
    '(2 × c5.large generators (2 vCPUs each) = 4), and the account\'s quota is 2; lower --vusers or --generators, or request an increase to at least 4 at ' +
    'https://us-east-1.console.aws.amazon.com/servicequotas/home/services/ec2/quotas/L-1216C47A\n',
  ) });
  expect(quotas.asked).toEqual([{ target: 'ServiceQuotasV20190624.GetServiceQuota', body: { ServiceCode: 'ec2', QuotaCode: 'L-1216C47A' } }]);
  // Nothing scaled, nothing dispatched, nothing in the bucket, no estimate printed for a refused run.
  const group = (await new AutoScalingClient(clientConfig(moto)).send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [GEN_ASG] }))).AutoScalingGroups?.[0];
  expect({ desired: group?.DesiredCapacity, instances: group?.Instances?.length ?? 0 }).toEqual({ desired: 0, instances: 0 });
  expect((await new SSMClient(clientConfig(moto)).send(new ListCommandsCommand({}))).Commands ?? []).toEqual([]);
  expect((await new S3Client(clientConfig(moto)).send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).toEqual([]);
  expect(res.stderr).not.toMatch(/estimated cost/);
});

test('a target URL with credentials on AWS: exit 2 naming the secrets path, nothing scaled or stored, the secret never printed', async () => {
  quotas.value = 1000;
  const secretUrl = target.url.replace('http://', 'http://tester:s3cret-pw@');
  const out = path.join(work, 'credentialed');
  const res = await runCli(['--platform', 'aws', '--vusers', '4', '--ramp', '2s', '--hold', '1s', '--target', secretUrl, '--out', out], {
    env: { ...moto.env, AWS_PROFILE: '', AWS_ENDPOINT_URL_SERVICE_QUOTAS: quotas.url },
    timeoutMs: 90_000,
  });
  expect(res.code).toBe(2);
  expect(res.stderr).toMatch(/carries credentials or query values, which on --platform aws would be stored in the run's S3 slices; .*secrets path/);
  expect(`${res.stdout}${res.stderr}`).not.toContain('s3cret-pw');
  expect(fs.existsSync(out)).toBe(false);
  const group = (await new AutoScalingClient(clientConfig(moto)).send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [GEN_ASG] }))).AutoScalingGroups?.[0];
  expect(group?.DesiredCapacity).toBe(0);
  expect((await new S3Client(clientConfig(moto)).send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).toEqual([]);
});

test('an empty secrets path: the run goes ahead with no secrets, said once for both generators', async () => {
  quotas.value = 64;
  const ssmAgent = new FakeSsmAgent(moto, agentHome, work);
  ssmAgent.start();
  let res;
  try {
    res = await runCli(['--platform', 'aws', '--vusers', '10', '--ramp', '2s', '--hold', '1s', '--generators', '2', '--json', '--target', target.url, '--out', path.join(work, 'no-secrets')], {
      env: { ...moto.env, AWS_PROFILE: '', AWS_ENDPOINT_URL_SERVICE_QUOTAS: quotas.url },
      timeoutMs: 120_000,
    });
  } finally {
    await ssmAgent.stop();
  }
  expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  expect(ssmAgent.agents.map((a) => a.generator).sort()).toEqual(['g01', 'g02']);
  const note = 'scenario secrets: none (no parameters under /loadtest-rig/secrets/)';
  expect(res.stderr.split('\n').filter((l) => l.includes(note))).toHaveLength(1);
  expect(res.stderr).toContain('vCPU quota L-1216C47A: 4 of 64 needed');
  expect(res.stderr).toMatch(/estimated cost of this run: \$\d+\.\d\d/);
  expect(res.json.aggregate.counters['vusers.created']).toBe(10);
});
