import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildTestRig, launchTemplateUserData, targetOf } from './helpers';

/**
 * The EC2 target's instances tell CloudFormation when they are ready. The rules relied on:
 * - CloudFormation User Guide, "UpdatePolicy attribute", AutoScalingRollingUpdate WaitOnResourceSignals: CloudFormation
 *   "must receive a signal from each new instance within the specified PauseTime before continuing the update"; a
 *   PauseTime exceeded "before the Auto Scaling group receives the required number of signals" fails the update (and
 *   the stack rolls back). Without it, PauseTime is only a wait: a new instance whose app never starts counts as done.
 * - "CreationPolicy attribute": ResourceSignal Count/Timeout: the group is CREATE_COMPLETE only after Count success
 *   signals; a failure signal or the Timeout fails the creation.
 * - "CloudFormation helper scripts reference": the helper scripts are in /opt/aws/bin on Amazon Linux; AL2023's
 *   default AMI carries aws-cfn-bootstrap (AL2023 release notes, "Default AMI" package list), and the AL2023 AMI is
 *   IMDSv2-only by default (AL2023 User Guide, "IMDSv2"), the metadata cfn-signal signs its call with.
 */
describe('targetKind=ec2: health signals', () => {
  let stack: Stack;
  let t: Template;
  let userData: string;
  let asgId: string;
  beforeAll(() => {
    stack = targetOf(buildTestRig({}).rig);
    t = Template.fromStack(stack);
    userData = launchTemplateUserData(t);
    [asgId] = Object.keys(t.findResources('AWS::AutoScaling::AutoScalingGroup')) as [string];
  });

  test('creation waits for minCapacity success signals within the boot time (CreationPolicy ResourceSignal)', () => {
    t.hasResource('AWS::AutoScaling::AutoScalingGroup', {
      CreationPolicy: { ResourceSignal: { Count: 1, Timeout: 'PT10M' } },
    });
    const two = Template.fromStack(targetOf(buildTestRig({ minCapacity: 2 }).rig));
    two.hasResource('AWS::AutoScaling::AutoScalingGroup', { CreationPolicy: { ResourceSignal: { Count: 2, Timeout: 'PT10M' } } });
  });

  test('a rolling update waits on each new instance\'s signal (WaitOnResourceSignals; PauseTime is then the signal deadline, ≤ PT1H) and needs all of them', () => {
    t.hasResource('AWS::AutoScaling::AutoScalingGroup', {
      UpdatePolicy: {
        AutoScalingRollingUpdate: Match.objectLike({ WaitOnResourceSignals: true, PauseTime: 'PT10M', MaxBatchSize: 1, MinInstancesInService: 1 }),
      },
    });
    // MinSuccessfulInstancesPercent absent is CloudFormation's 100; present, it must be 100.
    const rolling = (Object.values(t.findResources('AWS::AutoScaling::AutoScalingGroup'))[0] as { UpdatePolicy: { AutoScalingRollingUpdate: Record<string, unknown> } })
      .UpdatePolicy.AutoScalingRollingUpdate;
    expect(rolling.MinSuccessfulInstancesPercent ?? 100).toBe(100);
  });

  test('user-data signals its own group with the script\'s exit code from an EXIT trap set before the first command runs', () => {
    expect(userData).toContain(`/opt/aws/bin/cfn-signal --stack ${stack.stackName} --resource ${asgId} --region <AWS::Region> -e $exitCode`);
    expect(userData.indexOf('trap exitTrap EXIT')).toBeGreaterThan(0);
    expect(userData.indexOf('trap exitTrap EXIT')).toBeLessThan(userData.indexOf('set -euxo pipefail'));
  });

  test('the last command waits for the app to answer GET /healthz on this instance (success is signalled only after it)', () => {
    const lines = userData.trimEnd().split('\n');
    const last = lines[lines.length - 1] ?? '';
    expect(last).toMatch(/curl .*--retry-all-errors .*http:\/\/127\.0\.0\.1:3000\/healthz/);
    expect(userData.indexOf('systemctl enable --now loadtest-target.service')).toBeLessThan(userData.lastIndexOf('127.0.0.1:3000/healthz'));
  });

  test('cfn-signal is made sure of before anything else can fail: aws-cfn-bootstrap from AL2023\'s own (version-locked) repository', () => {
    expect(userData).toMatch(/retry 5 dnf install -y [^\n]*aws-cfn-bootstrap/);
    expect(userData.indexOf('aws-cfn-bootstrap')).toBeLessThan(userData.indexOf('host-tuning.sh'));
  });

  test('the instance role may signal only its own stack (cloudformation:SignalResource on AWS::StackId, nothing else of CloudFormation)', () => {
    const statements = Object.values(t.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p).includes('Ec2Role'))
      .flatMap((p) => (p as { Properties: { PolicyDocument: { Statement: Array<{ Action: string | string[]; Resource: unknown }> } } }).Properties.PolicyDocument.Statement);
    const cfn = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('cloudformation:')));
    expect(cfn).toEqual([expect.objectContaining({ Action: 'cloudformation:SignalResource', Resource: { Ref: 'AWS::StackId' } })]);
  });
});

describe('targetKind=ec2: the exit trap, run', () => {
  // The rendered trap with cfn-signal replaced by a recorder, then a body that succeeds or fails as a boot would.
  function runTrap(body: string, signalExit = 0): { status: number | null; args: string } {
    const userData = launchTemplateUserData(Template.fromStack(targetOf(buildTestRig({}).rig)));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-signal-'));
    try {
      const recorder = path.join(dir, 'cfn-signal');
      fs.writeFileSync(recorder, `#!/bin/bash\necho "$*" > ${dir}/args\nexit ${signalExit}\n`, { mode: 0o755 });
      const trap = userData.slice(0, userData.indexOf('trap exitTrap EXIT') + 'trap exitTrap EXIT'.length)
        .replaceAll('/opt/aws/bin/cfn-signal', recorder).replaceAll('<AWS::Region>', 'eu-west-1');
      const r = spawnSync('bash', ['-c', `${trap}\nset -euo pipefail\n${body}`], { encoding: 'utf8', timeout: 10_000 });
      return { status: r.status, args: fs.existsSync(`${dir}/args`) ? fs.readFileSync(`${dir}/args`, 'utf8') : '' };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  test('a boot that completes signals success (-e 0)', () => {
    const r = runTrap('true');
    expect(r.status).toBe(0);
    expect(r.args).toMatch(/ -e 0\b/);
  }, 60_000);

  test('a step that fails under set -e signals failure with its code, so CloudFormation fails the create or rolls the update back', () => {
    const r = runTrap('true\n(exit 7)\necho never');
    expect(r.status).toBe(7);
    expect(r.args).toMatch(/ -e 7\b/);
  }, 60_000);

  test('a signal CloudFormation refuses (an instance a later scale-out launched: no create or update is waiting) leaves a good boot\'s exit status 0', () => {
    const r = runTrap('true', 1);
    expect(r.status).toBe(0);
  }, 60_000);
});
