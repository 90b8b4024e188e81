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
 * Addresses one home subnet must hold besides the generators, as an upper bound (every one of them in the same
 * zone): each target instance or task twice (a Fargate deployment runs up to 200% of the tasks, an EC2 rolling
 * update one instance more), eight per load balancer, one for the Redis node.
 */
export function otherTenants(t: SubnetTenants): number {
  if (t.targetKind === 'none') return 0;
  return 2 * t.maxCapacity + ALB_ADDRESSES_PER_SUBNET * (1 + (t.publicLoadBalancer ? 1 : 0)) + (t.redis ? 1 : 0);
}

/**
 * Why a full generator fleet cannot get its addresses, or undefined. Each generator takes 1 + generatorSecondaryIps
 * private addresses from its subnet at launch; the group spreads its instances evenly over the zones (EC2 Auto
 * Scaling User Guide, "balanced-best-effort"), so each zone's subnet takes ceil(maxGenerators / zones) of them,
 * beside the target's tenants. Past that every further launch in the zone fails (InsufficientFreeAddressesInSubnet).
 * A regional VPC's generator subnets have the same size and no other tenants, so the home check bounds them too.
 */
export function subnetCapacityProblem(t: SubnetTenants): string | undefined {
  const perGenerator = 1 + t.generatorSecondaryIps;
  const perZone = Math.ceil(t.maxGenerators / RIG_AZS);
  const others = otherTenants(t);
  const capacity = usableAddresses(GENERATOR_SUBNET_MASK);
  const needed = perZone * perGenerator + others;
  if (needed <= capacity) return undefined;
  const room = capacity - others;
  const maxGenerators = RIG_AZS * Math.floor(room / perGenerator);
  const maxSecondary = Math.floor(room / perZone) - 1;
  const fixes = [`maxGenerators at most ${maxGenerators}`, ...(maxSecondary >= 0 ? [`generatorSecondaryIps at most ${maxSecondary}`] : [])];
  return `context "maxGenerators" (${t.maxGenerators}) with "generatorSecondaryIps" (${t.generatorSecondaryIps}): ${perZone} generators per zone × ${perGenerator} addresses each`
    + `${others ? ` + ${others} for the target, its load balancers and Redis` : ''} = ${needed} addresses, but each zone's /${GENERATOR_SUBNET_MASK} subnet holds ${capacity}`
    + ` (AWS reserves ${RESERVED_PER_SUBNET} of ${2 ** (32 - GENERATOR_SUBNET_MASK)}): set ${fixes.join(', or ')}`;
}
