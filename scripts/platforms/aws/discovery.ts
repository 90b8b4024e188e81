/**
 * Finds the deployed rig: the outputs file `npm run deploy` writes (`cdk-outputs.json`), else
 * CloudFormation DescribeStacks on the rig's stack names. Decides the default platform: aws when the
 * stacks are found, else local — and says which, and why.
 */
import type * as CloudFormation from '@aws-sdk/client-cloudformation';
import { UsageError } from '../../errors';
import type { AwsApi } from './clients';
import type * as AwsErrors from './aws-errors';

/** The rig's stack names; must equal STACK_NAMES in bin/rig.ts (a unit test checks, without loading the CDK here). */
export const RIG_STACK_NAMES = {
  network: 'LoadTestRig-Network',
  target: 'LoadTestRig-Target',
  generators: 'LoadTestRig-Generators',
} as const;

/** Name of a generator stack in a region other than the target's (bin/rig.ts regionalGeneratorStackName). */
export const regionalStackName = (region: string): string => `${RIG_STACK_NAMES.generators}-${region}`;

/** The outputs every generator stack has (home or another region). */
export interface GeneratorGroupOutputs {
  readonly generatorAsgName: string;
  readonly generatorAgentHome: string;
  readonly resultsBucketName: string;
  readonly maxGenerators?: number;
  /** The generators' EC2 instance type (absent in outputs of stacks deployed before it was an output). */
  readonly generatorInstanceType?: string;
  /** Secondary private IPv4 addresses per generator. */
  readonly generatorSecondaryIps?: number;
  readonly safetyNetFunctionName?: string;
  /** generatorMaxLifetimeMinutes: the safety net scales the group to 0 once any generator is this old. */
  readonly generatorMaxLifetimeMinutes?: number;
  /**
   * What the flow logs of the VPC the group runs in record (the FlowLogTraffic output of the stack that holds the VPC:
   * LoadTestRig-Network at home, the regional stack elsewhere); absent in stacks deployed before it was an output, which
   * logged all traffic.
   */
  readonly flowLogTraffic?: 'ALL' | 'REJECT';
}

/** The generators of one region other than the target's (stack LoadTestRig-Generators-<region>). */
export interface RegionalOutputs extends GeneratorGroupOutputs {
  readonly stackName: string;
  readonly region: string;
  /** Share of every run (the stack's RegionWeight output). */
  readonly weight: number;
  /** The NAT gateways' Elastic IPs every connection of the region leaves from (EgressAddress0, …). */
  readonly egressAddresses: readonly string[];
}

/** The deployed rig, as its CloudFormation outputs describe it. */
export interface RigOutputs extends GeneratorGroupOutputs {
  /** Where the outputs came from: the outputs file's path, or `CloudFormation (<region>)`. */
  readonly source: string;
  readonly region?: string;
  readonly rigMetricsNamespace?: string;
  readonly dashboardName?: string;
  readonly dashboardUrl?: string;
  /** Absent for a bring-your-own target (targetKind none). */
  readonly targetUrl?: string;
  readonly loadBalancerFullName?: string;
  /** The internet-facing ALB generators in other regions load (with generatorRegions). */
  readonly publicLoadBalancerFullName?: string;
  readonly scaleOutAlarmName?: string;
  readonly scaleInAlarmName?: string;
  readonly targetAsgName?: string;
  readonly targetServiceName?: string;
  readonly targetClusterName?: string;
  /** The EC2 target's instance type (quota check, cost estimate). */
  readonly targetInstanceType?: string;
  /** Most target instances (EC2) or tasks (Fargate) the target scales to. */
  readonly targetMaxCapacity?: number;
  /** vCPUs and memory (GB) of one Fargate target task. */
  readonly targetTaskVcpu?: number;
  readonly targetTaskMemoryGb?: number;
  /** Stacks found, in deploy order (teardown deletes them in reverse). */
  readonly stackNames: readonly string[];
  /** The home region's weight when the generators run in several regions (RegionWeight). */
  readonly regionWeight?: number;
  /** The target's internet-facing URL for generators in other regions (PublicTargetUrl). */
  readonly publicTargetUrl?: string;
  /** The generators of the other regions (deployed before the home stacks; torn down after them). */
  readonly regions?: readonly RegionalOutputs[];
  /** Regions the home generator stack names (RemoteGeneratorRegions), found or not. */
  readonly remoteRegionNames?: readonly string[];
  /**
   * Set on another region's outputs (multi-region.ts remoteOutputs): the run's cost is estimated and capped for every
   * region at once, not per region.
   * @default false
   */
  readonly costedWithOtherRegions?: boolean;
}

type OutputMap = Readonly<Record<string, string>>;

/** A positive number output, else undefined (absent in stacks deployed before it was an output). */
function positive(v: string | undefined): number | undefined {
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** A whole number output (>= min), else undefined. */
function whole(v: string | undefined, min: number): number | undefined {
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n >= min ? n : undefined;
}

/** A FlowLogTraffic output, else undefined. */
function flowLogTrafficOf(outputs: OutputMap | undefined): 'ALL' | 'REJECT' | undefined {
  const v = outputs?.FlowLogTraffic;
  return v === 'ALL' || v === 'REJECT' ? v : undefined;
}

/** The generator outputs every generator stack has (home or regional). */
function generatorOutputs(gen: OutputMap, stackName: string, source: string): GeneratorGroupOutputs {
  const need = (key: string): string => {
    const v = gen[key];
    if (!v) throw new UsageError(`${source}: stack ${stackName} has no output ${key}; redeploy with \`npm run deploy\``);
    return v;
  };
  return {
    generatorAsgName: need('GeneratorAsgName'),
    generatorAgentHome: need('GeneratorAgentHome'),
    resultsBucketName: need('ResultsBucketName'),
    maxGenerators: whole(gen.MaxGenerators, 1),
    generatorInstanceType: gen.GeneratorInstanceType || undefined,
    generatorSecondaryIps: whole(gen.GeneratorSecondaryIps, 0),
    safetyNetFunctionName: gen.SafetyNetFunctionName,
    generatorMaxLifetimeMinutes: whole(gen.GeneratorMaxLifetimeMinutes, 1),
  };
}

/** Builds {@link RigOutputs} from each stack's output map; undefined when the generator stack is missing. */
export function rigOutputsFrom(stacks: Readonly<Record<string, OutputMap>>, source: string): RigOutputs | undefined {
  const gen = stacks[RIG_STACK_NAMES.generators];
  if (!gen) return undefined;
  const target = stacks[RIG_STACK_NAMES.target] ?? {};
  const home = generatorOutputs(gen, RIG_STACK_NAMES.generators, source);
  const remoteRegionNames = (gen.RemoteGeneratorRegions ?? '').split(',').map((r) => r.trim()).filter((r) => r !== '');
  const regions: RegionalOutputs[] = [];
  for (const [name, outputs] of Object.entries(stacks)) {
    const region = name.startsWith(`${RIG_STACK_NAMES.generators}-`) ? name.slice(RIG_STACK_NAMES.generators.length + 1) : undefined;
    if (!region) continue;
    const egressAddresses = Object.keys(outputs).filter((k) => /^EgressAddress\d+$/.test(k)).sort().map((k) => outputs[k] ?? '');
    const flowLogTraffic = flowLogTrafficOf(outputs);
    regions.push({ stackName: name, region: outputs.Region || region, weight: whole(outputs.RegionWeight, 1) ?? 1, egressAddresses, ...generatorOutputs(outputs, name, source), ...(flowLogTraffic ? { flowLogTraffic } : {}) });
  }
  const missing = remoteRegionNames.filter((r) => !regions.some((x) => x.region === r));
  if (missing.length) {
    throw new UsageError(`${source}: the generator stacks of ${missing.map(regionalStackName).join(', ')} are not deployed (${RIG_STACK_NAMES.generators} names them); run \`npm run deploy\``);
  }
  const flowLogTraffic = flowLogTrafficOf(stacks[RIG_STACK_NAMES.network]);
  return {
    source,
    region: gen.Region,
    ...home,
    ...(flowLogTraffic ? { flowLogTraffic } : {}),
    rigMetricsNamespace: gen.RigMetricsNamespace,
    dashboardName: gen.DashboardName,
    dashboardUrl: gen.DashboardUrl,
    targetUrl: target.TargetUrl,
    loadBalancerFullName: target.LoadBalancerFullName,
    publicLoadBalancerFullName: target.PublicLoadBalancerFullName || undefined,
    scaleOutAlarmName: target.ScaleOutAlarmName,
    scaleInAlarmName: target.ScaleInAlarmName,
    targetAsgName: target.TargetAsgName,
    targetServiceName: target.TargetServiceName,
    targetClusterName: target.TargetClusterName,
    targetInstanceType: target.TargetInstanceType || undefined,
    targetMaxCapacity: positive(target.TargetMaxCapacity),
    targetTaskVcpu: positive(target.TargetTaskVcpu),
    targetTaskMemoryGb: positive(target.TargetTaskMemoryGb),
    stackNames: [RIG_STACK_NAMES.network, RIG_STACK_NAMES.target, RIG_STACK_NAMES.generators].filter((n) => stacks[n] !== undefined),
    ...(whole(gen.RegionWeight, 1) !== undefined ? { regionWeight: whole(gen.RegionWeight, 1) } : {}),
    ...(target.PublicTargetUrl ? { publicTargetUrl: target.PublicTargetUrl } : {}),
    ...(regions.length ? { regions } : {}),
    ...(remoteRegionNames.length ? { remoteRegionNames } : {}),
  };
}

/** Parses `cdk-outputs.json` (`{ "<StackName>": { "<OutputKey>": "value" } }`). */
export function parseOutputsFile(text: string, file: string): RigOutputs | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not valid JSON; delete it and run \`npm run deploy\` again`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new UsageError(`${file} is not a CDK outputs file ({ "<stack>": { "<output>": "value" } }); delete it and run \`npm run deploy\``);
  }
  const stacks: Record<string, OutputMap> = {};
  for (const [name, outputs] of Object.entries(json as Record<string, unknown>)) {
    if (typeof outputs === 'object' && outputs !== null) {
      stacks[name] = Object.fromEntries(Object.entries(outputs as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
    }
  }
  return rigOutputsFrom(stacks, file);
}

const LIVE_STATUSES = new Set(['CREATE_COMPLETE', 'UPDATE_COMPLETE', 'UPDATE_ROLLBACK_COMPLETE', 'IMPORT_COMPLETE', 'UPDATE_IN_PROGRESS', 'UPDATE_COMPLETE_CLEANUP_IN_PROGRESS']);

/** True for CloudFormation's answer about a stack that does not exist. */
export function isStackMissing(err: unknown): boolean {
  // CloudFormation answers a missing stack with a ValidationException "Stack with id X does not exist".
  // Loaded here, not at the top: a local run decides its platform without loading the AWS SDK (start-up).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { CloudFormationServiceException } = require('@aws-sdk/client-cloudformation') as typeof CloudFormation;
  return err instanceof CloudFormationServiceException && /does not exist/i.test(err.message);
}

/** Reads the rig stacks' outputs with DescribeStacks; undefined when the generator stack is not deployed. */
export async function describeRigStacks(api: AwsApi, apiFor: (region: string) => AwsApi = () => api): Promise<RigOutputs | undefined> {
  const stacks: Record<string, OutputMap> = {};
  const describe = async (a: AwsApi, name: string): Promise<void> => {
    try {
      const res = await a.describeStacks({ StackName: name });
      const stack = res.Stacks?.[0];
      if (!stack || !LIVE_STATUSES.has(String(stack.StackStatus))) return;
      stacks[name] = Object.fromEntries((stack.Outputs ?? []).filter((o) => o.OutputKey).map((o) => [String(o.OutputKey), String(o.OutputValue ?? '')]));
    } catch (err) {
      if (isStackMissing(err)) return;
      throw err;
    }
  };
  for (const name of Object.values(RIG_STACK_NAMES)) await describe(api, name);
  // The other generator regions, named by the home generator stack: each stack in its own region.
  for (const region of (stacks[RIG_STACK_NAMES.generators]?.RemoteGeneratorRegions ?? '').split(',').map((r) => r.trim()).filter((r) => r !== '')) {
    await describe(apiFor(region), regionalStackName(region));
  }
  return rigOutputsFrom(stacks, `CloudFormation (${api.region})`);
}

/** What discovery needs from the outside world (injected by the CLI). */
export interface DiscoveryDeps {
  /** Contents of the outputs file, or undefined when it does not exist. */
  readonly readOutputsFile: () => string | undefined;
  readonly outputsFile: string;
  /** The region the SDK would use (AWS_REGION / profile), if any. */
  readonly region?: string;
  /** True when credentials look configured, so asking CloudFormation is worth it without --platform aws. */
  readonly credentialsHinted: boolean;
  readonly api: (region: string) => AwsApi;
  /**
   * Longest CloudFormation lookup when --platform is not given.
   * @default 5000
   */
  readonly lookupTimeoutMs?: number;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms / 1000} s`), { code: 'ETIMEDOUT' })), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * True only when CloudFormation says the generator stack is gone (or being deleted). Any other answer, no
 * credentials, or no answer in time keeps the outputs file's word: the AWS run then reports its own error.
 */
async function stackGone(api: AwsApi, timeoutMs: number): Promise<boolean> {
  try {
    const res = await withTimeout(api.describeStacks({ StackName: RIG_STACK_NAMES.generators }), timeoutMs);
    const status = res?.Stacks?.[0]?.StackStatus;
    return status !== undefined && /^DELETE_/.test(String(status));
  } catch (err) {
    return isStackMissing(err);
  }
}

/** The platform chosen and the line that says why. */
export interface PlatformChoice {
  readonly platform: 'local' | 'aws';
  readonly outputs?: RigOutputs;
  readonly line: string;
}

/**
 * Chooses the platform. With `--platform aws` the stacks must be found (else a clear UsageError);
 * with no `--platform`, aws when found, local otherwise (discovery errors then only explain the choice).
 */
export async function choosePlatform(requested: 'local' | 'aws' | undefined, deps: DiscoveryDeps): Promise<PlatformChoice> {
  if (requested === 'local') return { platform: 'local', line: 'platform: local (--platform local)' };
  const fileText = deps.readOutputsFile();
  if (fileText !== undefined) {
    const outputs = parseOutputsFile(fileText, deps.outputsFile);
    if (outputs) {
      const region = outputs.region ?? deps.region;
      if (region && (await stackGone(deps.api(region), deps.lookupTimeoutMs ?? 5000))) {
        // `npm run teardown` (cdk destroy) before it removed the file, or stacks deleted by hand: the file is stale.
        const stale = `${deps.outputsFile} names ${RIG_STACK_NAMES.generators}, which no longer exists in ${region}`;
        if (requested === 'aws') throw new UsageError(`--platform aws: ${stale}; run \`npm run deploy\` again, or delete ${deps.outputsFile} to run locally`);
        return { platform: 'local', line: `platform: local (${stale}: delete the file, or \`npm run deploy\` to run on AWS)` };
      }
      const why = requested ? '--platform aws' : `deployed stacks found in ${deps.outputsFile}`;
      return { platform: 'aws', outputs, line: `platform: aws (${why}; region ${outputs.region ?? deps.region ?? 'from the SDK'})` };
    }
  }
  // A file that is there but names no rig stack (`{}`, another app's outputs) is said as such, not as missing.
  const noFile = fileText === undefined ? `no ${deps.outputsFile}` : `${deps.outputsFile} names no rig stack`;
  if (requested !== 'aws' && !deps.credentialsHinted) {
    return { platform: 'local', line: `platform: local (${noFile} and no AWS credentials configured; deploy with \`npm run deploy\` to run on AWS)` };
  }
  const region = deps.region;
  if (!region) {
    if (requested === 'aws') throw new UsageError(`--platform aws: ${noFile} and no AWS region set; run \`npm run deploy\` (it writes the outputs file) or set AWS_REGION to the region you deployed to`);
    return { platform: 'local', line: `platform: local (${noFile} and no AWS region set)` };
  }
  let outputs: RigOutputs | undefined;
  try {
    const lookup = describeRigStacks(deps.api(region), deps.api);
    // Without --platform aws, a slow or unreachable AWS must not hold up a local run.
    outputs = requested === 'aws' ? await lookup : await withTimeout(lookup, deps.lookupTimeoutMs ?? 5000);
  } catch (err) {
    const { explainAwsError, isNoCredentials, isUnreachable } = (await import('./aws-errors')) as typeof AwsErrors;
    if (requested === 'aws') throw explainAwsError(err, { region, doing: 'looking for the rig stacks (CloudFormation DescribeStacks)' });
    const why = isNoCredentials(err) ? 'no AWS credentials' : isUnreachable(err) ? `AWS unreachable in ${region}` : `CloudFormation: ${(err as Error).message}`;
    return { platform: 'local', line: `platform: local (${why}; the rig stacks could not be looked up)` };
  }
  if (outputs) {
    return { platform: 'aws', outputs, line: `platform: aws (${requested ? '--platform aws' : 'deployed stacks found'} via CloudFormation in ${region})` };
  }
  if (requested === 'aws') {
    throw new UsageError(`--platform aws: the rig stacks (${RIG_STACK_NAMES.generators}) are not deployed in region ${region}; run \`npm run deploy\` first (or set AWS_REGION to the region you deployed to)`);
  }
  return { platform: 'local', line: `platform: local (the rig stacks are not deployed in ${region}; \`npm run deploy\` to run on AWS)` };
}
