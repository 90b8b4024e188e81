import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RawContext, parseRigConfig } from '../../lib/config';
import { Rig, buildRig } from '../../bin/rig';

// aws-cdk-lib's own StepScalingPolicy passes a deprecated prop internally; keep test output readable.
process.env.JSII_DEPRECATED = 'quiet';

/** A rig built from raw context the way bin/app.ts builds it (without cdk-nag unless asked). */
export function buildTestRig(context: RawContext = {}): { app: App; rig: Rig } {
  const app = new App();
  const rig = buildRig(app, parseRigConfig(context));
  return { app, rig };
}

/** The target stack of a rig, failing the test if there is none. */
export function targetOf(rig: Rig): Stack {
  if (!rig.target) throw new Error('this rig has no target stack');
  return rig.target;
}

type Cfn = string | number | boolean | null | Cfn[] | { [k: string]: Cfn };

/** Renders a CloudFormation string expression (Fn::Join, Ref, Fn::GetAtt, …) to text with `<token>` placeholders. */
export function renderCfnString(v: Cfn): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v && !Array.isArray(v) && typeof v === 'object') {
    const join = v['Fn::Join'];
    if (Array.isArray(join)) {
      const [sep, parts] = join as [string, Cfn[]];
      return parts.map(renderCfnString).join(sep);
    }
    if ('Fn::Base64' in v) return renderCfnString(v['Fn::Base64'] as Cfn);
    if ('Ref' in v) return `<${String(v.Ref)}>`;
    if ('Fn::GetAtt' in v) return `<${(v['Fn::GetAtt'] as string[]).join('.')}>`;
    if ('Fn::Sub' in v) return String(v['Fn::Sub']);
  }
  return `<${JSON.stringify(v)}>`;
}

/** The rendered user-data of the only launch template in a template. */
export function launchTemplateUserData(template: Template): string {
  const lts = Object.values(template.findResources('AWS::EC2::LaunchTemplate')) as { Properties: { LaunchTemplateData: { UserData: Cfn } } }[];
  if (lts.length !== 1) throw new Error(`expected one launch template, found ${lts.length}`);
  return renderCfnString(lts[0]!.Properties.LaunchTemplateData.UserData);
}
