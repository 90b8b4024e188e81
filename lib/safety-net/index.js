// @ts-check
'use strict';
/**
 * Generator safety net (Lambda, Node 22 runtime, AWS SDK v3 from the runtime).
 *
 * Every few minutes: if any instance of the generator group has been running longer than
 * MAX_LIFETIME_MINUTES, set the group's desired capacity to 0. A forgotten fleet of c5.large
 * instances bills by the second; a real run never needs a generator older than the limit.
 * ASG maxInstanceLifetime cannot do this (its minimum is one day, and it replaces rather than stops).
 *
 * And: a target scale-in that a run suspended and never restored (its CLI was killed: SIGKILL, a closed
 * laptop) is restored once the run's deadline has passed. Runs leave a mark under runs/_scale-in/ in the
 * results bucket (RESULTS_BUCKET); the decision is scale-in-decision.js, the same the CLI makes.
 */
const { PROCESSES_MARK_PREFIX, SCALE_IN_MARK_PREFIX, parseMark, parseProcessesMark, processesDecision, scaleInDecision } = require('./scale-in-decision');

/**
 * Instances launched at least maxLifetimeMinutes before nowMs.
 * @param {{ instanceId: string, launchTime: Date | string | number }[]} instances
 * @param {number} nowMs
 * @param {number} maxLifetimeMinutes
 */
function overdueInstances(instances, nowMs, maxLifetimeMinutes) {
  const limitMs = maxLifetimeMinutes * 60_000;
  return instances.filter((i) => nowMs - new Date(i.launchTime).getTime() >= limitMs);
}

/**
 * The two AWS calls the safety net makes: the SDK's in the Lambda, fakes in unit tests.
 * @typedef {(input: import('@aws-sdk/client-ec2').DescribeInstancesCommandInput) => Promise<Pick<import('@aws-sdk/client-ec2').DescribeInstancesCommandOutput, 'Reservations' | 'NextToken'>>} DescribeInstances
 * @typedef {(input: import('@aws-sdk/client-auto-scaling').SetDesiredCapacityCommandInput) => Promise<unknown>} SetDesiredCapacity
 */

// Required lazily: the Lambda runtime provides the SDK; unit tests inject fakes instead.
/** @returns {DescribeInstances} */
function sdkDescribeInstances() {
  /** @type {typeof import('@aws-sdk/client-ec2')} */
  const sdk = require('@aws-sdk/client-ec2');
  const client = new sdk.EC2Client({});
  return (input) => client.send(new sdk.DescribeInstancesCommand(input));
}

/** @returns {SetDesiredCapacity} */
function sdkSetDesiredCapacity() {
  /** @type {typeof import('@aws-sdk/client-auto-scaling')} */
  const sdk = require('@aws-sdk/client-auto-scaling');
  const client = new sdk.AutoScalingClient({});
  return (input) => client.send(new sdk.SetDesiredCapacityCommand(input));
}

/**
 * @param {{
 *   ec2?: { describeInstances: DescribeInstances },
 *   autoscaling?: { setDesiredCapacity: SetDesiredCapacity },
 *   now?: () => number,
 *   env?: Record<string, string | undefined>,
 * }} [deps]
 */
async function run(deps = {}) {
  const env = deps.env || process.env;
  const groupName = env.GENERATOR_ASG_NAME;
  const maxMinutes = Number(env.MAX_LIFETIME_MINUTES);
  if (!groupName || !(maxMinutes > 0)) throw new Error('GENERATOR_ASG_NAME and MAX_LIFETIME_MINUTES must be set');
  const describe = deps.ec2 ? deps.ec2.describeInstances : sdkDescribeInstances();
  const setDesired = deps.autoscaling ? deps.autoscaling.setDesiredCapacity : sdkSetDesiredCapacity();

  /** @type {{ instanceId: string, launchTime: Date | string | number }[]} */
  const instances = [];
  /** @type {string | undefined} */
  let NextToken;
  do {
    const page = await describe({
      Filters: [
        { Name: 'tag:aws:autoscaling:groupName', Values: [groupName] },
        { Name: 'instance-state-name', Values: ['pending', 'running'] },
      ],
      NextToken,
    });
    for (const r of page.Reservations || []) {
      for (const i of r.Instances || []) {
        if (i.InstanceId && i.LaunchTime) instances.push({ instanceId: i.InstanceId, launchTime: i.LaunchTime });
      }
    }
    NextToken = page.NextToken;
  } while (NextToken);

  const overdue = overdueInstances(instances, (deps.now || Date.now)(), maxMinutes);
  if (overdue.length === 0) return { running: instances.length, overdue: [], scaledToZero: false };
  await setDesired({ AutoScalingGroupName: groupName, DesiredCapacity: 0, HonorCooldown: false });
  console.log(JSON.stringify({ msg: 'generators exceeded their maximum lifetime; desired capacity set to 0', groupName, maxMinutes, overdue }));
  return { running: instances.length, overdue: overdue.map((i) => i.instanceId), scaledToZero: true };
}

/**
 * The calls the scale-in duty makes on the results bucket and CloudWatch: the SDK's in the Lambda, fakes in tests.
 * @typedef {{
 *   listObjectsV2: (input: import('@aws-sdk/client-s3').ListObjectsV2CommandInput) => Promise<Pick<import('@aws-sdk/client-s3').ListObjectsV2CommandOutput, 'Contents' | 'IsTruncated' | 'NextContinuationToken'>>,
 *   getObject: (input: { Bucket: string, Key: string }) => Promise<string>,
 *   putObject: (input: import('@aws-sdk/client-s3').PutObjectCommandInput) => Promise<unknown>,
 * }} MarkStore
 * @typedef {{
 *   describeAlarms: (input: import('@aws-sdk/client-cloudwatch').DescribeAlarmsCommandInput) => Promise<Pick<import('@aws-sdk/client-cloudwatch').DescribeAlarmsCommandOutput, 'MetricAlarms'>>,
 *   enableAlarmActions: (input: import('@aws-sdk/client-cloudwatch').EnableAlarmActionsCommandInput) => Promise<unknown>,
 * }} AlarmActions
 */

/** @returns {MarkStore} */
function sdkMarkStore() {
  /** @type {typeof import('@aws-sdk/client-s3')} */
  const sdk = require('@aws-sdk/client-s3');
  const client = new sdk.S3Client({});
  return {
    listObjectsV2: (input) => client.send(new sdk.ListObjectsV2Command(input)),
    getObject: async (input) => {
      const body = (await client.send(new sdk.GetObjectCommand(input))).Body;
      return body ? body.transformToString() : '';
    },
    putObject: (input) => client.send(new sdk.PutObjectCommand(input)),
  };
}

/** @returns {AlarmActions} */
function sdkAlarmActions() {
  /** @type {typeof import('@aws-sdk/client-cloudwatch')} */
  const sdk = require('@aws-sdk/client-cloudwatch');
  const client = new sdk.CloudWatchClient({});
  return {
    describeAlarms: (input) => client.send(new sdk.DescribeAlarmsCommand(input)),
    enableAlarmActions: (input) => client.send(new sdk.EnableAlarmActionsCommand(input)),
  };
}

/**
 * The keys of the marks under a prefix of the results bucket, every page.
 * @param {MarkStore} store @param {string} bucket @param {string} prefix
 * @returns {Promise<string[]>}
 */
async function markKeys(store, bucket, prefix) {
  /** @type {string[]} */
  const keys = [];
  /** @type {string | undefined} */
  let ContinuationToken;
  do {
    const page = await store.listObjectsV2({ Bucket: bucket, Prefix: prefix, ContinuationToken });
    for (const o of page.Contents || []) if (o.Key && o.Key.endsWith('.json')) keys.push(o.Key);
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return keys;
}

/**
 * Restores every target scale-in a run left suspended past its deadline.
 * @param {{ s3?: MarkStore, cloudwatch?: AlarmActions, now?: () => number, env?: Record<string, string | undefined> }} [deps]
 * @returns {Promise<Array<{ alarmName: string, action: string, why: string }>>}
 */
async function restoreScaleIn(deps = {}) {
  const env = deps.env || process.env;
  const bucket = env.RESULTS_BUCKET;
  if (!bucket) return [];
  const store = deps.s3 || sdkMarkStore();
  const alarms = deps.cloudwatch || sdkAlarmActions();
  const get = store.getObject;
  const put = store.putObject;
  const describe = alarms.describeAlarms;
  const enable = alarms.enableAlarmActions;

  const keys = await markKeys(store, bucket, `${SCALE_IN_MARK_PREFIX}/`);

  const out = [];
  for (const Key of keys) {
    const mark = parseMark(await get({ Bucket: bucket, Key }));
    if (!mark || mark.state !== 'suspended') continue;
    const res = await describe({ AlarmNames: [mark.alarmName] });
    const alarm = (res.MetricAlarms || []).find((a) => a.AlarmName === mark.alarmName);
    const decision = scaleInDecision({ actionsEnabled: alarm ? alarm.ActionsEnabled !== false : undefined, mark, now: (deps.now || Date.now)() });
    if (decision.action === 'restore') {
      await enable({ AlarmNames: [mark.alarmName] });
      await put({ Bucket: bucket, Key, Body: JSON.stringify({ ...mark, state: 'restored' }) });
      console.log(JSON.stringify({ msg: 'target scale-in restored', alarmName: mark.alarmName, why: decision.why }));
    }
    out.push({ alarmName: mark.alarmName, action: decision.action, why: decision.why });
  }
  return out;
}

/**
 * The auto-scaling calls the processes duty makes: the SDK's in the Lambda, fakes in tests.
 * @typedef {{
 *   describeAutoScalingGroups: (input: import('@aws-sdk/client-auto-scaling').DescribeAutoScalingGroupsCommandInput) => Promise<Pick<import('@aws-sdk/client-auto-scaling').DescribeAutoScalingGroupsCommandOutput, 'AutoScalingGroups'>>,
 *   resumeProcesses: (input: import('@aws-sdk/client-auto-scaling').ResumeProcessesCommandInput) => Promise<unknown>,
 * }} GroupProcesses
 */

/** @returns {GroupProcesses} */
function sdkGroupProcesses() {
  /** @type {typeof import('@aws-sdk/client-auto-scaling')} */
  const sdk = require('@aws-sdk/client-auto-scaling');
  const client = new sdk.AutoScalingClient({});
  return {
    describeAutoScalingGroups: (input) => client.send(new sdk.DescribeAutoScalingGroupsCommand(input)),
    resumeProcesses: (input) => client.send(new sdk.ResumeProcessesCommand(input)),
  };
}

/**
 * Resumes every auto-scaling process (AZRebalance) a run left suspended past its deadline.
 * @param {{ s3?: MarkStore, autoscaling?: GroupProcesses, now?: () => number, env?: Record<string, string | undefined> }} [deps]
 * @returns {Promise<Array<{ groupName: string, action: string, why: string }>>}
 */
async function resumeProcesses(deps = {}) {
  const bucket = (deps.env || process.env).RESULTS_BUCKET;
  if (!bucket) return [];
  const store = deps.s3 || sdkMarkStore();
  const groups = deps.autoscaling || sdkGroupProcesses();
  const keys = await markKeys(store, bucket, `${PROCESSES_MARK_PREFIX}/`);
  const out = [];
  for (const Key of keys) {
    const mark = parseProcessesMark(await store.getObject({ Bucket: bucket, Key }));
    if (!mark || mark.state !== 'suspended') continue;
    const res = await groups.describeAutoScalingGroups({ AutoScalingGroupNames: [mark.groupName] });
    const group = (res.AutoScalingGroups || [])[0];
    const suspended = group ? (group.SuspendedProcesses || []).map((p) => String(p.ProcessName)) : undefined;
    const decision = processesDecision({ suspended, mark, now: (deps.now || Date.now)() });
    if (decision.action === 'restore') {
      await groups.resumeProcesses({ AutoScalingGroupName: mark.groupName, ScalingProcesses: decision.processes });
      console.log(JSON.stringify({ msg: 'auto-scaling processes resumed', groupName: mark.groupName, why: decision.why }));
    }
    if (decision.action !== 'wait') await store.putObject({ Bucket: bucket, Key, Body: JSON.stringify({ ...mark, state: 'restored' }) });
    out.push({ groupName: mark.groupName, action: decision.action, why: decision.why });
  }
  return out;
}

/** Every duty; one failing does not keep the others from running. */
async function handler() {
  const [generators, scaleIn, processes] = await Promise.allSettled([run(), restoreScaleIn(), resumeProcesses()]);
  for (const r of [generators, scaleIn, processes]) if (r.status === 'rejected') console.log(JSON.stringify({ msg: 'safety net duty failed', error: String(r.reason && r.reason.message || r.reason) }));
  if (generators.status === 'rejected') throw generators.reason;
  if (scaleIn.status === 'rejected') throw scaleIn.reason;
  if (processes.status === 'rejected') throw processes.reason;
  return { ...generators.value, scaleIn: scaleIn.value, processes: processes.value };
}

exports.overdueInstances = overdueInstances;
exports.run = run;
exports.restoreScaleIn = restoreScaleIn;
exports.resumeProcesses = resumeProcesses;
exports.handler = handler;
