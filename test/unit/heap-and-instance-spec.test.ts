import { MEASURED, awsGenerator, deployedGenerator, heapLimitMiB, plannedBytesPerVuser } from '../../scripts/core/capacity-model';
import { UsageError } from '../../scripts/errors';
import { deployedGeneratorOf } from '../../scripts/platforms/aws/aws';
import { describeInstanceType } from '../../scripts/platforms/aws/instance-types';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

describe('heap limit per load process', () => {
  test('c5.large: (4,096 MiB − 512 MiB reserve) / 2 processes = 1,792 MiB each, above Node\'s ~1 GiB default', () => {
    expect(heapLimitMiB(4 * GiB, 2)).toBe(1792);
    expect(awsGenerator('c5.large').heapLimitMiB).toBe(1792);
    expect(awsGenerator('c5.xlarge').heapLimitMiB).toBe((8192 - 512) / 4);
  });

  test('the heap holds what the model plans per process at the memory bound: base RSS + its share of the vusers', () => {
    for (const type of ['c5.large', 'c5.xlarge', 'm5.large']) {
      const g = awsGenerator(type, 1);
      const perProcessVusers = Math.floor(g.limits.memoryBytes / g.limits.bytesPerVuser) / g.limits.processes;
      const plannedBytes = MEASURED.artilleryBaseRssBytes + perProcessVusers * plannedBytesPerVuser();
      expect(g.heapLimitMiB * MiB).toBeGreaterThanOrEqual(plannedBytes);
      // …and all processes' heaps together never exceed the machine's memory less the OS reserve.
      expect(g.heapLimitMiB * MiB * g.limits.processes).toBeLessThanOrEqual(g.limits.memoryBytes + g.limits.processes * MEASURED.artilleryBaseRssBytes);
    }
  });

  test('--generator-capacity on a type nobody describes: the heap holds the override\'s share', () => {
    const g = deployedGenerator({ instanceType: 'x9.large', secondaryIps: 0, targetIsPrivate: false, capacityOverride: 10_000 });
    expect(g.source).toBe('size-name');
    expect(g.heapLimitMiB).toBe(Math.ceil((MEASURED.artilleryBaseRssBytes + 5000 * plannedBytesPerVuser()) / MiB));
  });
});

describe('planning from EC2 DescribeInstanceTypes', () => {
  const c6aLarge = { InstanceType: 'c6a.large', VCpuInfo: { DefaultVCpus: 2 }, MemoryInfo: { SizeInMiB: 4096 }, NetworkInfo: { Ipv4AddressesPerInterface: 10 }, ProcessorInfo: { SupportedArchitectures: ['x86_64'] } };
  const api = (types: object[]) => ({ describeInstanceTypes: async () => ({ InstanceTypes: types, $metadata: {} }) }) as never;

  test('reads vCPUs, memory, IPv4 per interface and architecture', async () => {
    const spec = await describeInstanceType(api([c6aLarge]), 'c6a.large', () => undefined);
    expect(spec).toEqual({ vcpus: 2, memoryBytes: 4 * GiB, ipv4PerInterface: 10, architecture: 'x86_64' });
    const graviton = await describeInstanceType(api([{ ...c6aLarge, InstanceType: 'c7g.large', ProcessorInfo: { SupportedArchitectures: ['arm64'] } }]), 'c7g.large', () => undefined);
    expect(graviton?.architecture).toBe('arm64');
  });

  test('a type outside the fixed table plans from EC2\'s figures (c6a.large: the c5.large numbers), the source named', async () => {
    const spec = await describeInstanceType(api([c6aLarge]), 'c6a.large', () => undefined);
    const outputs = { generatorInstanceType: 'c6a.large', generatorSecondaryIps: 1 } as never;
    const g = deployedGeneratorOf(outputs, true, undefined, spec);
    expect(g.source).toBe('ec2');
    expect(g.limits).toEqual(awsGenerator('c5.large', 1).limits);
    // Without EC2's figures (offline) the same type is refused with the fix.
    expect(() => deployedGeneratorOf(outputs, true)).toThrow(UsageError);
    expect(() => deployedGeneratorOf(outputs, true)).toThrow(/EC2 DescribeInstanceTypes did not describe it.*--generator-capacity N/);
  });

  test('EC2 unreachable or silent: one note, and the fixed table is the fallback', async () => {
    const lines: string[] = [];
    const failing = { describeInstanceTypes: async () => { throw Object.assign(new Error('denied'), { name: 'UnauthorizedOperation' }); } } as never;
    expect(await describeInstanceType(failing, 'c5.large', (l) => lines.push(l))).toBeUndefined();
    expect(await describeInstanceType(api([]), 'c5.large', (l) => lines.push(l))).toBeUndefined();
    expect(lines).toEqual([
      'note: EC2 DescribeInstanceTypes failed for c5.large (UnauthorizedOperation); planning from the built-in table',
      'note: EC2 DescribeInstanceTypes did not describe c5.large; planning from the built-in table',
    ]);
    const g = deployedGeneratorOf({ generatorInstanceType: 'c5.large', generatorSecondaryIps: 1 } as never, true);
    expect(g.source).toBe('table');
    expect(g.limits).toEqual(awsGenerator('c5.large', 1).limits);
  });
});
