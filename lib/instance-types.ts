/**
 * The generator instance types whose EC2 figures the rig knows without asking EC2: the capacity model's fallback
 * table (scripts/core/capacity-figures.ts) and the synth-time check of `generatorSecondaryIps` (lib/config.ts).
 * No imports: the CLI loads this without aws-cdk-lib.
 */

const GiB = 1024 * 1024 * 1024;

/** An EC2 instance type the generator fleet offers. */
export interface InstanceSpec {
  readonly vcpus: number;
  readonly memoryBytes: number;
  /** Private IPv4 addresses per network interface (EC2's limit), so 1 primary + up to this − 1 secondary. */
  readonly ipv4PerInterface: number;
  /** CPU architecture (EC2 DescribeInstanceTypes `SupportedArchitectures`). @default 'x86_64' */
  readonly architecture?: 'x86_64' | 'arm64';
}

/**
 * EC2's specifications of the generator types the model knows; `ipv4PerInterface` from the EC2 User Guide,
 * "Maximum IP addresses per network interface".
 */
export const INSTANCE_TYPES: Readonly<Record<string, InstanceSpec>> = {
  'c5.large': { vcpus: 2, memoryBytes: 4 * GiB, ipv4PerInterface: 10 },
  'c5.xlarge': { vcpus: 4, memoryBytes: 8 * GiB, ipv4PerInterface: 15 },
  'c5.2xlarge': { vcpus: 8, memoryBytes: 16 * GiB, ipv4PerInterface: 15 },
  'c6i.large': { vcpus: 2, memoryBytes: 4 * GiB, ipv4PerInterface: 10 },
  'c6i.xlarge': { vcpus: 4, memoryBytes: 8 * GiB, ipv4PerInterface: 15 },
  'c7i.large': { vcpus: 2, memoryBytes: 4 * GiB, ipv4PerInterface: 10 },
  'm5.large': { vcpus: 2, memoryBytes: 8 * GiB, ipv4PerInterface: 10 },
  'm5.xlarge': { vcpus: 4, memoryBytes: 16 * GiB, ipv4PerInterface: 15 },
};

/**
 * Why `secondaryIps` secondary private IPv4 addresses cannot go on one network interface of an instance with
 * `ipv4PerInterface` addresses per interface (the primary is one of them), or undefined when they fit. EC2 refuses
 * such a launch (the launch template asks for them on the primary interface), so not one generator would start.
 */
export function secondaryIpsProblem(instanceType: string, secondaryIps: number, ipv4PerInterface: number): string | undefined {
  const most = ipv4PerInterface - 1;
  if (secondaryIps <= most) return undefined;
  return `generatorSecondaryIps ${secondaryIps} does not fit ${instanceType}: it has ${ipv4PerInterface} private IPv4 addresses per network interface, the primary and at most ${most} secondary, so EC2 would refuse to launch every generator; use -c generatorSecondaryIps=${most} or fewer`;
}
