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
const { SCALE_IN_MARK_PREFIX, parseMark, scaleInDecision } = require('./scale-in-decision');

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

/** @param {{ ec2?: any, autoscaling?: any, now?: () => number, env?: Record<string, string | undefined> }} [deps] */
async function run(deps = {}) {
  const env = deps.env || process.env;
  const groupName = env.GENERATOR_ASG_NAME;
  const maxMinutes = Number(env.MAX_LIFETIME_MINUTES);
  if (!groupName || !(maxMinutes > 0)) throw new Error('GENERATOR_ASG_NAME and MAX_LIFETIME_MINUTES must be set');
  // Required lazily: the runtime provides the SDK; unit tests inject fakes instead.
  const ec2Sdk = deps.ec2 ? null : require('@aws-sdk/client-ec2');
  const asgSdk = deps.autoscaling ? null : require('@aws-sdk/client-auto-scaling');
  const ec2 = deps.ec2 || new ec2Sdk.EC2Client({});
  const autoscaling = deps.autoscaling || new asgSdk.AutoScalingClient({});
  const describe = ec2Sdk
    ? (input) => ec2.send(new ec2Sdk.DescribeInstancesCommand(input))
    : (input) => ec2.describeInstances(input);
  const setDesired = asgSdk
    ? (input) => autoscaling.send(new asgSdk.SetDesiredCapacityCommand(input))
    : (input) => autoscaling.setDesiredCapacity(input);

  const instances = [];
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
      for (const i of r.Instances || []) instances.push({ instanceId: i.InstanceId, launchTime: i.LaunchTime });
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
 * Restores every target scale-in a run left suspended past its deadline.
 * @param {{ s3?: any, cloudwatch?: any, now?: () => number, env?: Record<string, string | undefined> }} [deps]
 * @returns {Promise<Array<{ alarmName: string, action: string, why: string }>>}
 */
async function restoreScaleIn(deps = {}) {
  const env = deps.env || process.env;
  const bucket = env.RESULTS_BUCKET;
  if (!bucket) return [];
  const s3Sdk = deps.s3 ? null : require('@aws-sdk/client-s3');
  const cwSdk = deps.cloudwatch ? null : require('@aws-sdk/client-cloudwatch');
  const s3 = deps.s3 || new s3Sdk.S3Client({});
  const cw = deps.cloudwatch || new cwSdk.CloudWatchClient({});
  const list = s3Sdk ? (input) => s3.send(new s3Sdk.ListObjectsV2Command(input)) : (input) => s3.listObjectsV2(input);
  const get = s3Sdk
    ? async (input) => (await s3.send(new s3Sdk.GetObjectCommand(input))).Body.transformToString()
    : (input) => s3.getObject(input);
  const put = s3Sdk ? (input) => s3.send(new s3Sdk.PutObjectCommand(input)) : (input) => s3.putObject(input);
  const describe = cwSdk ? (input) => cw.send(new cwSdk.DescribeAlarmsCommand(input)) : (input) => cw.describeAlarms(input);
  const enable = cwSdk ? (input) => cw.send(new cwSdk.EnableAlarmActionsCommand(input)) : (input) => cw.enableAlarmActions(input);

  const keys = [];
  let ContinuationToken;
  do {
    const page = await list({ Bucket: bucket, Prefix: `${SCALE_IN_MARK_PREFIX}/`, ContinuationToken });
    for (const o of page.Contents || []) if (o.Key && o.Key.endsWith('.json')) keys.push(o.Key);
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);

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

/** Both duties; one failing does not keep the other from running. */
async function handler() {
  const [generators, scaleIn] = await Promise.allSettled([run(), restoreScaleIn()]);
  for (const r of [generators, scaleIn]) if (r.status === 'rejected') console.log(JSON.stringify({ msg: 'safety net duty failed', error: String(r.reason && r.reason.message || r.reason) }));
  if (generators.status === 'rejected') throw generators.reason;
  if (scaleIn.status === 'rejected') throw scaleIn.reason;
  return { ...generators.value, scaleIn: scaleIn.value };
}

exports.overdueInstances = overdueInstances;
exports.run = run;
exports.restoreScaleIn = restoreScaleIn;
exports.handler = handler;
