/**
 * What a launch template must not leave to the account or the image (lib/instance-launch-check.ts): the metadata
 * endpoint (an account-level IMDS default of HttpEndpoint=disabled applies to launches that do not set it, EC2 User
 * Guide, "Order of precedence for instance metadata options") and each EBS volume's DeleteOnTermination (unset, the
 * AMI's own value decides, EC2 User Guide, "Preserve data when an instance is terminated"). moto applies no account
 * defaults and keeps no volumes: the template is where this shows.
 */
import { App, Aspects, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { InstanceLaunchCheck } from '../../lib/instance-launch-check';
import { buildTestRig } from './helpers';

describe("the rig's launch templates", () => {
  test.each([
    ['ec2 target, generators', {}],
    ['generators in two regions', { generatorRegions: 'eu-west-2,us-east-1' }],
    ['fargate target', { targetKind: 'fargate' }],
  ])('%s: every launch template enables the metadata endpoint, requires IMDSv2 and deletes its volumes on termination', (_what, context) => {
    const { app, rig } = buildTestRig(context);
    const stacks: Stack[] = [rig.network, rig.generators, ...rig.regional, ...(rig.target ? [rig.target] : [])];
    const templates = stacks.flatMap((s) => Object.values(Template.fromStack(s).findResources('AWS::EC2::LaunchTemplate')) as Array<{ Properties: { LaunchTemplateData: Record<string, unknown> } }>);
    expect(templates.length).toBeGreaterThan(0);
    for (const lt of templates) {
      const data = lt.Properties.LaunchTemplateData as { MetadataOptions?: Record<string, unknown>; BlockDeviceMappings?: Array<{ Ebs?: { DeleteOnTermination?: boolean } }> };
      expect(data.MetadataOptions).toMatchObject({ HttpEndpoint: 'enabled', HttpTokens: 'required', HttpPutResponseHopLimit: 1 });
      expect(data.BlockDeviceMappings?.length).toBeGreaterThan(0);
      for (const m of data.BlockDeviceMappings ?? []) expect(m.Ebs?.DeleteOnTermination).toBe(true);
    }
    // And the synth rule is on the app: none of its launch templates is flagged.
    for (const s of stacks) expect(Annotations.fromStack(s).findError('*', Match.stringLikeRegexp('launch template'))).toEqual([]);
    void app;
  });

  // The rule above finds nothing in the rig's own templates, which it would also do were it not on the app at all
  // (bin/rig.ts: Aspects.of(app).add(new InstanceLaunchCheck())): a bad template beside the rig's shows it is.
  test("the rule is on the rig's app: a launch template beside the rig's that leaves both to the account and the image fails its synth", () => {
    const { app } = buildTestRig({});
    const extra = new Stack(app, 'Extra');
    new ec2.LaunchTemplate(extra, 'Lt', {
      instanceType: new ec2.InstanceType('c5.large'),
      machineImage: ec2.MachineImage.latestAmazonLinux2023(),
      role: new iam.Role(extra, 'Role', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') }),
      requireImdsv2: true,
      blockDevices: [{ deviceName: '/dev/xvda', volume: ec2.BlockDeviceVolume.ebs(20, { encrypted: true }) }],
    });
    app.synth();
    const found = Annotations.fromStack(extra).findError('*', Match.anyValue()).map((e) => String(e.entry.data));
    expect(found).toEqual([
      expect.stringMatching(/^launch template Extra\/Lt\/Resource does not set MetadataOptions\.HttpEndpoint to enabled/),
      expect.stringMatching(/^launch template Extra\/Lt\/Resource .*DeleteOnTermination/),
    ]);
  }, 120_000);
});

describe('synth rule: a launch template leaves neither the metadata endpoint nor its volumes to the account or the image', () => {
  function launchTemplate(props: Partial<ec2.LaunchTemplateProps>): string[] {
    const app = new App();
    Aspects.of(app).add(new InstanceLaunchCheck());
    const stack = new Stack(app, 'S');
    new ec2.LaunchTemplate(stack, 'Lt', {
      instanceType: new ec2.InstanceType('c5.large'),
      machineImage: ec2.MachineImage.latestAmazonLinux2023(),
      role: new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') }),
      ...props,
    });
    app.synth();
    return Annotations.fromStack(stack).findError('*', Match.anyValue()).map((e) => String(e.entry.data));
  }
  const ebs = (deleteOnTermination?: boolean) => [{ deviceName: '/dev/xvda', volume: ec2.BlockDeviceVolume.ebs(20, { encrypted: true, ...(deleteOnTermination === undefined ? {} : { deleteOnTermination }) }) }];

  test('an account-level HttpEndpoint=disabled would apply to a template that does not enable the endpoint: refused', () => {
    const found = launchTemplate({ requireImdsv2: true, blockDevices: ebs(true) });
    expect(found).toEqual([expect.stringMatching(/^launch template S\/Lt\/Resource does not set MetadataOptions\.HttpEndpoint to enabled: an account-level IMDS default of HttpEndpoint=disabled .*; set httpEndpoint: true on the launch template$/)]);
  });

  test('IMDSv1 left on is refused', () => {
    expect(launchTemplate({ httpEndpoint: true, blockDevices: ebs(true) })).toEqual([expect.stringMatching(/does not require IMDSv2/)]);
  });

  test("a volume without DeleteOnTermination takes the image's setting: refused, and false is refused too", () => {
    for (const dot of [undefined, false]) {
      expect(launchTemplate({ httpEndpoint: true, requireImdsv2: true, blockDevices: ebs(dot) })).toEqual([
        expect.stringMatching(/maps \/dev\/xvda without DeleteOnTermination: true, so the image's own setting decides/),
      ]);
    }
  });

  test('endpoint enabled, IMDSv2 required, volumes deleted on termination: passes; a template without a role or user data is not asked about the endpoint', () => {
    expect(launchTemplate({ httpEndpoint: true, requireImdsv2: true, blockDevices: ebs(true) })).toEqual([]);
    const app = new App();
    Aspects.of(app).add(new InstanceLaunchCheck());
    const stack = new Stack(app, 'NoRole');
    new ec2.LaunchTemplate(stack, 'Lt', { instanceType: new ec2.InstanceType('t3.small') });
    app.synth();
    expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toEqual([]);
  });

  // An instance reads its user data from the metadata service (EC2 User Guide, "Work with instance user data": "view
  // user data from your instance through the Instance Metadata Service (IMDS)"): with the endpoint disabled by an
  // account default, a boot script never runs, role or not.
  test('a template with user data and no role is asked about the endpoint too: its boot reads the user data from IMDS', () => {
    const app = new App();
    Aspects.of(app).add(new InstanceLaunchCheck());
    const stack = new Stack(app, 'UserDataOnly');
    const userData = ec2.UserData.forLinux();
    userData.addCommands('echo boot');
    new ec2.LaunchTemplate(stack, 'Lt', { instanceType: new ec2.InstanceType('t3.small'), userData });
    app.synth();
    expect(Annotations.fromStack(stack).findError('*', Match.anyValue()).map((e) => String(e.entry.data))).toEqual([
      expect.stringMatching(/does not set MetadataOptions\.HttpEndpoint to enabled: .*which then read no user data \(the boot never starts\)/),
    ]);
  });

  // The VPC User Guide, "Gateway endpoints for Amazon S3": the endpoint carries requests to the bucket's regional
  // endpoint; CDK's S3DownloadOptions.region is "needed for access via VPC Gateway".
  test("a boot that downloads from S3 without --region is refused; with the bucket's region it passes", () => {
    const found = (region?: string) => {
      const app = new App();
      Aspects.of(app).add(new InstanceLaunchCheck());
      const stack = new Stack(app, 'Boot', { env: { region: 'eu-west-1' } });
      const userData = ec2.UserData.forLinux();
      const bucket = new s3.Bucket(stack, 'B');
      userData.addS3DownloadCommand({ bucket, bucketKey: 'agent.zip', localFile: '/opt/agent.zip', ...(region ? { region } : {}) });
      new ec2.LaunchTemplate(stack, 'Lt', { instanceType: new ec2.InstanceType('t3.small'), userData, httpEndpoint: true });
      app.synth();
      return Annotations.fromStack(stack).findError('*', Match.anyValue()).map((e) => String(e.entry.data));
    };
    expect(found()).toEqual([expect.stringMatching(/^launch template Boot\/Lt\/Resource: its user data runs `aws s3 cp 's3:\/\/<token>\/agent\.zip' '\/opt\/agent\.zip'` without --region, .*pass region to addS3DownloadCommand$/)]);
    expect(found('eu-west-1')).toEqual([]);
  });
});
