import { App, Aspects, Aws, Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ResourceSignalCheck } from '../../lib/signal-check';
import { buildTestRig, targetOf } from './helpers';

/**
 * A group from a launch template whose user-data echoes and signals the group: CDK's cfn-signal (`true`), the same
 * with `--resource` and its id on two lines, the AWS CLI's signal-resource, not at all (`false`), or the given lines
 * (`STACK`, `ID` and `REGION` in them replaced by the stack's name, the group's logical id and the stack's region).
 */
function group(app: App, props: Partial<autoscaling.AutoScalingGroupProps>, signal: boolean | 'split' | 'cli' | string[]): Stack {
  const stack = new Stack(app, `S${app.node.children.length}`);
  const vpc = new ec2.Vpc(stack, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'Public', subnetType: ec2.SubnetType.PUBLIC }] });
  const userData = ec2.UserData.forLinux();
  userData.addCommands('echo boot');
  const launchTemplate = new ec2.LaunchTemplate(stack, 'Lt', { instanceType: new ec2.InstanceType('t3.small'), machineImage: ec2.MachineImage.latestAmazonLinux2023(), userData,
    role: new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') }) });
  const asg = new autoscaling.AutoScalingGroup(stack, 'Asg', { vpc, launchTemplate, minCapacity: 1, maxCapacity: 2, ...props });
  const id = stack.resolve((asg.node.defaultChild as autoscaling.CfnAutoScalingGroup).logicalId) as string;
  if (signal === true) userData.addSignalOnExitCommand(asg);
  if (signal === 'split') userData.addCommands(`/opt/aws/bin/cfn-signal --stack ${stack.stackName} --resource \\`, `  ${id} --region ${stack.region} -e $?`);
  if (signal === 'cli') userData.addCommands(`aws cloudformation signal-resource --stack-name ${stack.stackName} --logical-resource-id ${id} --unique-id $(hostname) --status SUCCESS`);
  if (Array.isArray(signal)) userData.addCommands(...signal.map((l) => l.replace(/\bSTACK\b/g, stack.stackName).replace(/\bID\b/g, id).replace(/\bREGION\b/g, stack.region)));
  return stack;
}

function errors(stack: Stack): string[] {
  return Annotations.fromStack(stack).findError('*', Match.anyValue()).map((e) => String(e.entry.data));
}

// CloudFormation User Guide, "UpdatePolicy attribute" (WaitOnResourceSignals, PauseTime) and "CreationPolicy attribute".
describe('synth rule: an auto-scaling group\'s health signal is real', () => {
  let app: App;
  beforeEach(() => {
    app = new App();
    Aspects.of(app).add(new ResourceSignalCheck());
  });

  test('fails a rolling update without WaitOnResourceSignals: PauseTime alone counts an instance whose app never starts as updated', () => {
    const stack = group(app, { updatePolicy: autoscaling.UpdatePolicy.rollingUpdate({ pauseTime: Duration.minutes(5) }) }, false);
    app.synth();
    const found = errors(stack);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^rolling update without WaitOnResourceSignals: CloudFormation counts each new instance as updated after PauseTime/);
    expect(found[0]).not.toContain('\n');
  });

  test('fails a group that waits for signals its user-data never sends: every create and update would fail at the deadline', () => {
    const stack = group(app, { signals: autoscaling.Signals.waitForMinCapacity(), updatePolicy: autoscaling.UpdatePolicy.rollingUpdate() }, false);
    app.synth();
    expect(errors(stack)).toEqual([expect.stringMatching(/waits for resource signals, but its launch template's user-data never signals it \(no cfn-signal --stack S\d+ --resource Asg\w+ --region \$\{AWS::Region\}\): .*; add userData\.addSignalOnExitCommand\(group\) to the user-data$/)]);
  });

  // A signal counts only as one command's own arguments: cfn-signal (AWS CloudFormation helper scripts reference,
  // "cfn-signal") needs --stack and --resource (no short forms: -s is --success, -r is --reason), and its --region defaults to us-east-1, not the instance's
  // region; the AWS CLI's signal-resource needs --stack-name and --logical-resource-id. Each near miss below names the
  // group somewhere in the user-data, which the loose match (any cfn-signal, then --resource ID anywhere after) took.
  test.each([
    ['another command on the same line names the group', ['/opt/aws/bin/cfn-signal --stack STACK --resource Other --region REGION -e $?; echo --resource ID']],
    ['cfn-signal only in a comment, the group named by another tool', ['# cfn-signal comes with the image', 'some-tool --resource ID']],
    ['a cfn-signal for the group only inside an echo', ["echo 'later: /opt/aws/bin/cfn-signal --stack STACK --resource ID --region REGION'"]],
    ['cfn-signal for the group in another stack', ['/opt/aws/bin/cfn-signal --stack OtherStack --resource ID --region REGION -e $?']],
    ["cfn-signal without --region (it signals us-east-1's endpoint, not the stack's region)", ['/opt/aws/bin/cfn-signal --stack STACK --resource ID -e $?']],
    ['cfn-signal for the group in another region', ['/opt/aws/bin/cfn-signal --stack STACK --resource ID --region eu-west-1 -e $?']],
    ['cfn-signal -s STACK -r ID: -s is --success and -r is --reason, so neither stack nor resource is named', ['cfn-signal -s STACK -r ID --region REGION -e 0']],
    ["a --reason whose text reads like the group's option (the reason is '--resource'; ID names nothing)", ['/opt/aws/bin/cfn-signal --stack STACK --region REGION --reason --resource ID -e 0']],
    ["the words 'cloudformation signal-resource' as another AWS CLI command's argument", ["aws s3 cp x 'cloudformation signal-resource' --stack-name STACK --logical-resource-id ID --region REGION"]],
    ['signal-resource for the group in another stack', ['aws cloudformation signal-resource --stack-name OtherStack --logical-resource-id ID --unique-id $(hostname) --status SUCCESS']],
  ])('fails a near miss: %s', (_, lines) => {
    const stack = group(app, { signals: autoscaling.Signals.waitForMinCapacity(), updatePolicy: autoscaling.UpdatePolicy.rollingUpdate() }, lines);
    app.synth();
    expect(errors(stack)).toEqual([expect.stringMatching(/waits for resource signals, but its launch template's user-data never signals it/)]);
  });

  test('the line names what the closest signal gets wrong', () => {
    const stack = group(app, { signals: autoscaling.Signals.waitForMinCapacity() }, ['/opt/aws/bin/cfn-signal --stack OtherStack --resource ID -e $?']);
    app.synth();
    expect(errors(stack)).toEqual([expect.stringMatching(/never signals it \(no cfn-signal --stack S\d+ --resource Asg\w+ --region \$\{AWS::Region\}; the closest, cfn-signal, has stack OtherStack, no --region \(cfn-signal then signals us-east-1\)\): every create/)]);
  });

  test('passes the forms cfn-signal and signal-resource take: --opt=value, values filled in at boot, quoted values, the stack\'s own pseudo parameters, a wrapper', () => {
    const waits = { signals: autoscaling.Signals.waitForMinCapacity(), updatePolicy: autoscaling.UpdatePolicy.rollingUpdate() };
    const stacks = [
      group(app, waits, ['/opt/aws/bin/cfn-signal --stack=STACK --resource=ID --region=REGION -e 0']),
      group(app, waits, ['cfn-signal --stack STACK --resource ID --region REGION --reason "boot done; app up" -e 0 || echo not accepted']),
      // A value the shell fills in at boot cannot be judged from the template, so it is not refused.
      group(app, waits, ['REGION=$(curl -s http://169.254.169.254/latest/meta-data/placement/region)', '/opt/aws/bin/cfn-signal -e $? --stack STACK --resource ID --region $REGION']),
      group(app, waits, ['/opt/aws/bin/cfn-signal -e 0 --region "REGION" --stack \'STACK\' --resource ID']),
      group(app, waits, [`sudo /opt/aws/bin/cfn-signal --stack ${Aws.STACK_NAME} --resource ID --region ${Aws.REGION} -e 0`]),
      group(app, waits, [`aws cloudformation signal-resource --stack-name ${Aws.STACK_ID} --logical-resource-id ID --unique-id i-1 --status SUCCESS --region REGION`]),
    ];
    app.synth();
    for (const st of stacks) expect([st.stackName, errors(st)]).toEqual([st.stackName, []]);
  });

  test('fails a PauseTime over CloudFormation\'s one-hour maximum', () => {
    const stack = group(app, { signals: autoscaling.Signals.waitForMinCapacity({ timeout: Duration.minutes(90) }), updatePolicy: autoscaling.UpdatePolicy.rollingUpdate() }, true);
    app.synth();
    expect(errors(stack)).toEqual([expect.stringMatching(/PauseTime PT1H30M is longer than CloudFormation's maximum, PT1H; set pauseTime to at most 1 hour/)]);
  });

  test('passes signals with a user-data that signals the group (CDK\'s cfn-signal, one split over two lines, the AWS CLI), and a group with no update or creation policy (the generators)', () => {
    const waits = { signals: autoscaling.Signals.waitForMinCapacity(), updatePolicy: autoscaling.UpdatePolicy.rollingUpdate() };
    const signalled = [group(app, waits, true), group(app, waits, 'split'), group(app, waits, 'cli')];
    const plain = group(app, { minCapacity: 0 }, false);
    app.synth();
    for (const st of signalled) expect(errors(st)).toEqual([]);
    expect(errors(plain)).toEqual([]);
  });

  test("a group launched from a launch configuration: the update policy's rules hold, whether it signals is not judged", () => {
    const lcGroup = (id: string, props: Partial<autoscaling.AutoScalingGroupProps>) => {
      const stack = new Stack(app, id);
      const vpc = new ec2.Vpc(stack, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'Public', subnetType: ec2.SubnetType.PUBLIC }] });
      new autoscaling.AutoScalingGroup(stack, 'Asg', { vpc, instanceType: new ec2.InstanceType('t3.small'), machineImage: ec2.MachineImage.latestAmazonLinux2023(), minCapacity: 1, maxCapacity: 2, ...props });
      return stack;
    };
    const pauseOnly = lcGroup('LcPause', { updatePolicy: autoscaling.UpdatePolicy.rollingUpdate({ pauseTime: Duration.minutes(5) }) });
    const waits = lcGroup('LcWaits', { signals: autoscaling.Signals.waitForMinCapacity(), updatePolicy: autoscaling.UpdatePolicy.rollingUpdate() });
    app.synth();
    expect(errors(pauseOnly)).toEqual([expect.stringMatching(/^rolling update without WaitOnResourceSignals/)]);
    expect(errors(waits).filter((e) => /resource signals|PauseTime/.test(e))).toEqual([]);
  });

  test('the rig registers it and passes it (ec2 target, generators)', () => {
    const { app: rigApp, rig } = buildTestRig({ targetKind: 'ec2' });
    const extra = group(rigApp, { updatePolicy: autoscaling.UpdatePolicy.rollingUpdate() }, false);
    rigApp.synth();
    expect(errors(targetOf(rig))).toEqual([]);
    expect(errors(rig.generators)).toEqual([]);
    // (The rig's other synth rules judge this bare launch template too: lib/instance-launch-check.ts.)
    expect(errors(extra).filter((e) => !e.startsWith('launch template '))).toEqual([expect.stringMatching(/^rolling update without WaitOnResourceSignals/)]);
  }, 120_000);
});
