/**
 * Whether the rig's subnets hold the addresses a full fleet takes. Pure, no aws-cdk-lib: lib/config.ts refuses a
 * context that does not fit, before any stack is built; lib/network.ts builds its subnets from the same numbers.
 */

/** Availability zones the rig's VPCs span (lib/network.ts). */
export const RIG_AZS = 2;
/** Prefix length of the subnets generators run in: the home VPC's public subnets, a regional VPC's private ones. */
export const GENERATOR_SUBNET_MASK = 20;
/** Prefix length of a regional (NAT) VPC's public subnets, which hold only its NAT gateways. */
export const NAT_PUBLIC_SUBNET_MASK = 24;
/** AWS reserves the first four addresses and the last one of every subnet (Amazon VPC User Guide, "Subnet CIDR blocks"). */
export const RESERVED_PER_SUBNET = 5;
/**
 * Free addresses a load balancer needs in each of its subnets to scale (Elastic Load Balancing User Guide,
 * "Subnets for your Application Load Balancer": at least eight free IP addresses).
 */
export const ALB_ADDRESSES_PER_SUBNET = 8;

/** Addresses a subnet of prefix length `mask` offers instances. */
export const usableAddresses = (mask: number): number => 2 ** (32 - mask) - RESERVED_PER_SUBNET;

/** What shares the home VPC's generator subnets, from the validated context. */
export interface SubnetTenants {
  readonly maxGenerators: number;
  readonly generatorSecondaryIps: number;
  readonly targetKind: 'ec2' | 'fargate' | 'none';
  readonly maxCapacity: number;
  /** The internet-facing load balancer (operatorCidr, or generators in other regions). */
  readonly publicLoadBalancer: boolean;
  readonly redis: boolean;
}

/**
 * Addresses the home subnets must hold besides the generators, over all zones, as a bound: each target instance or
 * task twice (a Fargate deployment runs up to 200% of the tasks, an EC2 rolling update one instance more), eight per
 * load balancer in every zone (ELB's minimum of free addresses for it to scale: a floor, not what a busy one may take),
 * one for the Redis node.
 */
export function otherTenants(t: SubnetTenants): number {
  if (t.targetKind === 'none') return 0;
  return 2 * t.maxCapacity + RIG_AZS * ALB_ADDRESSES_PER_SUBNET * (1 + (t.publicLoadBalancer ? 1 : 0)) + (t.redis ? 1 : 0);
}

/**
 * Generators of `perGenerator` addresses each that the zones' subnets surely hold beside `others` addresses, however
 * those are split between the zones: all of a generator's addresses come from the one subnet it launches in, so each
 * zone holds floor(its room / perGenerator), and over any split the sum of the zones' floors is at least the floor of
 * the whole room less one generator per zone but one.
 */
function generatorsThatFit(perGenerator: number, others: number): number {
  const room = RIG_AZS * usableAddresses(GENERATOR_SUBNET_MASK) - others;
  return Math.max(0, Math.floor(room / perGenerator) - (perGenerator > 1 ? RIG_AZS - 1 : 0));
}

/**
 * Why a full generator fleet cannot get its addresses, or undefined. Each generator takes 1 + generatorSecondaryIps
 * private addresses from the subnet it launches in. The group spreads its instances over the zones, and when one
 * zone's subnet has no addresses left it launches in another (EC2 Auto Scaling User Guide, "balanced-best-effort"),
 * so the fleet fits while the zones' subnets together hold it beside the target's tenants (unbalanced past one zone's
 * share; {@link generatorsThatFit}); past that every further launch fails (InsufficientFreeAddressesInSubnet). A
 * regional VPC's generator subnets have the same size and no other tenants, so the home check bounds them too.
 */
export function subnetCapacityProblem(t: SubnetTenants): string | undefined {
  const perGenerator = 1 + t.generatorSecondaryIps;
  const others = otherTenants(t);
  const fit = generatorsThatFit(perGenerator, others);
  if (t.maxGenerators <= fit) return undefined;
  let maxSecondary = t.generatorSecondaryIps - 1;
  while (maxSecondary >= 0 && generatorsThatFit(1 + maxSecondary, others) < t.maxGenerators) maxSecondary--;
  const fixes = [`maxGenerators at most ${fit}`, ...(maxSecondary >= 0 ? [`generatorSecondaryIps at most ${maxSecondary}`] : [])];
  const usable = usableAddresses(GENERATOR_SUBNET_MASK);
  return `context "maxGenerators" (${t.maxGenerators}) with "generatorSecondaryIps" (${t.generatorSecondaryIps}): ${perGenerator} addresses per generator, all from the one zone's subnet it launches in;`
    + ` the ${RIG_AZS} zones' /${GENERATOR_SUBNET_MASK} subnets (${usable} usable addresses each: AWS reserves ${RESERVED_PER_SUBNET} of ${2 ** (32 - GENERATOR_SUBNET_MASK)})`
    + ` hold ${fit} such generators${others ? ` beside ${others} addresses for the target, its load balancers and Redis` : ''}: set ${fixes.join(', or ')}`;
}
