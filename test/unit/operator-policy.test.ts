/**
 * iam/operator-policy.json covers every AWS call the CLI makes: the calls are read from the AwsApi
 * interface itself (scripts/platforms/aws/clients.ts, with the TypeScript compiler), each maps to its
 * IAM actions (IAM_ACTIONS), and each action must be allowed — on the rig's own resources where the
 * policy scopes it. A new call without a policy statement fails here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { IAM_ACTIONS } from '../../scripts/platforms/aws/clients';

const ROOT = path.resolve(__dirname, '..', '..');

interface Statement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}
const policy = JSON.parse(fs.readFileSync(path.join(ROOT, 'iam', 'operator-policy.json'), 'utf8')) as { Version: string; Statement: Statement[] };

/** IAM's wildcard match (`*` any run, `?` one character), case-insensitive for actions. */
function globMatch(pattern: string, value: string, caseInsensitive = false): boolean {
  const re = new RegExp(`^${pattern.split('').map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/]/g, '\\$&'))).join('')}$`, caseInsensitive ? 'i' : '');
  return re.test(value);
}
const list = (v: string | string[]) => (Array.isArray(v) ? v : [v]);

/** The Allow statements granting `action` on `resource` (conditions ignored: they narrow, the test asserts them separately). */
function allowing(action: string, resource: string): Statement[] {
  return policy.Statement.filter((s) => s.Effect === 'Allow' && list(s.Action).some((a) => globMatch(a, action, true)) && list(s.Resource).some((r) => globMatch(r, resource)));
}

/** The members of `interface AwsApi` in clients.ts, read from the source (interfaces do not exist at run time). */
function awsApiMembers(): string[] {
  const file = path.join(ROOT, 'scripts', 'platforms', 'aws', 'clients.ts');
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const members: string[] = [];
  sf.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'AwsApi') {
      for (const m of node.members) if (m.name && ts.isIdentifier(m.name)) members.push(m.name.text);
    }
  });
  return members;
}

// Example resources of the deployed rig, for the actions the policy scopes to it.
const RIG = {
  stack: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/LoadTestRig-Generators/0a1b2c3d-1111-2222-3333-444455556666',
  group: 'arn:aws:autoscaling:eu-west-1:123456789012:autoScalingGroup:0a1b2c3d-1111-2222-3333-444455556666:autoScalingGroupName/LoadTestRig-Generators-FleetGroupA1B2C3-Xy7Zq9',
  bucket: 'arn:aws:s3:::loadtestrig-generators-resultsbucket1234abcd-5678efgh',
  object: 'arn:aws:s3:::loadtestrig-generators-resultsbucket1234abcd-5678efgh/runs/20261123-120000-abcd/generators/g01/done.json',
  document: 'arn:aws:ssm:eu-west-1::document/AWS-RunShellScript',
  instance: 'arn:aws:ec2:eu-west-1:123456789012:instance/i-0123456789abcdef0',
  // CloudFormation names the target's scale-in alarm <stack>-<logical id>-<suffix>.
  scaleInAlarm: 'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:LoadTestRig-Target-Ec2CpuStepScalingLowerAlarm1A2B3C4D-AbCdEf123456',
  targetGroup: 'arn:aws:autoscaling:eu-west-1:123456789012:autoScalingGroup:0a1b2c3d-1111-2222-3333-444455556666:autoScalingGroupName/LoadTestRig-Target-Ec2AsgA1B2C3-Xy7Zq9',
};
/** Where each scoped action acts; an action absent here must be allowed on "*". */
const SCOPED: Record<string, string[]> = {
  'cloudformation:DescribeStacks': [RIG.stack],
  'cloudformation:DeleteStack': [RIG.stack],
  'autoscaling:SetDesiredCapacity': [RIG.group],
  'autoscaling:SuspendProcesses': [RIG.group, RIG.targetGroup],
  'autoscaling:ResumeProcesses': [RIG.group, RIG.targetGroup],
  'ssm:SendCommand': [RIG.document, RIG.instance],
  's3:ListBucket': [RIG.bucket],
  's3:GetObject': [RIG.object],
  's3:PutObject': [RIG.object],
  'cloudwatch:DisableAlarmActions': [RIG.scaleInAlarm],
  'cloudwatch:EnableAlarmActions': [RIG.scaleInAlarm],
};

test('IAM_ACTIONS lists exactly the calls of the AwsApi interface', () => {
  const members = awsApiMembers();
  expect(members.length).toBeGreaterThan(15);
  expect(members.filter((m) => m !== 'region').sort()).toEqual(Object.keys(IAM_ACTIONS).sort());
});

test.each(Object.entries(IAM_ACTIONS).flatMap(([call, actions]) => actions.map((a) => [call, a] as const)))('%s: %s is allowed by iam/operator-policy.json', (_call, action) => {
  for (const resource of SCOPED[action] ?? ['*']) {
    expect({ action, resource, statements: allowing(action, resource).map((s) => s.Sid) }).toEqual({ action, resource, statements: [expect.any(String)] });
  }
});

test('scoped actions are scoped: nothing grants them on "*" or on another stack, group or bucket', () => {
  for (const action of Object.keys(SCOPED)) expect({ action, onStar: allowing(action, '*').length }).toEqual({ action, onStar: 0 });
  expect(allowing('autoscaling:SetDesiredCapacity', RIG.group.replace('LoadTestRig-Generators-', 'Prod-'))).toEqual([]);
  expect(allowing('cloudformation:DeleteStack', RIG.stack.replace('LoadTestRig-Generators', 'ProdStack'))).toEqual([]);
  expect(allowing('s3:PutObject', RIG.object.replace('/runs/', '/other/'))).toEqual([]);
  expect(allowing('s3:GetObject', 'arn:aws:s3:::someone-elses-bucket/runs/x')).toEqual([]);
  expect(allowing('s3:DeleteObject', RIG.object)).toEqual([]);
  // Scale-in suspension touches only the rig's target alarms.
  expect(allowing('cloudwatch:DisableAlarmActions', 'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:Prod-HighCpu')).toEqual([]);
  // SendCommand reaches only instances tagged as generators, and PutMetricData only the rig's namespace.
  const onInstances = allowing('ssm:SendCommand', RIG.instance);
  expect(onInstances.map((s) => s.Condition)).toEqual([{ StringEquals: { 'ssm:resourceTag/loadtest-rig:role': 'generator' } }]);
  expect(allowing('cloudwatch:PutMetricData', '*').map((s) => s.Condition)).toEqual([{ StringEquals: { 'cloudwatch:namespace': 'LoadTestRig' } }]);
});

test('deploy and teardown go through the CDK bootstrap roles; the policy grants nothing on IAM itself and no Deny is needed', () => {
  expect(allowing('sts:AssumeRole', 'arn:aws:iam::123456789012:role/cdk-hnb659fds-deploy-role-123456789012-eu-west-1')).toHaveLength(1);
  expect(allowing('sts:AssumeRole', 'arn:aws:iam::123456789012:role/Admin')).toEqual([]);
  expect(policy.Statement.flatMap((s) => list(s.Action)).filter((a) => /^iam:|^\*$|:\*$/.test(a))).toEqual([]);
  expect(policy.Version).toBe('2012-10-17');
  expect(new Set(policy.Statement.map((s) => s.Sid)).size).toBe(policy.Statement.length);
});

test('the policy\'s rig names follow the stacks, the namespace and the generator tag the code uses', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { RIG_STACK_NAMES } = require('../../scripts/platforms/aws/discovery') as { RIG_STACK_NAMES: Record<string, string> };
  expect(RIG_STACK_NAMES.generators).toBe('LoadTestRig-Generators');
  const text = fs.readFileSync(path.join(ROOT, 'bin', 'rig.ts'), 'utf8');
  expect(text).toContain("RIG_METRICS_NAMESPACE = 'LoadTestRig'");
  expect(fs.readFileSync(path.join(ROOT, 'lib', 'generator-fleet.ts'), 'utf8')).toContain("GENERATOR_ROLE_TAG = { key: 'loadtest-rig:role', value: 'generator' }");
});

test('AZRebalance is suspended and resumed (fleet-processes.ts, through AwsApi) on the rig\'s generator and target groups only', () => {
  const actions = [...IAM_ACTIONS.suspendProcesses, ...IAM_ACTIONS.resumeProcesses];
  expect(actions).toEqual(['autoscaling:SuspendProcesses', 'autoscaling:ResumeProcesses']);
  for (const action of actions) {
    for (const group of [RIG.group, RIG.targetGroup]) expect({ action, group, n: allowing(action, group).length }).toEqual({ action, group, n: 1 });
    expect(allowing(action, RIG.group.replace('LoadTestRig-Generators-', 'Prod-'))).toEqual([]);
    expect(allowing(action, '*')).toEqual([]);
  }
});
