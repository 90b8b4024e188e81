import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { parseRigConfig } from '../../lib/config';
import { buildRig } from '../../bin/rig';

const ROOT = path.join(__dirname, '../..');

function synthWithNag(context: Record<string, unknown>, extra?: (app: App) => void): void {
  const app = new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'rig-nag-')) });
  buildRig(app, parseRigConfig(context));
  extra?.(app);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
}

describe('cdk-nag AwsSolutionsChecks', () => {
  test.each(['ec2', 'fargate', 'none'])('targetKind=%s has no unacknowledged finding', (targetKind) => {
    expect(() => synthWithNag({ targetKind })).not.toThrow();
  });

  // AwsSolutions-VPC7, "The VPC does not have an associated Flow Log": met by a flow log on the VPC whatever it records
  // (cdk-nag rules/vpc/VPCFlowLogsEnabled checks ResourceType VPC and the VPC's id, not TrafficType), so the rig's
  // default REJECT-only flow logs keep it, and a VPC without one still fails.
  test('flow logs of rejected traffic only (the default) or all traffic meet AwsSolutions-VPC7; a VPC without a flow log does not', () => {
    expect(() => synthWithNag({ targetKind: 'none', flowLogTraffic: 'ALL' })).not.toThrow();
    expect(() => synthWithNag({ targetKind: 'none' }, (app) => new ec2.Vpc(new Stack(app, 'Extra'), 'NoFlowLog', { natGateways: 0, subnetConfiguration: [{ name: 'p', subnetType: ec2.SubnetType.PUBLIC }] }))).toThrow(/AwsSolutions-VPC7/);
  });

  test('an unacknowledged finding fails the synth', () => {
    expect(() => synthWithNag({ targetKind: 'none' }, (app) => new s3.Bucket(new Stack(app, 'Extra'), 'NoSsl'))).toThrow(/AwsSolutions-S10/);
  });
});

describe('bin/app.ts', () => {
  // Each synth's output folder, removed after the tests (a cdk.out of ~MBs per run piled up in the temp directory).
  const outDirs: string[] = [];
  const outDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-bin-'));
    outDirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of outDirs) fs.rmSync(d, { recursive: true, force: true });
  });
  const runApp = (context: Record<string, unknown>) => spawnSync(
    path.join(ROOT, 'node_modules/.bin/ts-node'), ['--transpile-only', 'bin/app.ts'],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CDK_OUTDIR: outDir(), CDK_CONTEXT_JSON: JSON.stringify(context) },
    },
  );

  test('a bad context value fails synth naming the key and the allowed values', () => {
    const r = runApp({ targetKind: 'kubernetes' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/context "targetKind" is "kubernetes"; allowed: ec2 \| fargate \| none/);
  });

  test('the stacks have stable names', () => {
    const out = outDir();
    const r = spawnSync(path.join(ROOT, 'node_modules/.bin/ts-node'), ['--transpile-only', 'bin/app.ts'], {
      cwd: ROOT, encoding: 'utf8', env: { ...process.env, CDK_OUTDIR: out, CDK_CONTEXT_JSON: JSON.stringify({ targetKind: 'ec2' }) },
    });
    expect(r.status).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { artifacts: Record<string, { type: string }> };
    const stacks = Object.entries(manifest.artifacts).filter(([, a]) => a.type === 'aws:cloudformation:stack').map(([id]) => id).sort();
    expect(stacks).toEqual(['LoadTestRig-Generators', 'LoadTestRig-Network', 'LoadTestRig-Target']);
  });
});
