/**
 * The ONE place the AWS run path builds SDK clients. Everything else takes {@link AwsApi}: a narrow
 * interface listing only the calls the AWS platform makes, so adapters are tested with
 * `aws-sdk-client-mock` (or any fake) and the same code runs against moto (AWS_ENDPOINT_URL) and AWS.
 */
import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  DescribeAutoScalingGroupsCommandInput,
  DescribeAutoScalingGroupsCommandOutput,
  DescribeScalingActivitiesCommand,
  DescribeScalingActivitiesCommandInput,
  DescribeScalingActivitiesCommandOutput,
  ResumeProcessesCommand,
  ResumeProcessesCommandInput,
  SetDesiredCapacityCommand,
  SetDesiredCapacityCommandInput,
  SuspendProcessesCommand,
  SuspendProcessesCommandInput,
} from '@aws-sdk/client-auto-scaling';
import {
  CloudFormationClient,
  DeleteStackCommand,
  DeleteStackCommandInput,
  DescribeStacksCommand,
  DescribeStacksCommandInput,
  DescribeStacksCommandOutput,
} from '@aws-sdk/client-cloudformation';
import {
  CloudWatchClient,
  DescribeAlarmsCommand,
  DescribeAlarmsCommandInput,
  DescribeAlarmsCommandOutput,
  DisableAlarmActionsCommand,
  EnableAlarmActionsCommand,
  GetMetricDataCommand,
  GetMetricDataCommandInput,
  GetMetricDataCommandOutput,
  GetMetricWidgetImageCommand,
  GetMetricWidgetImageCommandInput,
  GetMetricWidgetImageCommandOutput,
  PutMetricDataCommand,
  PutMetricDataCommandInput,
} from '@aws-sdk/client-cloudwatch';
import {
  DescribeInstanceTypeOfferingsCommand,
  DescribeInstanceTypeOfferingsCommandInput,
  DescribeInstanceTypeOfferingsCommandOutput,
  DescribeInstanceTypesCommand,
  DescribeInstanceTypesCommandInput,
  DescribeInstanceTypesCommandOutput,
  EC2Client,
} from '@aws-sdk/client-ec2';
import {
  GetResourcesCommand,
  GetResourcesCommandInput,
  GetResourcesCommandOutput,
  ResourceGroupsTaggingAPIClient,
} from '@aws-sdk/client-resource-groups-tagging-api';
import {
  GetServiceQuotaCommand,
  GetServiceQuotaCommandInput,
  GetServiceQuotaCommandOutput,
  ServiceQuotasClient,
} from '@aws-sdk/client-service-quotas';
import { HeadBucketCommand, PutObjectCommand, PutObjectCommandInput, S3Client } from '@aws-sdk/client-s3';
import {
  CancelCommandCommand,
  CancelCommandCommandInput,
  DescribeInstanceInformationCommand,
  DescribeInstanceInformationCommandInput,
  DescribeInstanceInformationCommandOutput,
  GetCommandInvocationCommand,
  GetCommandInvocationCommandInput,
  GetCommandInvocationCommandOutput,
  SSMClient,
  SendCommandCommand,
  SendCommandCommandInput,
  SendCommandCommandOutput,
} from '@aws-sdk/client-ssm';
import { GetCallerIdentityCommand, GetCallerIdentityCommandOutput, STSClient } from '@aws-sdk/client-sts';

/** What {@link AwsApi.credentials} tells about the credentials in use (never the keys themselves). */
export interface ResolvedCredentials {
  readonly expiration?: Date;
  readonly $source?: Readonly<Record<string, string>>;
}

/** Every AWS call the AWS run path makes — nothing more. */
export interface AwsApi {
  /** The region every client was built for. */
  readonly region: string;
  /** The S3 client itself: the shared run store (`s3Store`) takes a client with `send`. */
  readonly s3: { send: S3Client['send'] };

  getCallerIdentity(): Promise<GetCallerIdentityCommandOutput>;
  /**
   * The credentials the clients sign with, resolved now through the SDK's chain: `expiration` when they carry one,
   * `$source` the SDK's record of where it found them (`CREDENTIALS_ENV_VARS`: exported variables, which never refresh).
   */
  credentials(): Promise<ResolvedCredentials>;

  describeStacks(input: DescribeStacksCommandInput): Promise<DescribeStacksCommandOutput>;
  deleteStack(input: DeleteStackCommandInput): Promise<void>;

  setDesiredCapacity(input: SetDesiredCapacityCommandInput): Promise<void>;
  describeAutoScalingGroups(input: DescribeAutoScalingGroupsCommandInput): Promise<DescribeAutoScalingGroupsCommandOutput>;
  describeScalingActivities(input: DescribeScalingActivitiesCommandInput): Promise<DescribeScalingActivitiesCommandOutput>;
  /** AZRebalance suspended for a run, and resumed (fleet-processes.ts). */
  suspendProcesses(input: SuspendProcessesCommandInput): Promise<void>;
  resumeProcesses(input: ResumeProcessesCommandInput): Promise<void>;

  describeInstanceInformation(input: DescribeInstanceInformationCommandInput): Promise<DescribeInstanceInformationCommandOutput>;
  sendCommand(input: SendCommandCommandInput): Promise<SendCommandCommandOutput>;
  getCommandInvocation(input: GetCommandInvocationCommandInput): Promise<GetCommandInvocationCommandOutput>;
  cancelCommand(input: CancelCommandCommandInput): Promise<void>;

  getMetricData(input: GetMetricDataCommandInput): Promise<GetMetricDataCommandOutput>;
  describeAlarms(input: DescribeAlarmsCommandInput): Promise<DescribeAlarmsCommandOutput>;
  putMetricData(input: PutMetricDataCommandInput): Promise<void>;
  getMetricWidgetImage(input: GetMetricWidgetImageCommandInput): Promise<GetMetricWidgetImageCommandOutput>;
  disableAlarmActions(alarmNames: string[]): Promise<void>;
  enableAlarmActions(alarmNames: string[]): Promise<void>;

  headBucket(bucket: string): Promise<void>;
  putObject(input: PutObjectCommandInput): Promise<void>;

  getServiceQuota(input: GetServiceQuotaCommandInput): Promise<GetServiceQuotaCommandOutput>;
  describeInstanceTypes(input: DescribeInstanceTypesCommandInput): Promise<DescribeInstanceTypesCommandOutput>;
  describeInstanceTypeOfferings(input: DescribeInstanceTypeOfferingsCommandInput): Promise<DescribeInstanceTypeOfferingsCommandOutput>;

  /** Resource Groups Tagging API: what still carries the rig's tag (`npm run leftovers`). */
  getResources(input: GetResourcesCommandInput): Promise<GetResourcesCommandOutput>;
}

/** The calls of {@link AwsApi} (every member except the region). */
export type AwsApiCall = Exclude<keyof AwsApi, 'region'>;

/**
 * The IAM actions behind each call of {@link AwsApi}: iam/operator-policy.json must allow every one
 * (test/unit/operator-policy.test.ts). A new call without an entry here does not compile; a new entry
 * without a policy statement fails that test. `s3` stands for the run store's own calls
 * (load-generators/lib/run-store.js: PutObject, GetObject, ListObjectsV2).
 */
export const IAM_ACTIONS: { readonly [K in AwsApiCall]: readonly string[] } = {
  s3: ['s3:PutObject', 's3:GetObject', 's3:ListBucket'],
  // GetCallerIdentity needs no permission: AWS answers it for every valid credential.
  getCallerIdentity: [],
  // Resolving the credentials is local (or the chain's own calls, e.g. SSO's, made with the profile's rights).
  credentials: [],
  describeStacks: ['cloudformation:DescribeStacks'],
  deleteStack: ['cloudformation:DeleteStack'],
  setDesiredCapacity: ['autoscaling:SetDesiredCapacity'],
  describeAutoScalingGroups: ['autoscaling:DescribeAutoScalingGroups'],
  describeScalingActivities: ['autoscaling:DescribeScalingActivities'],
  suspendProcesses: ['autoscaling:SuspendProcesses'],
  resumeProcesses: ['autoscaling:ResumeProcesses'],
  describeInstanceInformation: ['ssm:DescribeInstanceInformation'],
  sendCommand: ['ssm:SendCommand'],
  getCommandInvocation: ['ssm:GetCommandInvocation'],
  cancelCommand: ['ssm:CancelCommand'],
  getMetricData: ['cloudwatch:GetMetricData'],
  describeAlarms: ['cloudwatch:DescribeAlarms'],
  putMetricData: ['cloudwatch:PutMetricData'],
  getMetricWidgetImage: ['cloudwatch:GetMetricWidgetImage'],
  disableAlarmActions: ['cloudwatch:DisableAlarmActions'],
  enableAlarmActions: ['cloudwatch:EnableAlarmActions'],
  headBucket: ['s3:ListBucket'],
  putObject: ['s3:PutObject'],
  getServiceQuota: ['servicequotas:GetServiceQuota'],
  describeInstanceTypes: ['ec2:DescribeInstanceTypes'],
  describeInstanceTypeOfferings: ['ec2:DescribeInstanceTypeOfferings'],
  getResources: ['tag:GetResources'],
};

/** Options of {@link createAwsApi}. */
export interface AwsApiOptions {
  /** Region of the deployed rig (the stacks' Region output, else the SDK's own resolution). */
  readonly region: string;
}

/**
 * Builds the SDK clients once and returns the narrow API over them. Credentials, retries and
 * `AWS_ENDPOINT_URL` (moto in tests) follow the SDK's standard resolution.
 */
export function createAwsApi(opts: AwsApiOptions): AwsApi {
  const config = { region: opts.region, maxAttempts: 5 };
  const cfn = new CloudFormationClient(config);
  const asg = new AutoScalingClient(config);
  const ssm = new SSMClient(config);
  const cw = new CloudWatchClient(config);
  const s3 = new S3Client(config);
  const sts = new STSClient(config);
  const ec2 = new EC2Client(config);
  const quotas = new ServiceQuotasClient(config);
  const tagging = new ResourceGroupsTaggingAPIClient(config);
  return {
    region: opts.region,
    s3,
    getCallerIdentity: () => sts.send(new GetCallerIdentityCommand({})),
    credentials: async () => {
      const { expiration, $source } = (await sts.config.credentials()) as ResolvedCredentials;
      return { ...(expiration ? { expiration } : {}), ...($source ? { $source } : {}) };
    },
    describeStacks: (input) => cfn.send(new DescribeStacksCommand(input)),
    deleteStack: async (input) => {
      await cfn.send(new DeleteStackCommand(input));
    },
    setDesiredCapacity: async (input) => {
      await asg.send(new SetDesiredCapacityCommand(input));
    },
    describeAutoScalingGroups: (input) => asg.send(new DescribeAutoScalingGroupsCommand(input)),
    describeScalingActivities: (input) => asg.send(new DescribeScalingActivitiesCommand(input)),
    suspendProcesses: async (input) => {
      await asg.send(new SuspendProcessesCommand(input));
    },
    resumeProcesses: async (input) => {
      await asg.send(new ResumeProcessesCommand(input));
    },
    describeInstanceInformation: (input) => ssm.send(new DescribeInstanceInformationCommand(input)),
    sendCommand: (input) => ssm.send(new SendCommandCommand(input)),
    getCommandInvocation: (input) => ssm.send(new GetCommandInvocationCommand(input)),
    cancelCommand: async (input) => {
      await ssm.send(new CancelCommandCommand(input));
    },
    getMetricData: (input) => cw.send(new GetMetricDataCommand(input)),
    describeAlarms: (input) => cw.send(new DescribeAlarmsCommand(input)),
    putMetricData: async (input) => {
      await cw.send(new PutMetricDataCommand(input));
    },
    getMetricWidgetImage: (input) => cw.send(new GetMetricWidgetImageCommand(input)),
    disableAlarmActions: async (alarmNames) => {
      await cw.send(new DisableAlarmActionsCommand({ AlarmNames: alarmNames }));
    },
    enableAlarmActions: async (alarmNames) => {
      await cw.send(new EnableAlarmActionsCommand({ AlarmNames: alarmNames }));
    },
    headBucket: async (bucket) => {
      await s3.send(new HeadBucketCommand({ Bucket: bucket }));
    },
    putObject: async (input) => {
      await s3.send(new PutObjectCommand(input));
    },
    getServiceQuota: (input) => quotas.send(new GetServiceQuotaCommand(input)),
    describeInstanceTypes: (input) => ec2.send(new DescribeInstanceTypesCommand(input)),
    describeInstanceTypeOfferings: (input) => ec2.send(new DescribeInstanceTypeOfferingsCommand(input)),
    getResources: (input) => tagging.send(new GetResourcesCommand(input)),
  };
}
