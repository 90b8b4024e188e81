/**
 * Once a run has opened, no AWS error exits 2 ("nothing was started"): the launch has begun (the group is scaled back
 * to 0 afterwards), so an error while suspending target scale-in or AZRebalance is a rig failure (exit 3), and
 * expired credentials say how to stop the generators by hand (scripts/platforms/aws/run-fleet.ts).
 */
import { RigError, UsageError } from '../../scripts/errors';
import type { AwsApi } from '../../scripts/platforms/aws/clients';
import type { RigOutputs } from '../../scripts/platforms/aws/discovery';
import { runFleet } from '../../scripts/platforms/aws/run-fleet';

const OUTPUTS: RigOutputs = {
  source: 'cdk-outputs.json',
  generatorAsgName: 'gen',
  generatorAgentHome: '/opt/loadtest-rig/load-generators',
  resultsBucketName: 'bkt',
  scaleInAlarmName: 'LoadTestRig-Target-In',
  stackNames: ['LoadTestRig-Network', 'LoadTestRig-Target', 'LoadTestRig-Generators'],
};

function launchWith(describeAlarms: () => Promise<never>) {
  const api = { region: 'eu-west-1', s3: { send: async () => ({}) }, describeAlarms } as unknown as AwsApi;
  const launched: string[] = [];
  const { fleet } = runFleet({
    api, outputs: OUTPUTS, clock: { now: () => 0, sleep: async () => undefined }, log: () => undefined, root: '/repo', runId: 'r1',
    plan: { generators: [] } as never, store: {} as never, heapLimitMiB: 1024, probe: () => undefined,
    publishing: { start: () => undefined, stop: async () => undefined }, publisher: undefined, onLaunch: () => void launched.push('launch'),
  });
  return { run: fleet.launch(['g01']).then(() => undefined, (e: Error) => e), launched };
}

test('credentials that expire while target scale-in is being suspended: exit 3, not exit 2; this region\'s group has not scaled yet (said so), another region\'s may have (its stop command kept)', async () => {
  const { run, launched } = launchWith(async () => {
    throw Object.assign(new Error('The security token included in the request is expired'), { name: 'ExpiredTokenException' });
  });
  const err = await run;
  expect(launched).toEqual(['launch']);
  expect(err).toBeInstanceOf(RigError);
  expect(err).not.toBeInstanceOf(UsageError);
  expect((err as Error).message).toBe('the AWS credentials expired as the run opened (ExpiredTokenException while suspending target scale-in (alarm LoadTestRig-Target-In)); this region\'s generators were not started: refresh them (aws sso login / a new session) and run again; what the run had suspended is restored past its deadline by the safety net or npm run leftovers (or now, by the command above); with generators in other regions, also scale it to 0: `aws autoscaling set-desired-capacity --auto-scaling-group-name gen --desired-capacity 0`');
});

test('access denied while suspending: a rig failure too (exit 3), naming what was being done', async () => {
  const { run } = launchWith(async () => {
    throw Object.assign(new Error('User is not authorized to perform: cloudwatch:DescribeAlarms'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
  });
  const err = await run;
  expect(err).toBeInstanceOf(RigError);
  expect((err as Error).message).toMatch(/^access denied while suspending target scale-in \(alarm LoadTestRig-Target-In\) \(AccessDenied: /);
});
