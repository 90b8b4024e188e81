import { App, Aspects, Duration, Fn, Stack, StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { TargetStack } from '../target-stack/target-stack';
import { RigConfig, RigConfigError, parseRigConfig, readRigContext } from '../lib/config';
import { RegionalGeneratorStack } from '../lib/generator-region-stack';
import { GeneratorStack } from '../lib/generator-stack';
import { FunctionLogGroups } from '../lib/log-groups';
import { NetworkStack } from '../lib/network-stack';
import { InternetFacingReachabilityCheck, RemoteRegionReachabilityCheck } from '../lib/reachability-check';
import { ResourceSignalCheck } from '../lib/signal-check';
import { InstanceLaunchCheck } from '../lib/instance-launch-check';

/** Stable stack names (the CLI reads their outputs from cdk-outputs.json). */
export const STACK_NAMES = {
  network: 'LoadTestRig-Network',
  target: 'LoadTestRig-Target',
  generators: 'LoadTestRig-Generators',
} as const;

/** Name of the generator stack of a region other than the target's (scripts/platforms/aws/discovery.ts mirrors it). */
export const regionalGeneratorStackName = (region: string): string => `${STACK_NAMES.generators}-${region}`;

/** Custom CloudWatch namespace of the rig's own metrics. */
export const RIG_METRICS_NAMESPACE = 'LoadTestRig';

/** Name of the run dashboard. */
export const DASHBOARD_NAME = 'LoadTestRig';

/** The stacks of one rig. */
export interface Rig {
  /** VPC and generator security group. */
  readonly network: NetworkStack;
  /** The target; absent when targetKind=none. */
  readonly target?: TargetStack;
  /** Generators, results bucket, dashboard. */
  readonly generators: GeneratorStack;
  /** Generators of the other regions (generatorRegions after the first), one stack each. */
  readonly regional: readonly RegionalGeneratorStack[];
}

/**
 * Composes the rig's stacks from a validated config. Env-agnostic on purpose: `cdk synth` works
 * offline with no account, and the deploy account/region come from the CLI's credentials.
 */
export function buildRig(app: App, config: RigConfig, baseProps: StackProps = {}): Rig {
  const [home, ...others] = config.generatorRegions;
  // Regions listed: the home stacks are pinned to the first (the target's) region, so a deploy cannot put them in
  // another one by accident; none listed: env-agnostic as before (the region comes from the CLI).
  const stackProps: StackProps = home ? { ...baseProps, env: { ...baseProps.env, region: home.region } } : baseProps;
  const fleetTuning = {
    instanceType: new ec2.InstanceType(config.generatorInstanceType),
    maxGenerators: config.maxGenerators,
    secondaryPrivateIps: config.generatorSecondaryIps,
    maxLifetime: Duration.minutes(config.generatorMaxLifetimeMinutes),
    resultsExpiryDays: config.resultsExpiryDays,
  };
  // Deployed first: the target admits their NAT addresses (read across regions with Fn::GetStackOutput).
  const regional = others.map((r) => new RegionalGeneratorStack(app, regionalGeneratorStackName(r.region), {
    ...baseProps,
    description: `loadtest-rig: generator fleet in ${r.region} (private subnets behind NAT with fixed addresses), results bucket, lifetime safety net`,
    region: r.region,
    weight: r.weight,
    flowLogTraffic: config.flowLogTraffic,
    ...fleetTuning,
  }));

  const network = new NetworkStack(app, STACK_NAMES.network, {
    ...stackProps,
    description: 'loadtest-rig: VPC with public subnets only (no NAT), flow logs, generator security group',
    flowLogTraffic: config.flowLogTraffic,
  });
  const { vpc, generatorSecurityGroup } = network.network;

  let target: TargetStack | undefined;
  if (config.targetKind !== 'none') {
    target = new TargetStack(app, STACK_NAMES.target, {
      ...stackProps,
      description: `loadtest-rig: ${config.targetKind} target behind an internal ALB with CPU step scaling`,
      vpc,
      generatorSecurityGroup,
      kind: config.targetKind,
      minCapacity: config.minCapacity,
      maxCapacity: config.maxCapacity,
      scaleOutCpuPercent: config.scaleOutCpuPercent,
      scaleInCpuPercent: config.scaleInCpuPercent,
      breachDurationMinutes: config.breachDurationMinutes,
      instanceType: new ec2.InstanceType(config.targetInstanceType),
      image: config.targetImage,
      operatorCidr: config.operatorCidr,
      remoteGeneratorCidrs: regional.flatMap((r) => r.egressOutputKeys.map((key) => ({
        // Fn::GetStackOutput reads another region's output at deploy time (no export, no custom resource).
        cidr: Fn.join('', [Fn.getStackOutput(r.stackName, key, r.generatorRegion), '/32']),
        description: `generators in ${r.generatorRegion} (NAT ${key})`,
      }))),
      redis: config.redis,
      sessionManager: config.targetSessionManager,
    });
  }

  const generators = new GeneratorStack(app, STACK_NAMES.generators, {
    ...stackProps,
    description: 'loadtest-rig: generator fleet (SSM only), results bucket, dashboard, lifetime safety net',
    vpc,
    generatorSecurityGroup,
    ...fleetTuning,
    metricsNamespace: RIG_METRICS_NAMESPACE,
    ...(home && others.length > 0 ? { regionWeight: home.weight, remoteRegions: others.map((r) => r.region) } : {}),
    dashboardName: DASHBOARD_NAME,
    target: target?.dashboardMetrics,
  });
  if (target) {
    generators.addStackDependency(target);
    for (const r of regional) target.addStackDependency(r);
  }
  for (const s of [...regional, network, target, generators]) if (s) tagRig(s);
  // Unreachable-by-construction load balancers, and regions that cannot reach the target, fail the synth (one line each).
  Aspects.of(app).add(new InternetFacingReachabilityCheck());
  Aspects.of(app).add(new RemoteRegionReachabilityCheck());
  // A rolling update with no health signal, or signals no instance sends, fails the synth (lib/signal-check.ts).
  Aspects.of(app).add(new ResourceSignalCheck());
  // A launch template that leaves the metadata endpoint or its volumes' deletion to the account or the image fails it too.
  Aspects.of(app).add(new InstanceLaunchCheck());
  return { network, target, generators, regional };
}

/** Where {@link composeApp} reports a refusal and how it ends the process (tests pass their own). */
export interface AppIo {
  error(line: string): void;
  exit(code: number): never;
  /** `cdk synth --debug` (CDK_DEBUG=true): an error building the stacks keeps its stack trace. */
  readonly debug?: boolean;
  /** The keys of cdk.json's own context: the user's deliberate settings, never taken for a misspelt rig key. */
  readonly cdkJsonKeys?: readonly string[];
}

/**
 * bin/app.ts's work: reads and validates the app's whole context (every key: a misspelt rig key is refused too),
 * then builds the rig. A bad context is the user's input: one line per problem, exit 2; any other error building the
 * stacks is one line too, exit 1.
 */
export function composeApp(app: App, io: AppIo, build: (app: App, config: RigConfig) => unknown = buildRig): void {
  const own = new Set(io.cdkJsonKeys ?? []);
  const given = Object.fromEntries(Object.entries(app.node.getAllContext() as Record<string, unknown>).filter(([k]) => !own.has(k)));
  let config: RigConfig;
  try {
    config = parseRigConfig(readRigContext((key) => app.node.tryGetContext(key)), given);
  } catch (err) {
    if (!(err instanceof RigConfigError)) throw err;
    for (const problem of err.problems) io.error(`error: ${problem}`);
    return io.exit(2);
  }
  try {
    build(app, config);
  } catch (err) {
    // A value the checks let through but a construct refuses (aws-cdk-lib's own validation) would end the synth in a
    // raw stack trace: one line instead, exit 1 as cdk's own failures. `cdk synth --debug` (CDK_DEBUG=true) keeps the trace.
    if (io.debug) throw err;
    const message = (err instanceof Error ? err.message : String(err)).split('\n').find((l) => l.trim() !== '')?.trim();
    io.error(`error: the stacks could not be built from this context: ${message ?? 'an unknown error'} (cdk synth --debug shows where)`);
    return io.exit(1);
  }
}

function tagRig(stack: Stack): void {
  stack.tags.setTag('loadtest-rig', 'true');
  // Every function's logs in a group the stack owns and deletes (teardown leaves no log group).
  FunctionLogGroups.applyTo(stack);
}
