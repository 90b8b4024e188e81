import * as path from 'node:path';
import { Arn, ArnFormat, Duration, RemovalPolicy, Stack, Tags } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import { Construct } from 'constructs';
import { S3_READ_WILDCARD_ACTIONS, acknowledge, assetBucketObjects, iam4, iam5, regionInFinding } from './nag';
import { AGENT_PACKAGES } from './agent-lockfile';
import { RIG_HOME, REPO_ROOT, amazonLinuxCpuType, bootFinished, bootStep, installNodeCommands, pinnedNodeVersion, userDataPreamble, writeAgentTree } from './user-data';

/** Tag every generator instance carries; the CLI finds generators by it. */
export const GENERATOR_ROLE_TAG = { key: 'loadtest-rig:role', value: 'generator' } as const;

/** Properties of {@link GeneratorFleet}. */
export interface GeneratorFleetProps {
  /** VPC the generators run in. */
  readonly vpc: ec2.IVpc;
  /**
   * Subnets of the group, and whether instances get a public IP of their own (not behind NAT).
   * @default public subnets, public IP
   */
  readonly subnets?: { readonly selection: ec2.SubnetSelection; readonly publicIp: boolean };
  /** Security group with no inbound rules (runs are dispatched through SSM). */
  readonly securityGroup: ec2.ISecurityGroup;
  /** Bucket the agents read run slices from and write results to; the only bucket they may touch. */
  readonly resultsBucket: s3.IBucket;
  /**
   * Instance type of every generator.
   * @default c5.large
   */
  readonly instanceType?: ec2.InstanceType;
  /**
   * Upper bound of the group; the orchestrator sets desired capacity up to this.
   * @default 10
   */
  readonly maxGenerators?: number;
  /**
   * Secondary private IPv4 addresses on each generator's network interface. The agent spreads its load
   * processes over the instance's addresses (load-generators/lib/source-addresses.js), so one generator
   * holds more than one address's ~64k ephemeral ports of connections to one target address:port when
   * memory allows. On Amazon Linux 2023, amazon-ec2-net-utils configures secondary IPv4s of the primary
   * interface in the OS (with per-interface policy routing) by itself. They have no public IPv4 mapping,
   * so the agent uses them only for targets reached on private addresses (inside the VPC).
   * @default 1
   */
  readonly secondaryPrivateIps?: number;
  /**
   * Generators running longer than this are scaled to zero by the safety net.
   * @default Duration.minutes(180)
   */
  readonly maxLifetime?: Duration;
  /**
   * SSM Parameter Store prefix (SecureString) for scenario secrets the generators may read.
   * @default '/loadtest-rig/secrets/'
   */
  readonly secretsParameterPrefix?: string;
  /**
   * The customer-managed KMS key of the SecureString secrets, when not the account's `aws/ssm` key:
   * the generators get kms:Decrypt on it (the key policy must allow IAM policies of the account, the default).
   * @default - the AWS managed key aws/ssm, which needs no grant
   */
  readonly secretsKey?: kms.IKey;
  /**
   * Directory shipped to every generator as the agent bundle.
   * @default the repository's load-generators/ directory
   */
  readonly agentDirectory?: string;
  /**
   * npm packages installed next to the agent, with everything they need, exactly as the repository's
   * package-lock.json pins them (lib/agent-lockfile.ts), by `npm ci`.
   * @default AGENT_PACKAGES
   */
  readonly agentPackages?: readonly string[];
}

/**
 * The generator fleet: an auto-scaling group at zero until a run scales it, tuned hosts with Node 22,
 * pinned Artillery and the agent, reachable only through SSM, plus a safety net that scales it back
 * to zero when instances outlive a run.
 */
export class GeneratorFleet extends Construct implements iam.IGrantable {
  /** The generator auto-scaling group. */
  public readonly autoScalingGroup: autoscaling.AutoScalingGroup;
  /** The instance role. */
  public readonly role: iam.IRole;
  /** @inheritdoc */
  public readonly grantPrincipal: iam.IPrincipal;
  /** Lambda that enforces the maximum lifetime. */
  public readonly safetyNet: lambda.IFunction;
  /** Where the agent bundle is unpacked on each generator (agent.js lives here). */
  public readonly agentHome = `${RIG_HOME}/load-generators`;

  constructor(scope: Construct, id: string, props: GeneratorFleetProps) {
    super(scope, id);
    const maxGenerators = props.maxGenerators ?? 10;
    const maxLifetime = props.maxLifetime ?? Duration.minutes(180);
    const secondaryPrivateIps = props.secondaryPrivateIps ?? 1;
    if (!Number.isInteger(secondaryPrivateIps) || secondaryPrivateIps < 0 || secondaryPrivateIps > 49) {
      throw new Error(`secondaryPrivateIps must be a whole number from 0 to 49 (got ${secondaryPrivateIps}); the instance type's own per-interface limit applies at launch`);
    }
    const prefix = props.secretsParameterPrefix ?? '/loadtest-rig/secrets/';
    if (!/^\/[A-Za-z0-9_./-]+\/$/.test(prefix)) {
      throw new Error(`secretsParameterPrefix "${prefix}" must start and end with "/", e.g. /loadtest-rig/secrets/`);
    }

    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
      description: 'loadtest-rig generator: SSM-managed, results bucket only, rig metrics',
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('AmazonSSMManagedInstanceCore')],
    });
    this.role = role;
    this.grantPrincipal = role;
    // Users' processors run on generators: get/put under runs/ only, no delete, no bucket settings.
    this.grantRunsReadWrite(props.resultsBucket);
    this.grantGeneratorPolicies(props, prefix);
    const secretsFinding = `Resource::arn:<AWS::Partition>:ssm:${regionInFinding(this)}:<AWS::AccountId>:parameter${prefix}*`;

    const userData = this.bootUserData(props);
    const launchTemplate = this.createLaunchTemplate(props, userData, secondaryPrivateIps);

    const asg = new autoscaling.AutoScalingGroup(this, 'Group', {
      vpc: props.vpc,
      vpcSubnets: props.subnets?.selection ?? { subnetType: ec2.SubnetType.PUBLIC },
      launchTemplate,
      minCapacity: 0,
      maxCapacity: maxGenerators,
      // No desiredCapacity: CloudFormation would reset a running fleet to it on every deploy.
      groupMetrics: [autoscaling.GroupMetrics.all()],
      healthChecks: autoscaling.HealthChecks.ec2({ gracePeriod: Duration.minutes(5) }),
      cooldown: Duration.seconds(60),
    });
    Tags.of(asg).add(GENERATOR_ROLE_TAG.key, GENERATOR_ROLE_TAG.value, { applyToLaunchedInstances: true });
    this.autoScalingGroup = asg;

    this.safetyNet = this.createSafetyNet(asg, maxLifetime, props.resultsBucket);
    this.acknowledgeFindings(asg, role, props.resultsBucket, secretsFinding);
  }

  /**
   * What the generator's own software needs besides the run store: CloudWatch agent metrics, its tags, the
   * scenario secrets under `prefix` (and their key, through SSM only).
   */
  private grantGeneratorPolicies(props: GeneratorFleetProps, prefix: string): void {
    // The CloudWatch agent (install-generator.sh) publishes memory, connections and open files to CWAgent;
    // the rig's own metrics are published by the operator's CLI, not the generators. PutMetricData and
    // DescribeTags have no resource-level permissions; AWS requires "*", the condition keeps the namespace.
    this.role.addToPrincipalPolicy(new iam.PolicyStatement({
      actions: ['cloudwatch:PutMetricData'],
      resources: ['*'],
      conditions: { StringEquals: { 'cloudwatch:namespace': 'CWAgent' } },
    }));
    // The CloudWatch agent resolves ${aws:AutoScalingGroupName} through DescribeTags.
    this.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['ec2:DescribeTags'], resources: ['*'] }));
    // The secrets path (load-generators/lib/secrets.js) reads with GetParametersByPath only; the CloudWatch
    // agent's configuration is a local file, so no GetParameter(s).
    this.role.addToPrincipalPolicy(new iam.PolicyStatement({
      actions: ['ssm:GetParametersByPath'],
      resources: [Stack.of(this).formatArn({ service: 'ssm', resource: 'parameter', resourceName: `${prefix.slice(1)}*` })],
    }));
    // SecureStrings under a customer-managed key need kms:Decrypt on it, and only through SSM.
    if (props.secretsKey) {
      this.role.addToPrincipalPolicy(new iam.PolicyStatement({
        actions: ['kms:Decrypt'],
        resources: [props.secretsKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `ssm.${Stack.of(this).region}.amazonaws.com` } },
      }));
    }
  }

  /** Boot script: the agent bundle and its dependency tree (S3 assets), host tuning, Node, the agent packages. */
  private bootUserData(props: GeneratorFleetProps): ec2.UserData {
    const agentBundle = new s3assets.Asset(this, 'AgentBundle', {
      path: props.agentDirectory ?? path.join(REPO_ROOT, 'load-generators'),
      exclude: ['node_modules', '**/node_modules', '*.log'],
    });
    agentBundle.grantRead(this.role);
    // The exact tree (package.json + package-lock.json cut from the repository's lockfile), shipped as its own asset.
    const agentDeps = new s3assets.Asset(this, 'AgentDependencies', { path: writeAgentTree(props.agentPackages ?? AGENT_PACKAGES) });
    agentDeps.grantRead(this.role);

    const userData = ec2.UserData.forLinux();
    userData.addCommands(...userDataPreamble());
    const zip = userData.addS3DownloadCommand({
      bucket: agentBundle.bucket,
      bucketKey: agentBundle.s3ObjectKey,
      localFile: `${RIG_HOME}/load-generators.zip`,
      // The bucket's regional endpoint, which the VPC's S3 gateway endpoint carries (lib/instance-launch-check.ts).
      region: Stack.of(this).region,
    });
    // Each step is named in the log before it runs, and the marker is written only after the last one: the
    // SSM command reports a failed boot by its step, and a cloud-init warning with the marker present is a boot.
    const depsZip = userData.addS3DownloadCommand({
      bucket: agentDeps.bucket,
      bucketKey: agentDeps.s3ObjectKey,
      localFile: `${RIG_HOME}/agent-dependencies.zip`,
      region: Stack.of(this).region,
    });
    userData.addCommands(
      bootStep('unpack agent bundle'),
      `rm -rf ${this.agentHome} && mkdir -p ${this.agentHome} && unzip -q -o ${zip} -d ${this.agentHome} && unzip -q -o ${depsZip} -d ${this.agentHome}`,
      bootStep('host tuning'),
      // The tuning script inside the agent bundle is the single source of the host tuning.
      `bash ${this.agentHome}/host-tuning.sh`,
      bootStep('install Node (checksum-verified)'),
      ...installNodeCommands(pinnedNodeVersion()),
      bootStep('install agent packages and CloudWatch agent'),
      `bash ${this.agentHome}/install-generator.sh ${this.agentHome}`,
      bootFinished(),
    );
    return userData;
  }

  /** The generators' launch template: IMDSv2 only, encrypted gp3 root, and the secondary private IPs when asked. */
  private createLaunchTemplate(props: GeneratorFleetProps, userData: ec2.UserData, secondaryPrivateIps: number): ec2.LaunchTemplate {
    const instanceType = props.instanceType ?? new ec2.InstanceType('c5.large');
    const launchTemplate = new ec2.LaunchTemplate(this, 'LaunchTemplate', {
      instanceType,
      // The image's architecture follows the instance type (Graviton types are arm64); user-data installs the
      // matching Node build (installNodeCommands picks linux-x64 or linux-arm64 from uname -m).
      machineImage: ec2.MachineImage.latestAmazonLinux2023({ cpuType: amazonLinuxCpuType(instanceType) }),
      role: this.role,
      securityGroup: props.securityGroup,
      userData,
      // Set here, not left to the account: an account-level IMDS default of HttpEndpoint=disabled applies to launches
      // that do not set it, and leaves the instance without role credentials (lib/instance-launch-check.ts).
      httpEndpoint: true,
      requireImdsv2: true,
      httpPutResponseHopLimit: 1,
      associatePublicIpAddress: props.subnets?.publicIp ?? true,
      // One-minute generator CPU on the dashboard during short runs.
      detailedMonitoring: true,
      blockDevices: [{ deviceName: '/dev/xvda', volume: ec2.BlockDeviceVolume.ebs(20, { encrypted: true, volumeType: ec2.EbsDeviceVolumeType.GP3, deleteOnTermination: true }) }],
    });

    if (secondaryPrivateIps > 0) {
      // The L2 LaunchTemplate builds the primary interface (public IP, security group) but has no
      // secondary-IP property: add it to that same interface.
      const cfn = launchTemplate.node.defaultChild as ec2.CfnLaunchTemplate;
      cfn.addPropertyOverride('LaunchTemplateData.NetworkInterfaces.0.SecondaryPrivateIpAddressCount', secondaryPrivateIps);
    }
    return launchTemplate;
  }

  /**
   * Get and put on `runs/*` of the results bucket and listing it: what the agent's run store and the dispatched
   * command's `aws s3 sync`/`cp` do; and reading its encryption setting, for SSM's command output. Nothing else.
   *
   * ListBucket has no `s3:prefix` condition: the agent polls keys that do not exist yet (control/start.json,
   * control/abort.json) and reads their absence from GetObject's 404, which S3 answers only to a caller with
   * s3:ListBucket on the bucket, and a 403 AccessDenied to anyone else (Amazon S3 API Reference, GetObject,
   * "Permissions"). A GetObject request carries no `s3:prefix` key, and a condition on a key absent from the
   * request does not match (IAM User Guide, "IAM JSON policy elements: Condition"), so a prefix-conditioned
   * grant would turn every not-yet-written control file into AccessDenied and end the agent. Every key of the
   * bucket is a run's (under `runs/`): listing it shows nothing else.
   */
  private grantRunsReadWrite(bucket: s3.IBucket): void {
    this.role.addToPrincipalPolicy(new iam.PolicyStatement({
      actions: ['s3:GetObject', 's3:PutObject'],
      resources: [bucket.arnForObjects('runs/*')],
    }));
    this.role.addToPrincipalPolicy(new iam.PolicyStatement({
      actions: ['s3:ListBucket'],
      resources: [bucket.bucketArn],
    }));
    // SSM Run Command writes each command's output here (OutputS3BucketName, under runs/<id>/ssm/) with the instance's
    // role. SSM User Guide, "Create a custom S3 bucket policy for an instance profile": s3:PutObject on the objects (above)
    // and s3:GetEncryptionConfiguration on the bucket "if your S3 bucket is configured to use encryption" (SSE-S3 here);
    // s3:PutObjectAcl "only if you plan to support cross-account access", which this same-account bucket is not (its
    // ACLs are disabled anyway: bucket-owner enforced; SSM Agent ignores a refused PutObjectAcl after the upload).
    this.role.addToPrincipalPolicy(new iam.PolicyStatement({
      actions: ['s3:GetEncryptionConfiguration'],
      resources: [bucket.bucketArn],
    }));
  }

  private createSafetyNet(asg: autoscaling.AutoScalingGroup, maxLifetime: Duration, bucket: s3.IBucket): lambda.IFunction {
    const logGroup = new logs.LogGroup(this, 'SafetyNetLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const fn = new lambda.Function(this, 'SafetyNet', {
      runtime: lambda.Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: lambda.Code.fromAsset(path.join(__dirname, 'safety-net')),
      timeout: Duration.seconds(30),
      memorySize: 128,
      logGroup,
      description: `Scales the generator group to 0 when an instance has run longer than ${maxLifetime.toMinutes()} minutes; restores target scale-in a killed run left suspended`,
      environment: {
        GENERATOR_ASG_NAME: asg.autoScalingGroupName,
        MAX_LIFETIME_MINUTES: String(maxLifetime.toMinutes()),
        RESULTS_BUCKET: bucket.bucketName,
      },
    });
    // DescribeInstances has no resource-level permissions; AWS requires "*".
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['ec2:DescribeInstances'], resources: ['*'] }));
    const groupArn = Arn.format({ service: 'autoscaling', resource: 'autoScalingGroup', arnFormat: ArnFormat.COLON_RESOURCE_NAME, resourceName: '*:autoScalingGroupName' }, Stack.of(this));
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['autoscaling:SetDesiredCapacity'], resources: [`${groupArn}/${asg.autoScalingGroupName}`] }));
    // AZRebalance a killed run left suspended on the generator or target group (lib/safety-net/scale-in-decision.js).
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['autoscaling:DescribeAutoScalingGroups'], resources: ['*'] }));
    fn.addToRolePolicy(new iam.PolicyStatement({
      actions: ['autoscaling:ResumeProcesses'],
      resources: [`${groupArn}/${asg.autoScalingGroupName}`, `${groupArn}/LoadTestRig-Target-*`],
    }));
    // Scale-in a killed run left suspended (lib/safety-net/scale-in-decision.js): its marks, and the target's alarms.
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [bucket.arnForObjects('runs/_scale-in/*')] }));
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn], conditions: { StringLike: { 's3:prefix': ['runs/_scale-in/*'] } } }));
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['cloudwatch:DescribeAlarms'], resources: ['*'] }));
    fn.addToRolePolicy(new iam.PolicyStatement({
      actions: ['cloudwatch:EnableAlarmActions'],
      resources: [Arn.format({ service: 'cloudwatch', resource: 'alarm', arnFormat: ArnFormat.COLON_RESOURCE_NAME, resourceName: 'LoadTestRig-Target-*' }, Stack.of(this))],
    }));
    new events.Rule(this, 'SafetyNetSchedule', {
      description: 'loadtest-rig: check generator lifetimes every 5 minutes',
      schedule: events.Schedule.rate(Duration.minutes(5)),
      targets: [new targets.LambdaFunction(fn)],
    });
    const asgLogicalId = Stack.of(this).getLogicalId(asg.node.defaultChild as autoscaling.CfnAutoScalingGroup);
    acknowledge(fn,
      { id: iam4('service-role/AWSLambdaBasicExecutionRole'), reason: 'AWSLambdaBasicExecutionRole only lets the safety net write its own logs.' },
      { id: iam5('Resource::*'), reason: 'ec2:DescribeInstances supports no resource-level permissions (AWS requirement); cloudwatch:DescribeAlarms and autoscaling:DescribeAutoScalingGroups are read-only, granted on * as in iam/operator-policy.json.' },
      { id: iam5(`Resource::arn:<AWS::Partition>:autoscaling:${regionInFinding(fn)}:<AWS::AccountId>:autoScalingGroup:*:autoScalingGroupName/LoadTestRig-Target-*`), reason: 'ResumeProcesses only on the rig target stack\'s group (CloudFormation names it LoadTestRig-Target-<id>-<suffix>), for the AZRebalance a killed run left suspended.' },
      { id: iam5(`Resource::<${Stack.of(bucket).getLogicalId(bucket.node.defaultChild as s3.CfnBucket)}.Arn>/runs/_scale-in/*`), reason: 'The scale-in marks runs leave (one object per target alarm): read, and rewritten as restored.' },
      { id: iam5(`Resource::arn:<AWS::Partition>:cloudwatch:${regionInFinding(fn)}:<AWS::AccountId>:alarm:LoadTestRig-Target-*`), reason: 'EnableAlarmActions only on the rig target stack\'s alarms (CloudFormation names them LoadTestRig-Target-<id>-<suffix>).' },
      {
        id: iam5(`Resource::arn:<AWS::Partition>:autoscaling:${regionInFinding(asg)}:<AWS::AccountId>:autoScalingGroup:*:autoScalingGroupName/<${asgLogicalId}>`),
        reason: 'SetDesiredCapacity and ResumeProcesses are limited to the generator group by name; the wildcard stands for the group UUID, unknown until deploy.',
      },
    );
    return fn;
  }

  private acknowledgeFindings(asg: autoscaling.AutoScalingGroup, role: iam.IRole, bucket: s3.IBucket, secretsResource: string): void {
    const bucketLogicalId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as s3.CfnBucket);
    acknowledge(role,
      { id: iam4('AmazonSSMManagedInstanceCore'), reason: 'AmazonSSMManagedInstanceCore is AWS\'s minimal policy for SSM Run Command, the only way runs reach a generator (no SSH).' },
      ...S3_READ_WILDCARD_ACTIONS.map((f) => ({ id: iam5(f), reason: 'S3 read action family added by asset.grantRead, scoped to the CDK asset objects of the agent bundle.' })),
      { id: iam5(`Resource::<${bucketLogicalId}.Arn>/runs/*`), reason: 'Agents get run slices and put results (GetObject/PutObject only) under any run prefix of runs/ in the results bucket.' },
      { id: iam5(assetBucketObjects(this)), reason: 'asset.grantRead on the agent bundle: CDK grants read on the asset objects of the bootstrap bucket.' },
      { id: iam5(secretsResource), reason: 'Scenario secrets: any parameter under the rig\'s own SecureString prefix, nothing else in Parameter Store.' },
      { id: iam5('Resource::*'), reason: 'cloudwatch:PutMetricData (conditioned to the rig and CWAgent namespaces) and ec2:DescribeTags have no resource-level permissions (AWS requirement).' },
    );
    acknowledge(asg,
      { id: 'AwsSolutions-AS3', reason: 'The orchestrator drives and watches scaling itself; notifications would only page on every run.' },
    );
  }
}
