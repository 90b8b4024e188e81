// @ts-check
'use strict';
/**
 * Generator safety net (Lambda, Node 22 runtime, AWS SDK v3 from the runtime).
 *
 * Every few minutes: if any instance of the generator group has been running longer than
 * MAX_LIFETIME_MINUTES, set the group's desired capacity to 0. A forgotten fleet of c5.large
 * instances bills by the second; a real run never needs a generator older than the limit.
 * ASG maxInstanceLifetime cannot do this (its minimum is one day, and it replaces rather than stops).
 */

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

exports.overdueInstances = overdueInstances;
exports.run = run;
exports.handler = async () => run();
