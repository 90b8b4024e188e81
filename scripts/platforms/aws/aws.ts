/**
 * The AWS platform: generators are instances of the deployed generator group driven through SSM Run
 * Command, the run store is the results bucket's `runs/<runId>/` prefix, the target is the deployed
 * target stack (or --target), and CloudWatch adds the run window's metrics to the report. Same run
 * sequence (scripts/run.ts) and orchestrator as the local platform.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { localStore, s3Store } from '../../../load-generators/lib/run-store';
import { targetMetricsSource } from '../../adapters/target-metrics';
import type { Clock, CloudWatchSection, Fleet, LoadWindow, RunStore } from '../../contracts';
import { AWS_PORT_RANGE, DeployedGenerator, InstanceSpec, UnknownInstanceTypeError, arrivalsPerSecond, deployedGenerator } from '../../core/capacity-model';
import type { Plan } from '../../core/plan';
import { RigError, UsageError } from '../../errors';
import type { RunOptions } from '../../options';
import type { ProbeSpec } from '../../preflight';
import { checkReachable } from '../../adapters/reachability';
import { Platform, RunTimings, cleanupStack } from '../platform';
import { explainAwsError } from './aws-errors';
import { checkBeforeScaling } from './before-scaling';
import { runPrefix } from './bundle';
import type { AwsApi } from './clients';
import { RigMetricsPublisher, collectCloudWatch } from './cloudwatch';
import { saveWidgetImages, waitForLastMinute } from './cloudwatch-extras';
import type { RigOutputs } from './discovery';
import { RIG_STACK_NAMES, isStackMissing } from './discovery';
import { awsFleet, groupInstances } from './fleet';
import { RestoreScaleIn, scaleInRestoreBy, suspendScaleIn } from './scale-in';

/** The generator instance type of stacks whose outputs predate `GeneratorInstanceType` (the stack's default). */
export const DEFAULT_GENERATOR_INSTANCE_TYPE = 'c5.large';
/** How often the rig's metrics are published to CloudWatch during the run. */
const PUBLISH_INTERVAL_MS = 30_000;
/** Instances take minutes to launch and boot; the start instant must reach agents polling S3. */
const AWS_TIMINGS: RunTimings = { readyTimeoutMs: 600_000, startLeadMs: 5000 };

/** What the AWS platform is built from (by the CLI, or a test). */
export interface AwsPlatformProps {
  readonly root: string;
  readonly outputs: RigOutputs;
  readonly api: AwsApi;
  readonly options: RunOptions;
  readonly log: (line: string) => void;
  /**
   * Vusers one generator holds (`--generator-capacity`), instead of the capacity model's memory bound.
   * @default the capacity model's figure for the stack's instance type (scripts/core/capacity-model.ts)
   */
  readonly generatorCapacity?: number;
  /**
   * Whether every address of the target is private, so the agents spread connections over the generators'
   * secondary IPs (a public target gets only the primary IP, and its ports).
   * @default false
   */
  readonly targetIsPrivate?: boolean;
  /**
   * The generator instance type as EC2 describes it (scripts/platforms/aws/instance-types.ts).
   * @default the capacity model's fixed table
   */
  readonly instanceSpec?: InstanceSpec;
  /** Aborted on Ctrl-C: stops waiting for instances. */
  readonly signal?: AbortSignal;
  /** @default the wall clock */
  readonly clock?: Clock;
  /** Fleet timings (tests shorten them). */
  readonly fleet?: { readonly instanceTimeoutMs?: number; readonly pollMs?: number; readonly preflightTimeoutMs?: number };
  /**
   * Deletes the outputs file after a teardown (it would point at deleted stacks).
   * @default removes outputs.source when it is a file
   */
  readonly removeOutputsFile?: () => void;
}

/**
 * One generator from the capacity model: the stack's instance type (as EC2 describes it, else the fixed table)
 * and secondary IPs (the IPs only for a private target), or `--generator-capacity` in place of the memory bound.
 *
 * @throws UsageError when the model has no figures for the instance type and no override is given.
 */
export function deployedGeneratorOf(outputs: RigOutputs, targetIsPrivate: boolean, capacityOverride?: number, spec?: InstanceSpec): DeployedGenerator {
  try {
    return deployedGenerator({
      instanceType: outputs.generatorInstanceType ?? DEFAULT_GENERATOR_INSTANCE_TYPE,
      secondaryIps: outputs.generatorSecondaryIps ?? 0,
      targetIsPrivate,
      ...(capacityOverride !== undefined ? { capacityOverride } : {}),
      ...(spec ? { spec } : {}),
    });
  } catch (err) {
    if (err instanceof UnknownInstanceTypeError) throw new UsageError(err.message);
    throw err;
  }
}

const wallClock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

/** Copies a run store into the local run folder, without the agent bundle (the home region's, or another's under regions/<region>/). */
export async function copyStoreToFolder(store: RunStore, runDir: string): Promise<void> {
  const local = localStore(runDir);
  const keys = (await store.list('')).filter((k) => !/^(regions\/[^/]+\/)?bundle\//.test(k));
  for (const key of keys) {
    const body = await store.get(key);
    if (body !== undefined) await local.put(key, body);
  }
}

/** Builds the AWS platform over the deployed rig's outputs. */
export function awsPlatform(props: AwsPlatformProps): Platform & { readonly generator: DeployedGenerator; readonly publisherFor: (store: RunStore, runId: string) => RigMetricsPublisher | undefined } {
  const { api, outputs, options, log } = props;
  const clock = props.clock ?? wallClock;
  const generator = deployedGeneratorOf(outputs, props.targetIsPrivate ?? false, props.generatorCapacity, props.instanceSpec);
  const limits = generator.limits;
  const bucket = outputs.resultsBucketName;
  const region = api.region;
  let teardownDone = false;

  const publisherFor = (s: RunStore, id: string) =>
    outputs.rigMetricsNamespace ? new RigMetricsPublisher(api, s, outputs.rigMetricsNamespace, id) : undefined;

  /** Nothing starts before these pass: credentials, region, bucket access, the generator group. */
  const checkAccount = async () => {
    try {
      await api.getCallerIdentity();
    } catch (err) {
      throw explainAwsError(err, { region, doing: 'checking the AWS credentials (STS GetCallerIdentity)' });
    }
    try {
      await api.headBucket(bucket);
    } catch (err) {
      const e = explainAwsError(err, { region, bucket, doing: `opening the results bucket ${bucket}` });
      if (e instanceof RigError && /NotFound|NoSuchBucket/.test(e.message)) {
        throw new UsageError(`the results bucket ${bucket} does not exist in ${region}: the stacks are not deployed (or ${outputs.source} is stale); run \`npm run deploy\``);
      }
      throw e;
    }
    try {
      const { inService, desired } = await groupInstances(api, outputs.generatorAsgName);
      if (inService.length || desired) log(`generator group ${outputs.generatorAsgName}: ${inService.length} in service (desired ${desired ?? 0}) before the run`);
    } catch (err) {
      if (err instanceof RigError) throw new UsageError(err.message);
      throw explainAwsError(err, { region, doing: `describing the generator group ${outputs.generatorAsgName}` });
    }
  };

  /** The target of the run, checked with the account and quotas before anything scales. */
  const prepareTarget = async (plan: Plan): Promise<string> => {
    await checkAccount();
    // Quotas, zones and the cost estimate (--max-cost) before anything scales.
    await checkBeforeScaling({
      api, outputs, plan, log, generatorInstanceType: outputs.generatorInstanceType ?? DEFAULT_GENERATOR_INSTANCE_TYPE,
      processesPerGenerator: limits.processes, externalTarget: options.target !== undefined,
      ...(options.maxCost !== undefined ? { maxCost: options.maxCost } : {}), now: () => clock.now(),
    });
    const url = options.target ?? outputs.targetUrl?.replace(/\/+$/, '');
    if (!url) throw new UsageError(`the deployed rig has no target stack (targetKind none); pass --target URL of the system under test`);
    // The generators reach the target, not necessarily this machine (ALB restricted to the generators): warn only.
    await checkReachable(url, 3000).catch(() => log(`note: ${url} does not answer from this machine; the generators connect from their own network (the rig's target admits only them)`));
    log(`target: ${url}${options.target ? ' (--target)' : ` (stack ${RIG_STACK_NAMES.target})`}`);
    return url;
  };

  /** After the run: scale the generators to 0 once they were launched (unless --keep-generators); tear down when asked. */
  const scaleDown = async (fleetTouched: boolean) => {
    if (fleetTouched && !options.keepGenerators) {
      try {
        await api.setDesiredCapacity({ AutoScalingGroupName: outputs.generatorAsgName, DesiredCapacity: 0, HonorCooldown: false });
        log(`generator group ${outputs.generatorAsgName}: scaled to 0`);
      } catch (err) {
        log(`could not scale the generator group to 0 (${(err as Error).name}: ${(err as Error).message}); run: aws autoscaling set-desired-capacity --auto-scaling-group-name ${outputs.generatorAsgName} --desired-capacity 0`);
      }
    } else if (options.keepGenerators) {
      log(`generator group ${outputs.generatorAsgName}: left running (--keep-generators); the safety net scales it to 0 after its maximum lifetime`);
    }
    if (options.teardown && !teardownDone) {
      teardownDone = true;
      await teardown();
    }
  };

  return {
    name: 'aws',
    limits,
    generator,
    // Every generator is its own instance: each adds its cores' arrival rate.
    arrivalCapacity: { perSecond: arrivalsPerSecond(limits.processes), perGenerator: true },
    ...(outputs.maxGenerators !== undefined ? { maxGenerators: outputs.maxGenerators } : {}),
    portRange: AWS_PORT_RANGE,
    // Slices live in S3: a credentialed target URL is refused before the run (scripts/core/redact.ts).
    secretsInEnvironment: false,
    sourceAddress: () => undefined,
    publisherFor,

    async open({ runId, runDir, plan }) {
      const url = await prepareTarget(plan);
      const cleanups = cleanupStack();
      let fleetTouched = false;
      cleanups.push(() => scaleDown(fleetTouched));
      const store = s3Store(`s3://${bucket}/${runPrefix(runId)}`, api.s3);
      // From inside the VPC, as the load will: the first ready generator probes before the group scales out.
      let probe: ProbeSpec | undefined;
      const publisher = publisherFor(store, runId);
      const publishing: { stop: boolean; loop?: Promise<void> } = { stop: false };
      const stopPublishing = async () => {
        publishing.stop = true;
        await publishing.loop?.catch(() => undefined);
      };
      let restoreScaleIn: RestoreScaleIn | undefined;
      cleanups.push(async () => {
        await stopPublishing();
        await restoreScaleIn?.();
      });
      let inner: Fleet | undefined;
      const fleet: Fleet = {
        async launch(ids) {
          fleetTouched = true;
          try {
            // The mark (with its deadline) lets the next run, `npm run leftovers` or the safety net restore it after a kill.
            const now = clock.now();
            const restoreBy = scaleInRestoreBy(now, plan, props.fleet?.instanceTimeoutMs);
            restoreScaleIn = await suspendScaleIn(api, outputs.scaleInAlarmName, log, { marks: s3Store(`s3://${bucket}`, api.s3), runId, now: () => clock.now(), restoreBy });
          } catch (err) {
            throw explainAwsError(err, { region, doing: `suspending target scale-in (alarm ${outputs.scaleInAlarmName})` });
          }
          inner = awsFleet({
            api, runId, store, root: props.root, asgName: outputs.generatorAsgName, bucket, region,
            agentHome: outputs.generatorAgentHome, clock, log, ...(probe ? { preflight: probe } : {}),
            heapLimitMiB: generator.heapLimitMiB, ...(props.signal ? { signal: props.signal } : {}), ...props.fleet,
          });
          await inner.launch(ids);
          if (!publisher) return;
          publishing.loop = (async () => {
            while (!publishing.stop) {
              // Short sleeps so stopping returns promptly.
              for (let t = 0; t < PUBLISH_INTERVAL_MS && !publishing.stop; t += 1000) await clock.sleep(1000);
              if (!publishing.stop) await publisher.publishNew().catch((err: Error) => log(`rig metrics: PutMetricData failed (${err.name}); retrying`));
            }
          })();
        },
        status: () => inner?.status() ?? new Map<string, number | null | undefined>(),
        exitReason: (id) => inner?.exitReason(id),
        async stop() {
          await stopPublishing();
          await inner?.stop();
        },
      };
      cleanups.push(() => fleet.stop());
      const metrics = targetMetricsSource({
        url,
        store,
        extra: async (window) => {
          await stopPublishing();
          if (publisher) await publishLast(publisher, runId);
          return window ? collectExtra(window, runDir) : undefined;
        },
      });
      cleanups.push(() => metrics.collect(undefined).then(() => undefined));
      return {
        target: { url, stop: async () => undefined },
        store,
        fleet,
        metrics,
        timings: AWS_TIMINGS,
        async preflight(spec) {
          probe = spec;
        },
        copyToRunDir: () => copyStoreToFolder(store, runDir),
        close: () => cleanups.run(),
      };
    },
  };

  /** The last batch of the rig's own metrics, once the load has stopped. */
  async function publishLast(publisher: RigMetricsPublisher, runId: string): Promise<void> {
    try {
      const n = await publisher.publishNew();
      log(`rig metrics: published to CloudWatch namespace ${outputs.rigMetricsNamespace} (RunId=${runId}${n ? `, ${n} data points in the final batch` : ''})`);
    } catch (err) {
      log(`rig metrics: PutMetricData failed (${(err as Error).name}: ${(err as Error).message})`);
    }
  }

  /** CloudWatch for the load's window: series, alarms and the dashboard's graphs saved into the run folder. */
  async function collectExtra(window: LoadWindow, runDir: string): Promise<CloudWatchSection | undefined> {
    let section: CloudWatchSection | undefined;
    try {
      await waitForLastMinute(api, outputs, window, { clock, log }).catch((err: Error) => log(`cloudwatch: could not check for the last minute's datapoints (${err.name}); collecting now`));
      section = await collectCloudWatch(api, outputs, window);
      const images = await saveWidgetImages(api, outputs, window, runDir, log);
      if (images.length) section = { ...section, images };
      const withData = section.series.filter((s) => s.values.length > 0).length;
      log(`cloudwatch: ${withData}/${section.series.length} series with data, ${section.alarms?.length ?? 0} alarm/scaling events (metrics of the last minute may still be arriving)`);
    } catch (err) {
      log(`cloudwatch: metrics not collected (${(err as Error).name}: ${(err as Error).message}); the report has the rig's own data`);
    }
    if (outputs.dashboardUrl) log(`dashboard: ${outputs.dashboardUrl}`);
    return section;
  }

  async function teardown(): Promise<void> {
    const order = [...outputs.stackNames].reverse();
    log(`teardown: deleting ${order.join(', ')}`);
    try {
      for (const name of order) {
        await api.deleteStack({ StackName: name });
        const deadline = clock.now() + 45 * 60_000;
        for (;;) {
          let status: string | undefined;
          try {
            const res = await api.describeStacks({ StackName: name });
            status = res.Stacks?.[0]?.StackStatus;
          } catch (err) {
            if (isStackMissing(err)) break;
            throw err;
          }
          if (status === undefined || status === 'DELETE_COMPLETE') break;
          if (status === 'DELETE_FAILED') throw new RigError(`stack ${name} failed to delete (DELETE_FAILED); see the CloudFormation console, then run \`npm run teardown\``);
          if (clock.now() > deadline) throw new RigError(`stack ${name} still ${status} after 45 minutes`);
          await clock.sleep(10_000);
        }
        log(`teardown: ${name} deleted`);
      }
      (props.removeOutputsFile ?? (() => {
        if (path.isAbsolute(outputs.source) && fs.existsSync(outputs.source)) fs.rmSync(outputs.source);
      }))();
      log('teardown: done; nothing of the rig is left billing');
    } catch (err) {
      log(`teardown FAILED: ${(err as Error).message}; finish it with \`npm run teardown\``);
    }
  }
}
