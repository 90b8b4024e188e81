import { Annotations, IAspect, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { IConstruct } from 'constructs';

/**
 * Fails `cdk synth` (an error annotation on the launch template, one line each) when a launch template leaves to the
 * account or the image what the rig's instances depend on. moto neither applies account-level defaults nor keeps
 * volumes, so only the template can show this. The EC2 rules it relies on:
 *
 * - **The metadata endpoint.** An account can set Region-wide instance metadata defaults, `HttpEndpoint=disabled`
 *   among them (EC2 API Reference, ModifyInstanceMetadataDefaults), and they apply to every launch whose own
 *   parameters do not set the option (EC2 User Guide, "Order of precedence for instance metadata options"). The launch
 *   parameters come first; the account's defaults come before the AMI's own setting, which concerns HttpTokens only: "If
 *   the value of ImdsSupport for the Amazon Machine Image (AMI) for your instance is v2.0, but the account level default
 *   is set to V1 or V2, the default is optional" (EC2 API Reference, InstanceMetadataOptionsRequest, HttpTokens). The
 *   endpoint is also how an instance reads its user data (EC2 User Guide, "Work with instance user data": "view user data
 *   from your instance through the Instance Metadata Service (IMDS)"), so with it disabled cloud-init finds none and the
 *   boot never starts; nor does the instance get role credentials (the SSM agent never registers: no Run Command, so no
 *   run; a target never signals). So a launch template with user data or an instance profile sets `HttpEndpoint:
 *   enabled` itself, and with a profile `HttpTokens: required` too: only the template decides either.
 * - **The volumes.** An EBS mapping without `DeleteOnTermination` takes the AMI's own value (EC2 User Guide, "Preserve
 *   data when an instance is terminated": the default at launch is the AMI's attribute; a preserved volume "continues to
 *   incur charges"). The stacks resolve the newest Amazon Linux image at every deploy, and the docs suggest pinning an
 *   image of your own: one whose root persists would leave a billing volume behind every generator of every run. So each
 *   EBS mapping says `DeleteOnTermination: true`.
 * - **The boot's S3 downloads.** An `aws s3 cp`/`sync` in user data names `--region`: the rig's VPCs behind NAT route
 *   this region's S3 traffic through a gateway endpoint, which carries only requests to the bucket's regional endpoint
 *   (VPC User Guide, "Gateway endpoints for Amazon S3"; CDK's S3DownloadOptions.region: "needed for access via VPC
 *   Gateway"). Without it the CLI asks its default or us-east-1 first: billed NAT traffic at best, and a bucket in an
 *   opt-in region is not served through the global endpoint. So each one passes `region` to addS3DownloadCommand.
 */
export class InstanceLaunchCheck implements IAspect {
  public visit(node: IConstruct): void {
    if (!(node instanceof ec2.CfnLaunchTemplate)) return;
    const data = Stack.of(node).resolve(node.launchTemplateData) as LaunchTemplateData | undefined;
    if (!data) return;
    const where = `launch template ${node.node.path}`;
    const md = data.metadataOptions ?? {};
    if ((data.iamInstanceProfile !== undefined || data.userData !== undefined) && md.httpEndpoint !== 'enabled') {
      Annotations.of(node).addError(
        `${where} does not set MetadataOptions.HttpEndpoint to enabled: an account-level IMDS default of HttpEndpoint=disabled (ModifyInstanceMetadataDefaults) would apply to its instances, ` +
          'which then read no user data (the boot never starts) and get no instance-role credentials (no SSM registration, no run); set httpEndpoint: true on the launch template',
      );
    }
    if (data.iamInstanceProfile !== undefined) {
      if (md.httpTokens !== 'required') {
        Annotations.of(node).addError(`${where} does not require IMDSv2 (MetadataOptions.HttpTokens: required); set requireImdsv2: true on the launch template`);
      }
    }
    for (const line of userDataLines(data.userData)) {
      if (/\baws s3 (cp|sync)\b/.test(line) && !/\s--region\s+\S/.test(line)) {
        Annotations.of(node).addError(
          `${where}: its user data runs \`${line.trim().slice(0, 120)}\` without --region, so the AWS CLI asks its default or us-east-1 first instead of the bucket's regional endpoint (the one the VPC's S3 gateway endpoint carries); pass region to addS3DownloadCommand`,
        );
      }
    }
    for (const m of data.blockDeviceMappings ?? []) {
      if (m.ebs && m.ebs.deleteOnTermination !== true) {
        Annotations.of(node).addError(
          `${where} maps ${m.deviceName ?? 'an EBS volume'} without DeleteOnTermination: true, so the image's own setting decides, and an image whose volume persists ` +
            'leaves a billing volume behind every instance the group terminates; pass deleteOnTermination: true to BlockDeviceVolume.ebs',
        );
      }
    }
  }
}

/**
 * The user data's lines as text, a CloudFormation token (`{ Ref: … }`, `{ "Fn::GetAtt": … }`) standing as `<token>`:
 * CDK renders user data as `Fn::Base64` of an `Fn::Join` of strings and tokens.
 */
function userDataLines(userData: unknown): string[] {
  const text = (v: unknown): string => {
    if (typeof v === 'string') return v;
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o['Fn::Base64'] !== undefined) return text(o['Fn::Base64']);
      const join = o['Fn::Join'];
      if (Array.isArray(join) && typeof join[0] === 'string' && Array.isArray(join[1])) return join[1].map(text).join(join[0]);
    }
    return '<token>';
  };
  return userData === undefined ? [] : text(userData).split('\n');
}

/** The parts of a resolved `LaunchTemplateData` this check reads (CDK's camel-case L1 shape). */
interface LaunchTemplateData {
  readonly iamInstanceProfile?: unknown;
  readonly userData?: unknown;
  readonly metadataOptions?: { readonly httpEndpoint?: string; readonly httpTokens?: string };
  readonly blockDeviceMappings?: ReadonlyArray<{ readonly deviceName?: string; readonly ebs?: { readonly deleteOnTermination?: boolean } }>;
}
