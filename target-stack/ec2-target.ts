import * as fs from 'node:fs';
import * as path from 'node:path';
import { Duration, Stack } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import { Construct } from 'constructs';
import { S3_READ_WILDCARD_ACTIONS, acknowledge, assetBucketObjects, iam4, iam5 } from '../lib/nag';
import { RIG_HOME, addHostTuning, installNodeCommands, pinnedNodeVersion, userDataPreamble } from '../lib/user-data';
import { SCALING_PERIOD, ScaledTarget, ScaledTargetProps, cpuStepScaling } from './scaling';

/** Port the reference target listens on. */
export const TARGET_PORT = 3000;

/**
 * How long a new target instance's boot (host tuning, Node, npm ci, the app's start, its first /healthz answer) is
 * given: the ELB health check's grace, and the deadline of its success signal, at creation (CreationPolicy Timeout)
 * and in a rolling update (PauseTime). A deadline, not a wait: the update moves on as soon as the instance signals.
 * Ten minutes, not five: missed, it fails the whole deploy, and the boot's downloads retry for minutes on a bad mirror.
 */
export const TARGET_BOOT_TIME = Duration.minutes(10);

/** How long the boot's last step waits for the app to answer GET /healthz on the instance itself. */
const LOCAL_HEALTH_WAIT_SECONDS = 120;

/** The reference target app directory (owned by the app's engineer; deployed as-is). */
export const TARGET_APP_DIR = path.resolve(__dirname, 'app');

/** Properties of {@link Ec2Target}. */
export interface Ec2TargetProps extends ScaledTargetProps {
  /** Instance type (t2/t3). */
  readonly instanceType: ec2.InstanceType;
  /**
   * Whether operators may open Session Manager shells on the target instances (AmazonSSMManagedInstanceCore
   * on their role). Off by default: the target runs the code under test and needs no management channel.
   * @default false
   */
  readonly sessionManager?: boolean;
  /**
   * Directory of the target app, shipped as an S3 asset.
   * @default target-stack/app
   */
  readonly appDirectory?: string;
}

/**
 * Twine's target: an auto-scaling group of burstable instances running the Socket.IO app under
 * systemd, scaled one instance at a time on average CPU held over the breach window.
 */
export class Ec2Target extends Construct implements ScaledTarget, ec2.IConnectable {
  /** The target auto-scaling group. */
  public readonly autoScalingGroup: autoscaling.AutoScalingGroup;
  /** @inheritdoc */
  public readonly connections: ec2.Connections;
  /** @inheritdoc */
  public readonly cpuMetric: cw.IMetric;
  /** @inheritdoc */
  public readonly inServiceMetric: cw.IMetric;
  /** @inheritdoc */
  public readonly scaleOutAlarm: cw.IAlarm;
  /** @inheritdoc */
  public readonly scaleInAlarm: cw.IAlarm;

  constructor(scope: Construct, id: string, props: Ec2TargetProps) {
    super(scope, id);
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
      description: `loadtest-rig target instance: reads its own assets${props.sessionManager ? ', Session Manager (opt-in)' : ''}, no SSH`,
      managedPolicies: props.sessionManager ? [iam.ManagedPolicy.fromAwsManagedPolicyName('AmazonSSMManagedInstanceCore')] : [],
    });
    const userData = this.bootUserData(props, role);
    const launchTemplate = this.createLaunchTemplate(props, role, userData);

    const asg = new autoscaling.AutoScalingGroup(this, 'Group', {
      vpc: props.vpc,
      vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
      launchTemplate,
      minCapacity: props.minCapacity,
      maxCapacity: props.maxCapacity,
      groupMetrics: [autoscaling.GroupMetrics.all()],
      // Boot installs Node and the app's dependencies; give it time before the ALB judges it.
      healthChecks: autoscaling.HealthChecks.withAdditionalChecks({
        additionalTypes: [autoscaling.AdditionalHealthCheckType.ELB],
        gracePeriod: TARGET_BOOT_TIME,
      }),
      cooldown: Duration.seconds(60),
      // Each instance signals CloudFormation from its user-data (the EXIT trap below): success once the app answers
      // /healthz locally, failure with the failed step's exit code. CloudFormation User Guide, "CreationPolicy
      // attribute": the group is created only after minCapacity success signals within the Timeout; "UpdatePolicy
      // attribute", WaitOnResourceSignals: a rolling update needs a signal from each new instance within PauseTime,
      // else (or on a failure signal) the update fails and the stack rolls back. Without signals PauseTime was only a
      // wait: a new instance whose app never started counted as updated, and the next old one was terminated.
      signals: autoscaling.Signals.waitForMinCapacity({ timeout: TARGET_BOOT_TIME }),
      // A new app asset changes the launch template; roll the instances so the change is deployed.
      // CloudFormation requires MinInstancesInService < MaxSize, so a fixed 1/1 group drops to 0: its old instance
      // goes first and the target is down for the new one's boot (docs/aws-deploy.md).
      updatePolicy: autoscaling.UpdatePolicy.rollingUpdate({
        maxBatchSize: 1,
        minInstancesInService: Math.min(props.minCapacity, props.maxCapacity - 1),
        waitOnResourceSignals: true,
        pauseTime: TARGET_BOOT_TIME,
      }),
    });
    this.autoScalingGroup = asg;
    // Rendered lazily with the launch template, so the trap can name the group created after the user-data.
    this.signalOnExit(userData, asg);
    this.connections = asg.connections;

    const dims = { AutoScalingGroupName: asg.autoScalingGroupName };
    this.cpuMetric = new cw.Metric({ namespace: 'AWS/EC2', metricName: 'CPUUtilization', dimensionsMap: dims, statistic: 'Average', period: SCALING_PERIOD });
    this.inServiceMetric = new cw.Metric({ namespace: 'AWS/AutoScaling', metricName: 'GroupInServiceInstances', dimensionsMap: dims, statistic: 'Maximum', period: SCALING_PERIOD, label: 'in service' });
    const policy = asg.scaleOnMetric('CpuStepScaling', {
      ...cpuStepScaling(props, this.cpuMetric),
      // Boot takes a few minutes; don't count a booting instance's CPU toward the next step.
      estimatedInstanceWarmup: Duration.minutes(3),
    });
    if (!policy.upperAlarm || !policy.lowerAlarm) throw new Error('CPU step scaling must create both a scale-out and a scale-in alarm');
    this.scaleOutAlarm = policy.upperAlarm;
    this.scaleInAlarm = policy.lowerAlarm;

    this.acknowledgeFindings(props, role, asg);
  }

  /** Boot script: host tuning, Node, and the reference app (an S3 asset) run by systemd as its own user. */
  private bootUserData(props: Ec2TargetProps, role: iam.IRole): ec2.UserData {
    const appDirectory = props.appDirectory ?? TARGET_APP_DIR;
    // The boot runs `npm ci`, which refuses to install without a lockfile: refuse the synth instead of every boot.
    if (!fs.existsSync(path.join(appDirectory, 'package-lock.json'))) {
      throw new Error(`the target app ${appDirectory} has no package-lock.json, which its boot's npm ci needs. Fix: npm install --package-lock-only in that folder (the reference app: node scripts/launch.js scripts/target-app-lock.ts)`);
    }
    const app = new s3assets.Asset(this, 'App', {
      path: appDirectory,
      exclude: ['node_modules', '**/node_modules', '*.log'],
    });
    app.grantRead(role);

    const userData = ec2.UserData.forLinux();
    userData.addCommands(
      ...userDataPreamble(),
      // cfn-signal (/opt/aws/bin) comes with AL2023's default AMI (its release notes' "Default AMI" list); installing it
      // from the image's own version-locked repository is a no-op there and covers an image without it.
      'retry 5 dnf install -y aws-cfn-bootstrap',
    );
    addHostTuning(this, userData, role);
    userData.addCommands(...installNodeCommands(pinnedNodeVersion()));
    // The bucket's regional endpoint, which the VPC's S3 gateway endpoint carries (lib/instance-launch-check.ts).
    const zip = userData.addS3DownloadCommand({ bucket: app.bucket, bucketKey: app.s3ObjectKey, localFile: `${RIG_HOME}/target-app.zip`, region: Stack.of(this).region });
    const appHome = `${RIG_HOME}/target-app`;
    const env = [`PORT=${TARGET_PORT}`, 'HOST=0.0.0.0', ...(props.redisUrl ? [`REDIS_URL=${props.redisUrl}`] : [])];
    userData.addCommands(
      'id loadtest-target >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /sbin/nologin loadtest-target',
      `rm -rf ${appHome} && mkdir -p ${appHome} && unzip -q -o ${zip} -d ${appHome}`,
      // Retried like every other network step of the boot (RETRY_FUNCTION): a registry hiccup here left an instance
      // without the app, which the ELB health check then failed and the group replaced only after its 5-min grace.
      // `npm ci` on the app's own package-lock.json (shipped in the asset; scripts/target-app-lock.ts): the exact tree
      // the tests ran, where `npm install` resolved sub-dependencies afresh at every boot.
      `cd ${appHome} && retry 5 npm ci --omit=dev --no-audit --no-fund`,
      `chown -R loadtest-target: ${appHome}`,
      `cat > /etc/systemd/system/loadtest-target.service <<'EOF'
[Unit]
Description=loadtest-rig reference Socket.IO target
After=network-online.target
Wants=network-online.target

[Service]
User=loadtest-target
WorkingDirectory=${appHome}
${env.map((e) => `Environment=${e}`).join('\n')}
ExecStart=/usr/local/bin/node server.js
Restart=always
RestartSec=2
LimitNOFILE=65536

[Install]
WantedBy=multi-user.target
EOF`,
      'systemctl daemon-reload',
      'systemctl enable --now loadtest-target.service',
      // The last step, so the EXIT trap signals success only once the app answers on this instance.
      `curl -fsS -o /dev/null --max-time 5 --retry ${LOCAL_HEALTH_WAIT_SECONDS / 2} --retry-delay 2 --retry-max-time ${LOCAL_HEALTH_WAIT_SECONDS} --retry-all-errors http://127.0.0.1:${TARGET_PORT}/healthz`,
    );
    return userData;
  }

  /**
   * An EXIT trap (rendered before the script's first line) that signals the group with the script's exit code: 0 after
   * the last step, a failed step's code under `set -e`. cfn-signal without credentials signs with the instance identity
   * document, and CloudFormation limits it to the instance's own stack (CloudFormation helper scripts reference,
   * "Permissions for helper scripts"); CDK also grants the role cloudformation:SignalResource on this stack's id.
   * An instance launched outside a create or rolling update (scale-out, a replacement) is refused by CloudFormation:
   * the line says so and the boot's exit status is unchanged.
   */
  private signalOnExit(userData: ec2.UserData, asg: autoscaling.AutoScalingGroup): void {
    const stack = Stack.of(asg);
    const logicalId = (asg.node.defaultChild as autoscaling.CfnAutoScalingGroup).logicalId;
    userData.addOnExitCommands(
      `/opt/aws/bin/cfn-signal --stack ${stack.stackName} --resource ${logicalId} --region ${stack.region} -e $exitCode --reason "loadtest-rig target boot exited $exitCode (see /var/log/loadtest-rig-user-data.log)" || echo 'cfn-signal not accepted (no create or rolling update waits for this instance)'`,
    );
  }

  /** The target instances' launch template: IMDSv2 only, unlimited credits, encrypted gp3 root, its own security group. */
  private createLaunchTemplate(props: Ec2TargetProps, role: iam.IRole, userData: ec2.UserData): ec2.LaunchTemplate {
    return new ec2.LaunchTemplate(this, 'LaunchTemplate', {
      instanceType: props.instanceType,
      machineImage: ec2.MachineImage.latestAmazonLinux2023(),
      role,
      userData,
      // Set here, not left to the account: an account-level IMDS default of HttpEndpoint=disabled applies to launches
      // that do not set it, and leaves the instance without role credentials (lib/instance-launch-check.ts).
      httpEndpoint: true,
      requireImdsv2: true,
      httpPutResponseHopLimit: 1,
      associatePublicIpAddress: true,
      // One-minute EC2 metrics: the scaling alarms use 60 s periods; basic monitoring is 5 minutes.
      detailedMonitoring: true,
      // Unlimited credits: a throttled burstable target would measure the credit balance, not the app.
      cpuCredits: ec2.CpuCredits.UNLIMITED,
      securityGroup: new ec2.SecurityGroup(this, 'SecurityGroup', {
        vpc: props.vpc,
        description: 'loadtest-rig target instances: app port from the load balancer only',
        allowAllOutbound: true,
      }),
      blockDevices: [{ deviceName: '/dev/xvda', volume: ec2.BlockDeviceVolume.ebs(20, { encrypted: true, volumeType: ec2.EbsDeviceVolumeType.GP3, deleteOnTermination: true }) }],
    });
  }

  private acknowledgeFindings(props: Ec2TargetProps, role: iam.IRole, asg: autoscaling.AutoScalingGroup): void {
    if (props.sessionManager) {
      acknowledge(role, { id: iam4('AmazonSSMManagedInstanceCore'), reason: 'Opt-in (context targetSessionManager=true): AmazonSSMManagedInstanceCore gives operators Session Manager instead of SSH.' });
    }
    acknowledge(role,
      ...S3_READ_WILDCARD_ACTIONS.map((f) => ({ id: iam5(f), reason: 'S3 read action family added by asset.grantRead, scoped to the CDK asset objects.' })),
      { id: iam5(assetBucketObjects(this)), reason: 'asset.grantRead on the app bundle and tuning script: read on the bootstrap bucket\'s asset objects.' },
    );
    acknowledge(asg, { id: 'AwsSolutions-AS3', reason: 'Scaling is what the test observes; it is on the dashboard and in the run report, notifications add nothing.' });
  }
}
