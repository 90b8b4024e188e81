/**
 * The AWS platform: generators are instances of the deployed generator group driven through SSM Run
 * Command, the run store is the results bucket's `runs/<runId>/` prefix, the target is the deployed
 * target stack (or --target), and CloudWatch adds the run window's metrics to the report. Same run
 * sequence (scripts/run.ts) and orchestrator as the local platform.
 */
import { localStore, s3Store } from '../../../load-generators/lib/run-store';
import { targetMetricsSource } from '../../adapters/target-metrics';
import type { Clock, RunStore } from '../../contracts';
import { AWS_PORT_RANGE, DeployedGenerator, InstanceSpec, SecondaryIpsError, UnknownInstanceTypeError, arrivalsPerSecond, deployedGenerator } from '../../core/capacity-model';
import { UsageError } from '../../errors';
import type { RunOptions } from '../../options';
import type { ProbeSpec } from '../../preflight';
import { OpenRun, Platform, RunTimings, cleanupStack } from '../platform';
import { runPrefix } from './bundle';
import type { AwsApi } from './clients';
import { RigMetricsPublisher } from './cloudwatch';
import type { RigOutputs } from './discovery';
import { DEFAULT_GENERATOR_INSTANCE_TYPE, RunCheckContext, prepareTarget } from './run-checks';
import { READY_TIMEOUT_MS, checkGeneratorLifetime, fleetBudgets, fleetSpanMs } from './fleet-span';
import { checkKeptGenerators } from './kept-generators';
import { runFleet } from './run-fleet';
import { collectRunCloudWatch, publishLast, publishingLoop } from './run-metrics';
import { awaitAgentsData, scaleGeneratorsToZero, teardownStacks } from './run-teardown';

export { DEFAULT_GENERATOR_INSTANCE_TYPE };

/** Instances take minutes to launch and boot; the start instant must reach agents polling S3. */
const AWS_TIMINGS: RunTimings = { readyTimeoutMs: READY_TIMEOUT_MS, startLeadMs: 5000 };

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
    // Before any generator is asked for: EC2 would refuse every launch, and the run would wait out its fleet deadline.
    if (err instanceof SecondaryIpsError) throw new UsageError(`the generators${outputs.region ? ` in ${outputs.region}` : ''}: ${err.message} and redeploy (npm run deploy)`);
    throw err;
  }
}

const wallClock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

/**
 * GETs in flight while a run store is copied: a 100-generator run is ~50,000 small objects, which one at a time
 * takes most of an hour; the SDK's default agent keeps 50 sockets, so this many never queue behind each other.
 */
export const COPY_CONCURRENCY = 24;

/** Copies a run store into the local run folder, without the agent bundle (the home region's, or another's under regions/<region>/). */
export async function copyStoreToFolder(store: RunStore, runDir: string, concurrency = COPY_CONCURRENCY): Promise<void> {
  const local = localStore(runDir);
  const keys = (await store.list('')).filter((k) => !/^(regions\/[^/]+\/)?bundle\//.test(k));
  let next = 0;
  const copyNext = async (): Promise<void> => {
    for (let key = keys[next++]; key !== undefined; key = keys[next++]) {
      const body = await store.get(key);
      if (body !== undefined) await local.put(key, body);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, keys.length)) }, copyNext));
}

/**
 * What runs give back: the generators (each run's, once it no longer needs them) and, with --teardown, the stacks
 * (once for the platform).
 */
function afterRuns(ctx: RunCheckContext, removeOutputsFile?: () => void) {
  const { options, outputs, log } = ctx;
  let teardownDone = false;
  return {
    /** The generators are no longer needed: scaled to 0 once they were launched (unless --keep-generators). */
    async releaseGenerators(fleetTouched: boolean) {
      if (fleetTouched && !options.keepGenerators) {
        await scaleGeneratorsToZero(ctx.api, outputs, log);
      } else if (options.keepGenerators) {
        log(`generator group ${outputs.generatorAsgName}: left running (--keep-generators); the safety net scales it to 0 after its maximum lifetime`);
      }
    },
    async tearDown() {
      if (!options.teardown || teardownDone) return;
      teardownDone = true;
      await teardownStacks({ ...ctx, ...(removeOutputsFile ? { removeOutputsFile } : {}) });
    },
  };
}

/** The AWS platform with what the CLI reads from it besides the {@link Platform} contract. */
export type AwsPlatform = Platform & { readonly generator: DeployedGenerator; readonly publisherFor: (store: RunStore, runId: string) => RigMetricsPublisher | undefined };

/** Builds the AWS platform over the deployed rig's outputs. */
export function awsPlatform(props: AwsPlatformProps): AwsPlatform {
  const { outputs } = props;
  const ctx: RunCheckContext = { api: props.api, outputs, options: props.options, log: props.log, clock: props.clock ?? wallClock };
  const generator = deployedGeneratorOf(outputs, props.targetIsPrivate ?? false, props.generatorCapacity, props.instanceSpec);
  const limits = generator.limits;
  const publisherFor = (s: RunStore, id: string) =>
    outputs.rigMetricsNamespace ? new RigMetricsPublisher(props.api, s, outputs.rigMetricsNamespace, id) : undefined;
  const { releaseGenerators, tearDown } = afterRuns(ctx, props.removeOutputsFile);

  return {
    name: 'aws',
    limits,
    generator,
    // Every generator is its own instance: each adds its cores' arrival rate.
    arrivalCapacity: { perSecond: arrivalsPerSecond(limits.processes), perGenerator: true },
    ...(outputs.maxGenerators !== undefined
      ? { maxGenerators: outputs.maxGenerators, maxGeneratorsWhy: `the deployed generator group's maximum (raise it with npx cdk deploy --all -c maxGenerators=N and the other -c keys of your last deploy, which CDK does not keep; docs/aws-deploy.md#context-keys)` }
      : {}),
    portRange: AWS_PORT_RANGE,
    // Slices live in S3: a credentialed target URL is refused before the run (scripts/core/redact.ts).
    secretsInEnvironment: false,
    sourceAddress: () => undefined,
    publisherFor,

    async open({ runId, runDir, plan, sessionSeconds }): Promise<OpenRun> {
      const budgets = fleetBudgets(props.fleet);
      checkGeneratorLifetime(plan, sessionSeconds ?? 0, outputs.generatorMaxLifetimeMinutes, budgets);
      // Instances a --keep-generators run left are older than this run: their launch counts toward the lifetime too.
      await checkKeptGenerators({ api: ctx.api, asgName: outputs.generatorAsgName, maxLifetimeMinutes: outputs.generatorMaxLifetimeMinutes, spanMs: fleetSpanMs(plan, sessionSeconds ?? 0, budgets), now: ctx.clock.now(), log: ctx.log });
      const url = await prepareTarget(ctx, plan, limits.processes, sessionSeconds ?? 0, budgets);
      const cleanups = cleanupStack();
      let fleetTouched = false;
      // Once, as soon as the load is over and the agents' data is in S3 (before CloudWatch's wait and the copy:
      // the generators bill by the second), else when the run closes.
      let released: Promise<void> | undefined;
      const release = () => (released ??= releaseGenerators(fleetTouched));
      cleanups.push(async () => {
        await release();
        await tearDown();
      });
      const store = s3Store(`s3://${outputs.resultsBucketName}/${runPrefix(runId)}`, ctx.api.s3);
      // From inside the VPC, as the load will: the first ready generator probes before the group scales out.
      let probe: ProbeSpec | undefined;
      const publisher = publisherFor(store, runId);
      const publishing = publishingLoop(ctx);
      const { fleet, restoreScaleIn } = runFleet({
        ...ctx, root: props.root, runId, plan, ...(sessionSeconds !== undefined ? { sessionSeconds } : {}), store, heapLimitMiB: generator.heapLimitMiB,
        ...(props.signal ? { signal: props.signal } : {}), ...(props.fleet ? { timings: props.fleet } : {}),
        probe: () => probe, publishing, publisher, onLaunch: () => { fleetTouched = true; },
      });
      cleanups.push(async () => {
        await publishing.stop();
        await restoreScaleIn();
      });
      cleanups.push(() => fleet.stop());
      const metrics = targetMetricsSource({
        url,
        store,
        referenceTarget: !ctx.options.target,
        extra: async (window) => {
          await publishing.stop();
          if (publisher) await publishLast(ctx, publisher, runId);
          // The load is over (the run sequence collects once the orchestrator has stopped the fleet): the generators
          // go before CloudWatch's wait and the copy, once every agent's data is in S3.
          if (window) await awaitAgentsData(fleet, store, ctx.clock);
          await release();
          return window ? collectRunCloudWatch(ctx, window, runDir) : undefined;
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
}
