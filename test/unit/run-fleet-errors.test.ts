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

test('credentials that expire while target scale-in is being suspended: exit 3, not exit 2; no group has scaled yet, so no command to stop one (it sent the user to scale a group never started)', async () => {
  const { run, launched } = launchWith(async () => {
    throw Object.assign(new Error('The security token included in the request is expired'), { name: 'ExpiredTokenException' });
  });
  const err = await run;
  expect(launched).toEqual(['launch']);
  expect(err).toBeInstanceOf(RigError);
  expect(err).not.toBeInstanceOf(UsageError);
  expect((err as Error).message).toBe('the AWS credentials expired as the run opened (ExpiredTokenException while suspending target scale-in (alarm LoadTestRig-Target-In)); no generator was started: refresh them (aws sso login / a new session) and run again (a suspension already made is taken over by that run, or restored past its deadline by the safety net or npm run leftovers)');
});

test('access denied while suspending: a rig failure too (exit 3), naming what was being done', async () => {
  const { run } = launchWith(async () => {
    throw Object.assign(new Error('User is not authorized to perform: cloudwatch:DescribeAlarms'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
  });
  const err = await run;
  expect(err).toBeInstanceOf(RigError);
  expect((err as Error).message).toMatch(/^access denied while suspending target scale-in \(alarm LoadTestRig-Target-In\) \(AccessDenied: /);
});
