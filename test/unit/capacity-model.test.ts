import {
  AWS_NOFILE,
  AWS_PORT_RANGE,
  INSTANCE_TYPES,
  MEASURED,
  MEMORY_HEADROOM,
  OS_RESERVE_BYTES,
  RESERVED_FILES,
  awsGenerator,
  effectiveSourceAddresses,
  capacityTable,
  localGenerator,
  localMaxGenerators,
  plannedBytesPerVuser,
  usableOpenFiles,
  usablePorts,
  vcpusFromSizeName,
} from '../../scripts/core/capacity-model';
import { DEFAULT_THRESHOLDS } from '../../scripts/core/verdict';
import { GeneratorLimits, planLoad } from '../../scripts/core/plan';
import { validateFlags } from '../../scripts/options';
import { localPlatform } from '../../scripts/platforms/local/local';

/** A profile whose peak concurrency is exactly `vusers`: one arrival a second, each staying past the last arrival. */
function planFor(vusers: number, limits: GeneratorLimits): number {
  return planLoad({ phases: [{ duration: vusers, arrivalCount: vusers }], limits, sessionSeconds: vusers + 10 }).generators.length;
}

const LOCAL_2CORE = { openFiles: 20_000, ephemeralPorts: 28_232, freeMemoryBytes: 20 * 2 ** 30, cores: 2 };

describe('capacity model', () => {
  test('c5.large: memory binds, derived from the measured bytes per vuser and base RSS', () => {
    const g = awsGenerator('c5.large', 1);
    const expectedMemory = 4 * 2 ** 30 - OS_RESERVE_BYTES - 2 * MEASURED.artilleryBaseRssBytes;
    expect(g.limits.memoryBytes).toBe(expectedMemory);
    expect(g.limits.bytesPerVuser).toBe(Math.ceil(MEASURED.generatorBytesPerVuser * MEMORY_HEADROOM));
    expect(g.capacity).toEqual({ vusers: Math.floor(expectedMemory / plannedBytesPerVuser()), binding: 'memory' });
    expect(g.limits.processes).toBe(2); // one Artillery process per vCPU
    expect(g.arrivalsPerSecond).toBe(2 * MEASURED.arrivalsPerCorePerSecond);
  });

  test('secondary IPs lift the port limit: one address binds on ports at 90% of ~64k, two double it (m5.large)', () => {
    const one = awsGenerator('m5.large', 0);
    expect(one.limits.sourceAddresses).toBe(1);
    expect(one.capacity).toEqual({ vusers: Math.floor(0.9 * AWS_PORT_RANGE), binding: 'ephemeralPorts' });
    const three = awsGenerator('m5.large', 1);
    expect(three.limits.sourceAddresses).toBe(2);
    expect(three.capacity.vusers).toBeGreaterThan(AWS_PORT_RANGE); // beyond one address's ~64k ports
  });

  test('effective source addresses follow how the agent deals addresses to processes', () => {
    expect(effectiveSourceAddresses(2, 1)).toBe(1);
    expect(effectiveSourceAddresses(2, 2)).toBe(2);
    expect(effectiveSourceAddresses(2, 3)).toBe(2); // the odd address doubles one process's share only
    expect(effectiveSourceAddresses(2, 4)).toBe(4);
    expect(effectiveSourceAddresses(4, 3)).toBe(2); // one address carries two processes
    expect(awsGenerator('c5.xlarge', 2).limits.sourceAddresses).toBe(2);
  });

  test('vCPUs of a type outside the table follow EC2 size names (load processes only)', () => {
    expect(['r5.large', 'r5.xlarge', 'r5.2xlarge', 'm6i.12xlarge', 'c5.metal'].map(vcpusFromSizeName)).toEqual([2, 4, 8, 48, 2]);
  });

  test('open files: processes × (90% of nofile − reserve): a generator planned full stays under the verdict\'s threshold', () => {
    const g = awsGenerator('c5.xlarge', 1);
    expect(g.limits.openFiles).toBe(Math.floor(0.9 * AWS_NOFILE) - RESERVED_FILES);
    expect(usableOpenFiles(20_000)).toBe(18_000 - RESERVED_FILES);
    expect(usablePorts(28_232)).toBe(25_408);
    // The verdict's own test: open files over 90% of the limit, or ports over 90% of the range, is saturation.
    expect(DEFAULT_THRESHOLDS.openFilesShare).toBe(0.9);
    expect(DEFAULT_THRESHOLDS.portsShare).toBe(0.9);
    expect(g.limits.processes).toBe(4);
  });

  test('refuses unknown instance types and impossible secondary-IP counts', () => {
    expect(() => awsGenerator('x9.huge')).toThrow(/no capacity model for instance type x9\.huge/);
    expect(() => awsGenerator('c5.large', 10)).toThrow(/0 to 9 on c5\.large/);
    expect(() => awsGenerator('c5.large', -1)).toThrow(/secondary IPs/);
  });

  test('local 2-core machine: open files bind at 2 × (90% of 20,000 − reserve), two loopback source addresses', () => {
    const g = localGenerator(LOCAL_2CORE);
    expect(g.limits.sourceAddresses).toBe(2);
    expect(g.capacity).toEqual({ vusers: 2 * (18_000 - RESERVED_FILES), binding: 'openFiles' });
  });

  test('local generators: as many as start within half the ready deadline on these cores, or fit half the free memory', () => {
    // 2 cores, 20 GiB free: memory holds floor(10 GiB / (2 × 290 MiB)) = 17; start-up floor(2 × 60 / (2 × 3.7)) = 16.
    expect(localMaxGenerators(LOCAL_2CORE, 120_000)).toEqual({ count: 16, why: expect.stringMatching(/^start-up: each runs 2 Artillery processes \(one per core, ~3\.7 CPU-s each to start\), so 16 generators load the cores for about half of the 120-s ready deadline whatever their number$/) });
    // One process per core either way: the start-up bound does not grow with the cores.
    expect(localMaxGenerators({ ...LOCAL_2CORE, cores: 8, freeMemoryBytes: 128 * 2 ** 30 }, 120_000).count).toBe(16);
    const small = localMaxGenerators({ ...LOCAL_2CORE, freeMemoryBytes: 4 * 2 ** 30 }, 120_000);
    expect(small).toEqual({ count: 3, why: expect.stringMatching(/^this machine's memory: each runs 2 Artillery processes of ~290 MiB, and local generators share half of its 4\.0 GiB free$/) });
    // Never below one: a machine too small for even one generator is the capacity check's to refuse.
    expect(localMaxGenerators({ ...LOCAL_2CORE, freeMemoryBytes: 2 ** 28 }, 120_000).count).toBe(1);
  });

  test('local: little free memory makes memory bind', () => {
    const g = localGenerator({ ...LOCAL_2CORE, freeMemoryBytes: 2 * 2 ** 30 });
    expect(g.capacity.binding).toBe('memory');
  });

  const cases: Array<[string, GeneratorLimits]> = [
    ...Object.keys(INSTANCE_TYPES).flatMap((t) => [0, 1, 3].map((ips): [string, GeneratorLimits] => [`${t} +${ips} IPs`, awsGenerator(t, ips).limits])),
    ['local 2-core', localGenerator(LOCAL_2CORE).limits],
    ['local 2-core, 2 GiB free', localGenerator({ ...LOCAL_2CORE, freeMemoryBytes: 2 * 2 ** 30 }).limits],
    ['local 8-core, default ports, ulimit 1024', localGenerator({ openFiles: 1024, ephemeralPorts: 28_232, freeMemoryBytes: 8 * 2 ** 30, cores: 8 }).limits],
  ];

  test.each(cases)('%s: a request one vuser over a limit asks for one more generator', (_name, limits) => {
    const model = awsOrLocalCapacity(limits);
    expect(planFor(model, limits)).toBe(1);
    expect(planFor(model + 1, limits)).toBe(2);
    expect(planFor(2 * model, limits)).toBe(2);
    expect(planFor(2 * model + 1, limits)).toBe(3);
  });

  test('the capacity table covers every offered type with the binding limit named', () => {
    const rows = capacityTable(1);
    expect(rows.map((r) => r.instanceType)).toEqual(Object.keys(INSTANCE_TYPES));
    for (const r of rows) expect(r.capacity).toBe(Math.min(r.byMemory, r.byOpenFiles, r.byPorts));
  });
});

/** The model's own capacity for these limits (the smallest of its three bounds). */
function awsOrLocalCapacity(l: GeneratorLimits): number {
  return Math.min(Math.floor(l.memoryBytes / l.bytesPerVuser), l.processes * l.openFiles, l.sourceAddresses * l.ephemeralPorts);
}

describe('arrival rate on the local platform', () => {
  test('the per-core rate comes from the pinned bench where the cores are the generator\'s own (AWS), the shared one where the target shares them (local)', () => {
    // AWS generators: the target runs elsewhere, so each vCPU gives the dedicated-core figure.
    expect(awsGenerator('c5.xlarge', 0).arrivalsPerSecond).toBe(4 * MEASURED.arrivalsPerCorePerSecond);
    // Local generators: the reference target takes part of the same cores.
    expect(localGenerator(LOCAL_2CORE).arrivalsPerSecond).toBe(2 * MEASURED.sharedArrivalsPerCorePerSecond);
    expect(MEASURED.sharedArrivalsPerCorePerSecond).toBeLessThan(MEASURED.arrivalsPerCorePerSecond);
  });
  test('local generators share the machine\'s cores: its arrival rate is one bound for all, no generator is added for it', () => {
    const p = localPlatform({ root: '/repo', machine: LOCAL_2CORE, options: validateFlags({}), env: {}, log: () => undefined });
    const machineRate = 2 * MEASURED.sharedArrivalsPerCorePerSecond;
    expect(p.arrivalCapacity).toEqual({ perSecond: machineRate, perGenerator: false });
    const plan = (perSecond: number) =>
      planLoad({ phases: [{ duration: 60, arrivalRate: perSecond }], limits: p.limits, sessionSeconds: 5, arrivalCapacity: p.arrivalCapacity! });
    expect(plan(machineRate).warnings).toEqual([]);
    expect(plan(machineRate + 1).generators).toHaveLength(1);
    expect(plan(machineRate + 1).warnings[0]).toMatch(/this machine's cores sustain/);
  });
});

describe('one source address on the local platform', () => {
  // Only the built-in scenarios' processors bind a loopback alias per load process, and an alias reaches 127/8 only:
  // otherwise every connection to one target address shares one port range, whatever the planner's per-process figure.
  const platform = (flags: Parameters<typeof validateFlags>[0], extra: { userScript?: boolean; scriptTarget?: string } = {}) =>
    localPlatform({ root: '/repo', machine: LOCAL_2CORE, options: validateFlags(flags), env: {}, log: () => undefined, ...extra });
  test("each run's aliases are in a /16 of its own (127.<block>.…): two local runs at once neither count each other's sockets nor share ports", () => {
    const p = localPlatform({ root: '/repo', machine: LOCAL_2CORE, options: validateFlags({}), env: {}, log: () => undefined, aliasBlock: 42 });
    expect([p.sourceAddress(0, 0), p.sourceAddress(0, 1), p.sourceAddress(1, 0), p.sourceAddress(100, 1)]).toEqual(['127.42.1.10', '127.42.1.11', '127.42.1.12', '127.42.2.11']);
    // Drawn per run, from 1–254.
    const blocks = new Set(Array.from({ length: 300 }, () => Number(localPlatform({ root: '/repo', machine: LOCAL_2CORE, options: validateFlags({}), env: {}, log: () => undefined }).sourceAddress(0, 0)?.split('.')[1])));
    expect(Math.min(...blocks)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...blocks)).toBeLessThanOrEqual(254);
    expect(blocks.size).toBeGreaterThan(50);
  });
  test('built-in scenarios against the reference target or an IPv4 loopback --target: one alias per process, no bound', () => {
    expect(platform({}).oneSourceAddress).toBeUndefined();
    expect(platform({ target: 'http://127.0.0.1:3000' }).oneSourceAddress).toBeUndefined();
    expect(platform({ target: 'http://localhost:3000' }).oneSourceAddress).toBeUndefined();
  });
  test('a script of your own, or a target elsewhere: one port range, with why', () => {
    const ports = Math.floor(LOCAL_2CORE.ephemeralPorts * DEFAULT_THRESHOLDS.portsShare);
    expect(platform({}, { userScript: true, scriptTarget: 'http://127.0.0.1:3000' }).oneSourceAddress).toEqual({ vusers: ports, why: expect.stringMatching(/^your script's connections leave from the address the OS picks/) });
    expect(platform({ target: 'http://[::1]:3000' }).oneSourceAddress?.why).toBe('connections to http://[::1]:3000 leave from the address the OS picks (a loopback alias reaches 127.0.0.0/8 only)');
    expect(platform({ target: 'http://10.0.0.7:3000' }).oneSourceAddress?.vusers).toBe(ports);
  });
});
