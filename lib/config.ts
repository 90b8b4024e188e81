/**
 * The rig's deploy-time configuration: every CDK context key, its default, and the
 * validation that turns raw context (JSON from cdk.json or strings from `-c key=value`)
 * into one typed {@link RigConfig}. Nothing else in the app reads context.
 */

import { GeneratorRegion, imageReferenceProblem, instanceTypeProblem, ipv4CidrProblem, misspeltRigKey, parseGeneratorRegions } from './context-checks';
import { INSTANCE_TYPES, secondaryIpsProblem } from './instance-types';
import { subnetCapacityProblem } from './subnet-capacity';


/** What the VPC flow logs record (lib/network.ts). */
export type FlowLogTraffic = 'REJECT' | 'ALL';

/** Where the system under test comes from. */
export type TargetKind = 'ec2' | 'fargate' | 'none';

/** The validated configuration every stack is built from. */
export interface RigConfig {
  /** `ec2` (auto-scaling group, Twine), `fargate` (ECS service, River) or `none` (bring your own target). */
  readonly targetKind: TargetKind;
  /** Target instance type; t2/t3 only, matching the burstable instances the reference systems ran on. */
  readonly targetInstanceType: string;
  /** Fewest target instances/tasks. */
  readonly minCapacity: number;
  /** Most target instances/tasks. */
  readonly maxCapacity: number;
  /** Average target CPU (%) that, held for {@link breachDurationMinutes}, adds one instance/task. */
  readonly scaleOutCpuPercent: number;
  /** Average target CPU (%) below which, held as long, one instance/task is removed (half the scale-out threshold). */
  readonly scaleInCpuPercent: number;
  /** Minutes the CPU condition must hold (one 60 s datapoint per minute, all must breach). */
  readonly breachDurationMinutes: number;
  /** Generator instance type. */
  readonly generatorInstanceType: string;
  /** Upper bound of the generator auto-scaling group. */
  readonly maxGenerators: number;
  /** Secondary private IPv4 addresses per generator (more source addresses: past one address's ephemeral ports). */
  readonly generatorSecondaryIps: number;
  /** Generators running longer than this are scaled away by the safety net. */
  readonly generatorMaxLifetimeMinutes: number;
  /** IPv4 CIDR the operator reaches the target's load balancer from; undefined means generators only. */
  readonly operatorCidr?: string;
  /** The user's own container image for `fargate`; undefined means build the reference target. */
  readonly targetImage?: string;
  /** Whether an ElastiCache Redis backs the Socket.IO Redis adapter. */
  readonly redis: boolean;
  /** Days after which run results in the results bucket expire. */
  readonly resultsExpiryDays: number;
  /** Session Manager on the EC2 target's instances (opt-in). */
  readonly targetSessionManager: boolean;
  /** What the rig's VPC flow logs record: rejected traffic only (the default), or all of it (opt-in: billed per record). */
  readonly flowLogTraffic: FlowLogTraffic;
  /**
   * Regions the generators run in, with weights; the first is the target's region (the home stacks are pinned
   * to it). Empty: one region, the one the CLI deploys to (env-agnostic stacks, as without this key).
   */
  readonly generatorRegions: readonly GeneratorRegion[];
}

/** The context keys the app reads, with the defaults also written in cdk.json. */
export const CONTEXT_DEFAULTS = {
  targetKind: 'ec2',
  targetInstanceType: 't3.small',
  minCapacity: 1,
  maxCapacity: 4,
  scaleOutCpuPercent: 40,
  breachDurationMinutes: 2,
  generatorInstanceType: 'c5.large',
  generatorSecondaryIps: 1,
  maxGenerators: 10,
  generatorMaxLifetimeMinutes: 180,
  operatorCidr: 'none',
  targetImage: 'none',
  redis: 'auto',
  resultsExpiryDays: 30,
  targetSessionManager: false,
  flowLogTraffic: 'REJECT',
  generatorRegions: 'none',
} as const;

/** Names of the context keys the rig understands. */
export type ContextKey = keyof typeof CONTEXT_DEFAULTS;

/** Raw context values as CDK hands them over (JSON values from cdk.json, strings from `-c`). */
export type RawContext = Partial<Record<ContextKey, unknown>>;

/** Thrown when one or more context values are invalid; the message lists every problem and its fix. */
export class RigConfigError extends Error {
  /** One line per invalid key. */
  public readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`Invalid loadtest-rig configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'RigConfigError';
    this.problems = problems;
  }
}

const TARGET_KINDS: readonly TargetKind[] = ['ec2', 'fargate', 'none'];
const FLOW_LOG_TRAFFIC: readonly FlowLogTraffic[] = ['REJECT', 'ALL'];
const T_FAMILY = /^t[23]\.(nano|micro|small|medium|large|xlarge|2xlarge)$/;

/** Reads context keys (default when missing) and collects one problem line per bad key. */
interface ContextReader {
  readonly problems: string[];
  value(key: ContextKey): unknown;
  /** Records that `key` is not one of the `allowed` values. */
  bad(key: ContextKey, allowed: string): void;
  /** Records what is wrong with `key`'s value (`why`), then `-c key=example` (the default unless given; null: none, `why` names the fix). */
  wrong(key: ContextKey, why: string, example?: string | null): void;
  /** A whole number from min to max (the default, and a problem, otherwise). */
  int(key: ContextKey, min: number, max: number): number;
  /** A string; "none" or empty is undefined. */
  optional(key: ContextKey): string | undefined;
}

function contextReader(raw: RawContext): ContextReader {
  const problems: string[] = [];
  const value = (key: ContextKey): unknown => raw[key] ?? CONTEXT_DEFAULTS[key];
  const bad = (key: ContextKey, allowed: string): void => {
    problems.push(`context "${key}" is ${JSON.stringify(value(key))}; allowed: ${allowed} (e.g. -c ${key}=${String(CONTEXT_DEFAULTS[key])})`);
  };
  const wrong = (key: ContextKey, why: string, example: string | null = String(CONTEXT_DEFAULTS[key])): void => {
    problems.push(`context "${key}" is ${JSON.stringify(value(key))}: ${why}${example === null ? '' : ` (e.g. -c ${key}=${example})`}`);
  };
  const int = (key: ContextKey, min: number, max: number): number => {
    const v = value(key);
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) {
      bad(key, `an integer from ${min} to ${max}`);
      return Number(CONTEXT_DEFAULTS[key]);
    }
    return n;
  };
  const optional = (key: ContextKey): string | undefined => {
    const v = value(key);
    if (typeof v !== 'string') {
      bad(key, 'a string, or "none"');
      return undefined;
    }
    const s = v.trim();
    return s === '' || s === 'none' ? undefined : s;
  };
  return { problems, value, bad, wrong, int, optional };
}

/** `operatorCidr`: an IPv4 CIDR narrower than /0 in canonical form, or undefined ("none": generators only). */
function readOperatorCidr(r: ContextReader): string | undefined {
  const operatorCidr = r.optional('operatorCidr');
  const problem = operatorCidr === undefined ? undefined : ipv4CidrProblem(operatorCidr);
  if (problem) r.wrong('operatorCidr', problem, null);
  return operatorCidr;
}

/** `redis`: true | false | auto (on when the target can have more than one instance/task). */
function readRedis(r: ContextReader, maxCapacity: number): boolean {
  const redisRaw = String(r.value('redis')).trim().toLowerCase();
  if (redisRaw === 'true') return true;
  if (redisRaw === 'false') return false;
  if (redisRaw !== 'auto') r.bad('redis', 'true | false | auto (auto = on when maxCapacity > 1)');
  return maxCapacity > 1;
}

/**
 * The keys that shape only some target kinds, with the values that leave them off (default: the key's default).
 * Set to anything else with another kind, the rig would drop them without a word, so they are refused.
 */
const APPLIES_TO: Partial<Record<ContextKey, { readonly kinds: readonly TargetKind[]; readonly off?: readonly string[] }>> = {
  targetInstanceType: { kinds: ['ec2'] },
  targetSessionManager: { kinds: ['ec2'] },
  targetImage: { kinds: ['fargate'], off: ['none', ''] },
  operatorCidr: { kinds: ['ec2', 'fargate'], off: ['none', ''] },
  redis: { kinds: ['ec2', 'fargate'], off: ['auto', 'false'] },
  minCapacity: { kinds: ['ec2', 'fargate'] },
  maxCapacity: { kinds: ['ec2', 'fargate'] },
  scaleOutCpuPercent: { kinds: ['ec2', 'fargate'] },
  breachDurationMinutes: { kinds: ['ec2', 'fargate'] },
};

/** One line per key of {@link APPLIES_TO} set (and otherwise valid) for a kind it does not apply to. */
function inapplicableKeyProblems(r: ContextReader, kind: TargetKind): string[] {
  const out: string[] = [];
  for (const [key, rule] of Object.entries(APPLIES_TO) as Array<[ContextKey, NonNullable<(typeof APPLIES_TO)[ContextKey]>]>) {
    const off = rule.off ?? [String(CONTEXT_DEFAULTS[key])];
    const v = r.value(key);
    if (rule.kinds.includes(kind) || off.includes(String(v).trim().toLowerCase())) continue;
    if (r.problems.some((p) => p.startsWith(`context "${key}"`))) continue;
    out.push(`context "${key}" is ${JSON.stringify(v)} but only applies to targetKind=${rule.kinds.join(' | ')}; with targetKind=${kind} it would be ignored: remove it, or set it to ${off.filter((o) => o !== '').join(' | ')}`);
  }
  return out;
}

/**
 * Validates raw context into a {@link RigConfig}. Missing keys take {@link CONTEXT_DEFAULTS}. `other` is the rest
 * of the context given (key → value; cdk.json's own keys left out): a key within two edits of a rig key, case aside,
 * is a misspelling the rig would silently ignore, so it is refused.
 * @throws RigConfigError naming each bad key, the value given and the allowed values.
 */
export function parseRigConfig(raw: RawContext, other: Readonly<Record<string, unknown>> = {}): RigConfig {
  const r = contextReader(raw);
  const { problems, value, bad, int, optional } = r;

  const rigKeys = Object.keys(CONTEXT_DEFAULTS) as ContextKey[];
  for (const [key, v] of Object.entries(other)) {
    const meant = misspeltRigKey(key, rigKeys);
    if (meant) problems.push(`unknown context key "${key}"; did you mean "${meant}"? (the rig would ignore it; use -c ${meant}=${typeof v === 'string' ? v : JSON.stringify(v)})`);
  }

  const targetKindRaw = String(value('targetKind'));
  const targetKind = TARGET_KINDS.find((k) => k === targetKindRaw);
  if (!targetKind) bad('targetKind', TARGET_KINDS.join(' | '));

  const targetInstanceType = String(value('targetInstanceType'));
  if (!T_FAMILY.test(targetInstanceType)) bad('targetInstanceType', 't2.* or t3.* (nano … 2xlarge), e.g. t3.small');

  const generatorInstanceType = String(value('generatorInstanceType'));
  const typeProblem = instanceTypeProblem(generatorInstanceType);
  if (typeProblem) r.wrong('generatorInstanceType', typeProblem);

  const minCapacity = int('minCapacity', 1, 100);
  const maxCapacity = int('maxCapacity', 1, 100);
  if (maxCapacity < minCapacity) {
    problems.push(`context "maxCapacity" (${maxCapacity}) is below "minCapacity" (${minCapacity}); allowed: maxCapacity >= minCapacity`);
  }
  const scaleOutCpuPercent = int('scaleOutCpuPercent', 2, 99);
  const breachDurationMinutes = int('breachDurationMinutes', 1, 60);
  const maxGenerators = int('maxGenerators', 1, 500);
  // EC2 allows at least 2 private IPv4s per interface on every type. A type the rig knows is checked here (EC2 would
  // refuse every launch); any other is checked by the CLI against DescribeInstanceTypes before it scales the fleet.
  const generatorSecondaryIps = int('generatorSecondaryIps', 0, 49);
  const knownType = INSTANCE_TYPES[generatorInstanceType];
  const ipsProblem = knownType && secondaryIpsProblem(generatorInstanceType, generatorSecondaryIps, knownType.ipv4PerInterface);
  if (ipsProblem) problems.push(`context "generatorSecondaryIps": ${ipsProblem}`);
  // Below ~10 minutes a generator could be killed while still installing Artillery.
  const generatorMaxLifetimeMinutes = int('generatorMaxLifetimeMinutes', 10, 1440);
  const resultsExpiryDays = int('resultsExpiryDays', 1, 3650);

  const operatorCidr = readOperatorCidr(r);

  const targetImage = optional('targetImage');
  const imageProblem = targetImage === undefined ? undefined : imageReferenceProblem(targetImage);
  if (imageProblem) r.wrong('targetImage', imageProblem, null);

  const redis = readRedis(r, maxCapacity);

  const sessionRaw = String(value('targetSessionManager')).trim().toLowerCase();
  if (sessionRaw !== 'true' && sessionRaw !== 'false') bad('targetSessionManager', 'true | false (Session Manager on the EC2 target\'s instances)');

  const flowLogRaw = String(value('flowLogTraffic')).trim().toUpperCase();
  const flowLogTraffic = FLOW_LOG_TRAFFIC.find((t) => t === flowLogRaw);
  if (!flowLogTraffic) bad('flowLogTraffic', `${FLOW_LOG_TRAFFIC.join(' | ')} (what the VPC flow logs record: REJECT = refused connections only; ALL also bills a record per connection per minute on every interface it crosses)`);

  const generatorRegions = parseGeneratorRegions(value('generatorRegions'), (why) => r.wrong('generatorRegions', why, null));

  if (targetKind) problems.push(...inapplicableKeyProblems(r, targetKind));
  // A full fleet's addresses must fit its subnets (lib/subnet-capacity.ts); judged once the keys it reads are valid.
  if (!problems.some((p) => /^context "(maxGenerators|generatorSecondaryIps|maxCapacity|targetKind)"/.test(p))) {
    const capacityProblem = subnetCapacityProblem({
      maxGenerators, generatorSecondaryIps, targetKind: targetKind ?? 'ec2', maxCapacity,
      publicLoadBalancer: operatorCidr !== undefined || generatorRegions.length > 1,
      redis: targetKind !== 'none' && redis,
    });
    if (capacityProblem) problems.push(capacityProblem);
  }
  if (problems.length > 0) throw new RigConfigError(problems);
  return {
    targetKind: targetKind ?? 'ec2',
    targetInstanceType,
    minCapacity,
    maxCapacity,
    scaleOutCpuPercent,
    scaleInCpuPercent: Math.floor(scaleOutCpuPercent / 2),
    breachDurationMinutes,
    generatorInstanceType,
    generatorSecondaryIps,
    maxGenerators,
    generatorMaxLifetimeMinutes,
    operatorCidr,
    targetImage,
    redis: targetKind === 'none' ? false : redis,
    resultsExpiryDays,
    targetSessionManager: sessionRaw === 'true',
    flowLogTraffic: flowLogTraffic ?? 'REJECT',
    generatorRegions,
  };
}

/** Reads every rig context key through `get` (e.g. `app.node.tryGetContext`). */
export function readRigContext(get: (key: string) => unknown): RawContext {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(CONTEXT_DEFAULTS)) raw[key] = get(key);
  return raw as RawContext;
}
