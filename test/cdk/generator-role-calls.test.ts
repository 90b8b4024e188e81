/**
 * Every AWS call a generator makes is allowed by the synthesized generator role, and on the resources
 * it touches: the calls are read from the sources that run on the instance (the agent's SDK commands,
 * the AWS CLI calls of the secrets path and of the dispatched command, the CloudWatch agent's install, SSM Agent's
 * upload of a command's output),
 * so a new call fails here until the role grants it — and the role grants nothing the calls do not need.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildTestRig } from './helpers';

const ROOT = path.resolve(__dirname, '..', '..');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.name === 'node_modules') return [];
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

/** The generator's AWS calls, as `sdk:<Command>`, `cli:<service> <command>` or `cwagent`. */
function generatorCalls(): Set<string> {
  const calls = new Set<string>();
  const sources = [...filesUnder(path.join(ROOT, 'load-generators')), path.join(ROOT, 'scripts', 'platforms', 'aws', 'bundle.ts')];
  for (const file of sources) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\bs3\(\)\.(\w+)Command\b|new (?:\w+\.)?(\w+)Command\(/g)) calls.add(`sdk:${m[1] ?? m[2]}`);
    for (const m of text.matchAll(/\baws (s3|ssm|cloudwatch|ec2|sts|logs) ([a-z-]+)/g)) calls.add(`cli:${m[1]} ${m[2]}`);
    for (const m of text.matchAll(/'(s3|ssm|cloudwatch|ec2|sts|logs)', '([a-z-]+)'/g)) calls.add(`cli:${m[1]} ${m[2]}`);
    if (/amazon-cloudwatch-agent/.test(text)) calls.add('cwagent');
  }
  // SSM Agent uploads each Run Command's output with the instance's role when the CLI names a bucket for it.
  if (/\bOutputS3BucketName\b/.test(fs.readFileSync(path.join(ROOT, 'scripts', 'platforms', 'aws', 'fleet-launch.ts'), 'utf8'))) calls.add('ssm-output');
  return calls;
}

/** What each call needs: actions, and the resource shape they must be granted on. */
const NEEDS: Record<string, Array<{ action: string; on: 'runs-objects' | 'bucket-unconditioned' | 'secrets-path' | 'star-cwagent' | 'star' }>> = {
  'sdk:PutObject': [{ action: 's3:PutObject', on: 'runs-objects' }],
  // A key that may not exist yet (the agent polls control/start.json) is absent (404 NoSuchKey) only to a caller with
  // s3:ListBucket on the bucket; anyone else gets 403 AccessDenied (S3 API Reference, GetObject, "Permissions").
  'sdk:GetObject': [{ action: 's3:GetObject', on: 'runs-objects' }, { action: 's3:ListBucket', on: 'bucket-unconditioned' }],
  'sdk:ListObjectsV2': [{ action: 's3:ListBucket', on: 'bucket-unconditioned' }],
  'cli:s3 sync': [{ action: 's3:ListBucket', on: 'bucket-unconditioned' }, { action: 's3:GetObject', on: 'runs-objects' }],
  'cli:s3 cp': [{ action: 's3:PutObject', on: 'runs-objects' }],
  'sdk:GetParametersByPath': [{ action: 'ssm:GetParametersByPath', on: 'secrets-path' }],
  cwagent: [{ action: 'cloudwatch:PutMetricData', on: 'star-cwagent' }, { action: 'ec2:DescribeTags', on: 'star' }],
  // SSM User Guide, "Create a custom S3 bucket policy for an instance profile": PutObject, and GetEncryptionConfiguration
  // on the bucket itself when it is encrypted; PutObjectAcl only for a bucket in another account (not granted).
  'ssm-output': [{ action: 's3:PutObject', on: 'runs-objects' }, { action: 's3:GetEncryptionConfiguration', on: 'bucket-unconditioned' }],
};

interface St { Action: string | string[]; Resource: unknown; Condition?: unknown; Effect: string }

test('each AWS call made on a generator is granted by the generator role on what it touches', () => {
  const calls = generatorCalls();
  expect([...calls].sort()).toEqual(expect.arrayContaining(['cli:s3 cp', 'cli:s3 sync', 'cwagent', 'sdk:GetObject', 'sdk:GetParametersByPath', 'sdk:ListObjectsV2', 'sdk:PutObject', 'ssm-output']));
  const unknown = [...calls].filter((c) => !NEEDS[c]);
  expect({ unknown, fix: 'map the call in NEEDS and grant it in lib/generator-fleet.ts' }).toEqual({ unknown: [], fix: expect.any(String) });

  const t = Template.fromStack(buildTestRig({}).rig.generators);
  const statements = Object.values(t.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: Match.stringLikeRegexp('^FleetRole') }] } }))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as St[]);
  const granting = (action: string) => statements.filter((s) => s.Effect === 'Allow' && [s.Action].flat().includes(action));
  const shapes: Record<string, (s: St) => void> = {
    'runs-objects': (s) => expect(s.Resource).toEqual({ 'Fn::Join': ['', [expect.objectContaining({ 'Fn::GetAtt': [expect.stringMatching(/^ResultsBucket/), 'Arn'] }), '/runs/*']] }),
    'bucket-unconditioned': (s) => {
      expect(s.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ResultsBucket/), 'Arn'] });
      // No s3:prefix condition: a GetObject request has no s3:prefix key, and a condition on an absent key does not
      // match (IAM User Guide, "IAM JSON policy elements: Condition"), so S3's 404-or-403 check would see no ListBucket.
      expect(s.Condition).toBeUndefined();
    },
    'secrets-path': (s) => expect(JSON.stringify(s.Resource)).toContain(':parameter/loadtest-rig/secrets/*'),
    'star-cwagent': (s) => {
      expect(s.Resource).toBe('*');
      expect(s.Condition).toEqual({ StringEquals: { 'cloudwatch:namespace': 'CWAgent' } });
    },
    star: (s) => expect(s.Resource).toBe('*'),
  };
  for (const call of calls) {
    for (const need of NEEDS[call] ?? []) {
      const found = granting(need.action);
      expect({ call, action: need.action, statements: found.length }).toEqual({ call, action: need.action, statements: 1 });
      shapes[need.on]?.(found[0] as St);
    }
  }
  // And nothing beyond what the calls need, besides the agent bundle's read (asset.grantRead) and SSM core.
  const needed = new Set(Object.values(NEEDS).flat().map((n) => n.action));
  const extra = statements
    .filter((s) => !JSON.stringify(s.Resource).includes('cdk-hnb659fds-assets'))
    .flatMap((s) => [s.Action].flat())
    .filter((a) => !needed.has(a));
  expect(extra).toEqual([]);
});
