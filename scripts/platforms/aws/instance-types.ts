/**
 * The generator instance type as EC2 itself describes it (DescribeInstanceTypes): vCPUs, memory, private IPv4
 * addresses per interface and architecture — what the capacity model plans from. When EC2 cannot be asked
 * (no permission, an offline emulator), the planner falls back to the fixed table in scripts/core/capacity-model.ts.
 */
import type { InstanceSpec } from '../../core/capacity-model';
import type { AwsApi } from './clients';

const MiB = 1024 * 1024;

/**
 * The spec of `instanceType` from DescribeInstanceTypes; undefined (with one log line saying why) when EC2 does not
 * describe it or cannot be asked.
 */
export async function describeInstanceType(api: Pick<AwsApi, 'describeInstanceTypes'>, instanceType: string, log: (line: string) => void): Promise<InstanceSpec | undefined> {
  let info;
  try {
    const res = await api.describeInstanceTypes({ InstanceTypes: [instanceType as never] });
    info = res.InstanceTypes?.find((t) => t.InstanceType === instanceType);
  } catch (err) {
    log(`note: EC2 DescribeInstanceTypes failed for ${instanceType} (${(err as Error).name}); planning from the built-in table`);
    return undefined;
  }
  const vcpus = info?.VCpuInfo?.DefaultVCpus;
  const mib = info?.MemoryInfo?.SizeInMiB;
  const ips = info?.NetworkInfo?.Ipv4AddressesPerInterface;
  if (!vcpus || !mib || !ips) {
    log(`note: EC2 DescribeInstanceTypes did not describe ${instanceType}; planning from the built-in table`);
    return undefined;
  }
  const archs = info?.ProcessorInfo?.SupportedArchitectures ?? [];
  return { vcpus, memoryBytes: mib * MiB, ipv4PerInterface: ips, architecture: archs.includes('x86_64') || archs.length === 0 ? 'x86_64' : 'arm64' };
}
