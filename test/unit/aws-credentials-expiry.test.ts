/**
 * Credentials that end before the run does are refused before anything scales (exit 2, one line), and only those
 * that cannot renew themselves: exported session tokens. A profile's SSO or role credentials are renewed by the SDK.
 */
import { AutoScalingClient, DescribeAutoScalingGroupsCommand, SetDesiredCapacityCommand } from '@aws-sdk/client-auto-scaling';
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { UsageError } from '../../scripts/errors';
import { validateFlags } from '../../scripts/options';
import { planLoad } from '../../scripts/core/plan';
import { createAwsApi, type ResolvedCredentials } from '../../scripts/platforms/aws/clients';
import type { RigOutputs } from '../../scripts/platforms/aws/discovery';
import { RUN_OVERHEAD_MS, credentialsExpiryProblem, prepareTarget } from '../../scripts/platforms/aws/run-checks';

// The fleet's span (fleet-span.ts fleetSpanMs): preflight launch 10 + probe 5 + scale-out 10 + ready 10 minutes.
const LAUNCH_AND_READY_MS = (10 + 5 + 10 + 10) * 60_000;

const sts = mockClient(STSClient);
const s3 = mockClient(S3Client);
const asg = mockClient(AutoScalingClient);

const OUTPUTS: RigOutputs = {
  source: 'CloudFormation (eu-west-1)',
  generatorAsgName: 'gen',
  generatorAgentHome: '/opt/loadtest-rig/load-generators',
  resultsBucketName: 'bkt',
  targetUrl: 'http://10.0.0.1',
  stackNames: ['LoadTestRig-Network', 'LoadTestRig-Target', 'LoadTestRig-Generators'],
};
const NOW = Date.UTC(2026, 10, 26, 12, 0);
const limits = { openFiles: 1e6, ephemeralPorts: 1e6, memoryBytes: 1e12, bytesPerVuser: 1, socketsPerVuser: 1, sourceAddresses: 1, processes: 1 };
// 30 minutes of load, sessions of 60 s.
const PLAN = planLoad({ phases: [{ duration: 1800, arrivalRate: 10 }], generators: 1, limits, sessionSeconds: 60 });
const ENV = { CREDENTIALS_ENV_VARS: 'g' };
const hhmm = (ms: number) => new Date(ms).toTimeString().slice(0, 5);

beforeEach(() => {
  for (const m of [sts, s3, asg]) m.reset();
  sts.on(GetCallerIdentityCommand).resolves({ Account: '123456789012' });
  s3.on(HeadBucketCommand).resolves({});
  asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [{ AutoScalingGroupName: 'gen', DesiredCapacity: 0, Instances: [] } as never] });
});

function checkWith(creds: ResolvedCredentials) {
  const lines: string[] = [];
  const api = { ...createAwsApi({ region: 'eu-west-1' }), credentials: async () => creds };
  const clock = { now: () => NOW, sleep: async () => undefined };
  return prepareTarget({ api, outputs: OUTPUTS, options: validateFlags({}), log: (l) => lines.push(l), clock }, PLAN, 1, 60);
}

test('exported session credentials that end mid-run: refused before anything scales, one line with both times and the fix', async () => {
  const expiration = new Date(NOW + 20 * 60_000);
  const run = checkWith({ expiration, $source: ENV });
  await expect(run).rejects.toThrow(UsageError);
  const needUntil = NOW + LAUNCH_AND_READY_MS + (1800 + 60 + 120) * 1000 + RUN_OVERHEAD_MS.collection;
  await expect(checkWith({ expiration, $source: ENV })).rejects.toThrow(
    `the AWS credentials expire at ${hhmm(expiration.getTime())}, the run needs them until ~${hhmm(needUntil)} (its longest launch waits counted); use credentials that renew themselves (a profile with SSO or role_arn, the exported AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN unset), a longer session, or a shorter run`,
  );
  expect(asg.commandCalls(SetDesiredCapacityCommand)).toHaveLength(0);
});

test('the run needs its launch, its load with one session, and collection: an expiry after all of them passes', () => {
  const needUntil = NOW + LAUNCH_AND_READY_MS + 1980_000 + RUN_OVERHEAD_MS.collection;
  expect(credentialsExpiryProblem({ expiration: new Date(needUntil - 1), $source: ENV }, needUntil)).toMatch(/^the AWS credentials expire at/);
  expect(credentialsExpiryProblem({ expiration: new Date(needUntil), $source: ENV }, needUntil)).toBeUndefined();
  // No expiry known (long-term keys, or a chain that does not say): nothing to check.
  expect(credentialsExpiryProblem({ $source: ENV }, needUntil)).toBeUndefined();
  // An SDK that does not say where it found them: the expiry is taken as it stands.
  expect(credentialsExpiryProblem({ expiration: new Date(NOW) }, needUntil)).toBeDefined();
});

test("the way out fits where they came from: exported variables to unset, or a profile's fixed session keys to replace", () => {
  const needUntil = NOW + 3_600_000;
  expect(credentialsExpiryProblem({ expiration: new Date(NOW), $source: ENV }, needUntil)).toMatch(/\(a profile with SSO or role_arn, the exported AWS_ACCESS_KEY_ID\/AWS_SECRET_ACCESS_KEY\/AWS_SESSION_TOKEN unset\)/);
  const fromProfile = credentialsExpiryProblem({ expiration: new Date(NOW), $source: { CREDENTIALS_PROFILE: 'n' } }, needUntil);
  expect(fromProfile).toMatch(/\(a profile with SSO or role_arn instead of fixed session keys\)/);
  expect(fromProfile).not.toContain('AWS_ACCESS_KEY_ID');
});

test('credentials a profile renews (SSO, an assumed role) are not refused for their current expiry', () => {
  const soon = new Date(NOW + 60_000);
  expect(credentialsExpiryProblem({ expiration: soon, $source: { CREDENTIALS_PROFILE_SSO: 'r', CREDENTIALS_SSO: 's' } }, NOW + 3_600_000)).toBeUndefined();
  expect(credentialsExpiryProblem({ expiration: soon, $source: { CREDENTIALS_PROFILE_SOURCE_PROFILE: 'o', CREDENTIALS_STS_ASSUME_ROLE: 'i' } }, NOW + 3_600_000)).toBeUndefined();
});
