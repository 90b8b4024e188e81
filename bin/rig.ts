import { App, Aspects, Duration, Stack, StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { TargetStack } from '../target-stack/target-stack';
import { RigConfig } from '../lib/config';
import { GeneratorStack } from '../lib/generator-stack';
import { FunctionLogGroups } from '../lib/log-groups';
import { NetworkStack } from '../lib/network-stack';
import { InternetFacingReachabilityCheck } from '../lib/reachability-check';

/** Stable stack names (the CLI reads their outputs from cdk-outputs.json). */
export const STACK_NAMES = {
  network: 'LoadTestRig-Network',
  target: 'LoadTestRig-Target',
  generators: 'LoadTestRig-Generators',
} as const;

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
}

/**
 * Composes the rig's stacks from a validated config. Env-agnostic on purpose: `cdk synth` works
 * offline with no account, and the deploy account/region come from the CLI's credentials.
 */
export function buildRig(app: App, config: RigConfig, stackProps: StackProps = {}): Rig {
  const network = new NetworkStack(app, STACK_NAMES.network, {
    ...stackProps,
    description: 'loadtest-rig: VPC with public subnets only (no NAT), flow logs, generator security group',
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
      redis: config.redis,
      sessionManager: config.targetSessionManager,
    });
  }

  const generators = new GeneratorStack(app, STACK_NAMES.generators, {
    ...stackProps,
    description: 'loadtest-rig: generator fleet (SSM only), results bucket, dashboard, lifetime safety net',
    vpc,
    generatorSecurityGroup,
    instanceType: new ec2.InstanceType(config.generatorInstanceType),
    maxGenerators: config.maxGenerators,
    secondaryPrivateIps: config.generatorSecondaryIps,
    maxLifetime: Duration.minutes(config.generatorMaxLifetimeMinutes),
    metricsNamespace: RIG_METRICS_NAMESPACE,
    resultsExpiryDays: config.resultsExpiryDays,
    dashboardName: DASHBOARD_NAME,
    target: target?.dashboardMetrics,
  });
  if (target) generators.addStackDependency(target);
  for (const s of [network, target, generators]) if (s) tagRig(s);
  // Unreachable-by-construction load balancers fail the synth (one error line each).
  Aspects.of(app).add(new InternetFacingReachabilityCheck());
  return { network, target, generators };
}

function tagRig(stack: Stack): void {
  stack.tags.setTag('loadtest-rig', 'true');
  // Every function's logs in a group the stack owns and deletes (teardown leaves no log group).
  FunctionLogGroups.applyTo(stack);
}
