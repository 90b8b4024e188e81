/**
 * The capacity model (pure): what one generator can hold and how fast it can create vusers, derived
 * from measured figures of the connect scenario, never guessed. Every measurement is a named constant
 * with where it came from; `npm run bench` re-measures them (README.md shows the derivation).
 *
 *   memory-bound vusers = (instance memory − OS reserve − processes × Artillery base RSS)
 *                         / (measured bytes per held vuser × headroom)
 *   open-file-bound     = processes × (90% of nofile − reserved files)     (one socket per held vuser)
 *   port-bound          = source addresses × 90% of the ephemeral ports    (per target address:port)
 *                         (90%: the rig-health verdict's saturation threshold, so a generator planned at
 *                         capacity stays under it)
 *   capacity            = the smallest of the three (capacityPerGenerator in ./capacity)
 *   arrival rate        = cores × measured sustained arrivals per core
 */
import type { GeneratorLimits } from './capacity';
import { capacityPerGenerator } from './capacity';
import { ARTILLERY_START_CPU_SECONDS, AWS_NOFILE, AWS_PORT_RANGE, DEFAULT_SECONDARY_IPS, INSTANCE_TYPES, MEASURED, MEMORY_HEADROOM, MiB, OS_RESERVE_BYTES, usableOpenFiles, usablePorts } from './capacity-figures';
import type { InstanceSpec, Measurements, ModelledGenerator } from './capacity-figures';
import { secondaryIpsProblem } from '../../lib/instance-types';

// The figures the model is built from, importable from here as before.
export * from './capacity-figures';

/**
 * Source addresses' worth of ports a generator really gets when the agent deals `addresses` out to
 * `processes` equal load shares (load-generators/lib/source-addresses.js): with at least as many
 * addresses as processes each process rotates over floor-or-more of them, so P × floor(A / P); with
 * fewer, processes share addresses round-robin and the busiest address carries ceil(P / A) shares.
 */
export function effectiveSourceAddresses(processes: number, addresses: number): number {
  if (addresses >= processes) return processes * Math.floor(addresses / processes);
  return processes / Math.ceil(processes / addresses);
}

/**
 * Vusers per second a generator with `processes` load processes (one per core) creates: cores × the measured
 * rate per core — per dedicated core (AWS), or per core shared with the reference target (`shared`, local).
 */
export function arrivalsPerSecond(processes: number, m: Measurements = MEASURED, shared = false): number {
  return processes * (shared ? m.sharedArrivalsPerCorePerSecond : m.arrivalsPerCorePerSecond);
}

/** Bytes per vuser the planner uses: measured × headroom, whole bytes. */
export function plannedBytesPerVuser(m: Measurements = MEASURED): number {
  return Math.ceil(m.generatorBytesPerVuser * MEMORY_HEADROOM);
}

/** Memory left for vusers: machine memory − reserve − one base RSS per Artillery process (never negative). */
export function vuserMemoryBytes(memoryBytes: number, processes: number, reserveBytes: number, m: Measurements = MEASURED): number {
  return Math.max(1, Math.floor(memoryBytes - reserveBytes - processes * m.artilleryBaseRssBytes));
}

/**
 * Limits of one AWS generator of `instanceType` with `secondaryIps` secondary private IPs (one load
 * process per vCPU, each its own source address while there are addresses; tuned nofile and port range).
 *
 * @throws Error for an unknown instance type or a secondary-IP count the instance cannot have.
 */
export function awsGenerator(instanceType: string, secondaryIps: number = DEFAULT_SECONDARY_IPS, m: Measurements = MEASURED): ModelledGenerator {
  const spec = INSTANCE_TYPES[instanceType];
  if (!spec) throw new Error(`no capacity model for instance type ${instanceType}; known: ${Object.keys(INSTANCE_TYPES).join(', ')}`);
  return generatorOf(instanceType, spec, secondaryIps, m);
}

/**
 * Limits of one AWS generator of an instance described by `spec` (from the fixed table, or EC2 DescribeInstanceTypes).
 *
 * @throws Error for a secondary-IP count the instance cannot have.
 */
export function generatorOf(instanceType: string, spec: InstanceSpec, secondaryIps: number = DEFAULT_SECONDARY_IPS, m: Measurements = MEASURED): ModelledGenerator {
  if (!Number.isInteger(secondaryIps) || secondaryIps < 0 || secondaryIps > spec.ipv4PerInterface - 1) {
    throw new Error(`secondary IPs must be a whole number from 0 to ${spec.ipv4PerInterface - 1} on ${instanceType} (got ${secondaryIps})`);
  }
  const limits = tunedGeneratorLimits(spec.vcpus, 1 + secondaryIps, vuserMemoryBytes(spec.memoryBytes, spec.vcpus, OS_RESERVE_BYTES, m), m);
  return { limits, capacity: capacityPerGenerator(limits), arrivalsPerSecond: arrivalsPerSecond(spec.vcpus, m), heapLimitMiB: heapLimitMiB(spec.memoryBytes, spec.vcpus) };
}

/**
 * V8 heap limit (`--max-old-space-size`, MiB) of each load process on a generator with `memoryBytes` and
 * `processes` load processes: its equal share of the memory the model gives the load processes,
 * (memory − OS reserve) / processes. That share is exactly one process's base RSS plus its share of the
 * memory-bound vusers (the capacity model above), so a generator planned at its memory bound never meets a
 * heap limit first. Node's own default (about a quarter of the machine's memory on a small instance: ~1 GiB on a
 * 4 GiB c5.large) sits below the ~1.8 GiB one process of a c5.large is planned to use.
 */
export function heapLimitMiB(memoryBytes: number, processes: number, reserveBytes: number = OS_RESERVE_BYTES): number {
  return Math.max(256, Math.floor((memoryBytes - reserveBytes) / Math.max(1, processes) / MiB));
}

/**
 * Limits of a generator tuned by load-generators/host-tuning.sh (nofile, port range): one load process per vCPU
 * over `addresses` source addresses, with `memoryBytes` for vusers.
 */
function tunedGeneratorLimits(vcpus: number, addresses: number, memoryBytes: number, m: Measurements): GeneratorLimits {
  return {
    openFiles: usableOpenFiles(AWS_NOFILE),
    ephemeralPorts: usablePorts(AWS_PORT_RANGE),
    sourceAddresses: effectiveSourceAddresses(vcpus, addresses),
    processes: vcpus,
    memoryBytes,
    bytesPerVuser: plannedBytesPerVuser(m),
    socketsPerVuser: 1,
  };
}

/**
 * vCPUs of an instance type the model has no figures for, from EC2's size names (`large` 2, `xlarge` 4,
 * `<n>xlarge` 4·n; anything else 2): only the number of load processes depends on it.
 */
export function vcpusFromSizeName(instanceType: string): number {
  const size = instanceType.split('.')[1] ?? '';
  if (size === 'large') return 2;
  if (size === 'xlarge') return 4;
  const n = /^(\d+)xlarge$/.exec(size);
  return n ? 4 * Number(n[1]) : 2;
}

/** What the planner needs to know about the deployed generator fleet. */
export interface DeployedFleet {
  /** The generator stack's `GeneratorInstanceType` output. */
  readonly instanceType: string;
  /** The generator stack's `GeneratorSecondaryIps` output. */
  readonly secondaryIps: number;
  /**
   * Whether every address of the target is private: only then does the agent spread connections over the
   * secondary IPs (load-generators/lib/source-addresses.js); an internet-facing target gets the primary IP only.
   */
  readonly targetIsPrivate: boolean;
  /** `--generator-capacity`: vusers one generator holds, instead of the model's memory bound. */
  readonly capacityOverride?: number;
  /**
   * The instance type as EC2 describes it (DescribeInstanceTypes).
   * @default the fixed table {@link INSTANCE_TYPES} (the offline fallback)
   */
  readonly spec?: InstanceSpec;
}

/** Why the model cannot plan for a deployed fleet (the CLI turns it into one line and exit 2). */
export class UnknownInstanceTypeError extends Error {}

/** The stack's secondary IPs do not fit its generator type's network interface: no generator can launch. */
export class SecondaryIpsError extends Error {}

/** A deployed generator as the planner takes it, and where its instance figures came from. */
export interface DeployedGenerator {
  readonly limits: GeneratorLimits;
  /** Heap limit of each load process, MiB ({@link heapLimitMiB}). */
  readonly heapLimitMiB: number;
  /** `ec2`: DescribeInstanceTypes; `table`: the fixed table; `size-name`: only the vCPUs, guessed from the name. */
  readonly source: 'ec2' | 'table' | 'size-name';
}

/**
 * Limits of one generator of the deployed fleet: the model's limits for its instance type (as EC2 describes it,
 * else the fixed table), with the secondary IPs counted only when the agent will use them. `capacityOverride`
 * replaces the memory bound (open files and ports still bind below it); for a type neither EC2 nor the table
 * describes it is the only way to plan.
 *
 * @throws UnknownInstanceTypeError for an instance type without a spec or table entry and without an override.
 * @throws SecondaryIpsError when the stack's secondary IPs exceed what one interface of the type holds (EC2 refuses the
 *   launch whatever the target, so this is checked before the private-target rule drops them from the plan).
 */
export function deployedGenerator(fleet: DeployedFleet, m: Measurements = MEASURED): DeployedGenerator {
  const secondaryIps = fleet.targetIsPrivate ? fleet.secondaryIps : 0;
  const spec = fleet.spec ?? INSTANCE_TYPES[fleet.instanceType];
  const tooMany = spec && secondaryIpsProblem(fleet.instanceType, fleet.secondaryIps, spec.ipv4PerInterface);
  if (tooMany) throw new SecondaryIpsError(tooMany);
  const source = fleet.spec ? 'ec2' : spec ? 'table' : 'size-name';
  let limits: GeneratorLimits;
  let heap: number;
  if (spec) {
    const g = generatorOf(fleet.instanceType, spec, secondaryIps, m);
    limits = g.limits;
    heap = g.heapLimitMiB;
  } else if (fleet.capacityOverride !== undefined) {
    // Memory is replaced by the override below; only the load processes follow the size name.
    const processes = vcpusFromSizeName(fleet.instanceType);
    limits = tunedGeneratorLimits(processes, 1 + secondaryIps, 0, m);
    // The heap must hold what the override plans: one base RSS plus the process's share of the vusers.
    heap = Math.ceil((m.artilleryBaseRssBytes + (fleet.capacityOverride / processes) * plannedBytesPerVuser(m)) / MiB);
  } else {
    throw new UnknownInstanceTypeError(
      `the capacity model has no figures for generator instance type ${fleet.instanceType} (EC2 DescribeInstanceTypes did not describe it, and the built-in table knows ${Object.keys(INSTANCE_TYPES).join(', ')}); ` +
        'pass --generator-capacity N (vusers one generator holds), or measure the type with `npm run bench` and add it to INSTANCE_TYPES in scripts/core/capacity-figures.ts',
    );
  }
  return {
    limits: fleet.capacityOverride === undefined ? limits : { ...limits, memoryBytes: fleet.capacityOverride * limits.bytesPerVuser },
    heapLimitMiB: heap,
    source,
  };
}

/** {@link deployedGenerator}'s limits alone. */
export function deployedGeneratorLimits(fleet: DeployedFleet, m: Measurements = MEASURED): GeneratorLimits {
  return deployedGenerator(fleet, m).limits;
}

/** This machine's limits as the local platform sees them (all plain numbers: the caller reads the machine). */
export interface LocalMachine {
  readonly openFiles: number;
  readonly ephemeralPorts: number;
  readonly freeMemoryBytes: number;
  readonly cores: number;
}

/** Share of free memory local generators may use (the target and the OS share the machine). */
export const LOCAL_MEMORY_SHARE = 0.5;

/**
 * Limits of one local generator: one load process per core, each from its own loopback source address
 * (so ports per generator = cores × range), the inherited open-file limit per process, and its share
 * of free memory after the processes' base RSS.
 */
export function localGenerator(machine: LocalMachine, m: Measurements = MEASURED): ModelledGenerator {
  const processes = Math.max(1, machine.cores);
  const limits: GeneratorLimits = {
    openFiles: usableOpenFiles(machine.openFiles),
    ephemeralPorts: usablePorts(machine.ephemeralPorts),
    sourceAddresses: processes,
    processes,
    memoryBytes: vuserMemoryBytes(machine.freeMemoryBytes * LOCAL_MEMORY_SHARE, processes, 0, m),
    bytesPerVuser: plannedBytesPerVuser(m),
    socketsPerVuser: 1,
  };
  return { limits, capacity: capacityPerGenerator(limits), arrivalsPerSecond: arrivalsPerSecond(processes, m, true), heapLimitMiB: heapLimitMiB(machine.freeMemoryBytes * LOCAL_MEMORY_SHARE, processes, 0) };
}

/**
 * Most local generators this machine runs, and why: every one starts `cores` Artillery processes on the same machine.
 * - memory: their base RSS fits the generators' share of free memory ({@link LOCAL_MEMORY_SHARE}), as one
 *   generator's limits assume;
 * - start-up: all of them load within half of the ready deadline on these cores, each taking
 *   {@link ARTILLERY_START_CPU_SECONDS} (past it the run would stop as "not ready", exit 3). A generator starts one
 *   process per core, so this bound is the same on any machine (16 with a 120-s deadline).
 * More local generators than cores add no arrival rate (they share the cores), so the bound costs nothing but a test
 * of many generators, which is what `--platform aws` is for.
 */
export function localMaxGenerators(machine: LocalMachine, readyTimeoutMs: number, m: Measurements = MEASURED): { readonly count: number; readonly why: string } {
  const processes = Math.max(1, machine.cores);
  const byMemory = Math.floor((machine.freeMemoryBytes * LOCAL_MEMORY_SHARE) / (processes * m.artilleryBaseRssBytes));
  const byStart = Math.floor((machine.cores * (readyTimeoutMs / 1000) * 0.5) / (processes * ARTILLERY_START_CPU_SECONDS));
  const count = Math.max(1, Math.min(byMemory, byStart));
  const each = `each runs ${processes} Artillery process${processes === 1 ? '' : 'es'}`;
  const why = byMemory <= byStart
    ? `this machine's memory: ${each} of ~${Math.round(m.artilleryBaseRssBytes / MiB)} MiB, and local generators share half of its ${(machine.freeMemoryBytes / 2 ** 30).toFixed(1)} GiB free`
    : `start-up: ${each} (one per core, ~${ARTILLERY_START_CPU_SECONDS} CPU-s each to start), so ${count} generators load the cores for about half of the ${readyTimeoutMs / 1000}-s ready deadline whatever their number`;
  return { count, why };
}

/** One row of the capacity table in README.md. */
export interface CapacityRow {
  readonly instanceType: string;
  readonly secondaryIps: number;
  readonly byMemory: number;
  readonly byOpenFiles: number;
  readonly byPorts: number;
  readonly capacity: number;
  readonly binding: string;
  readonly arrivalsPerSecond: number;
}

/** The capacity table of every offered instance type (README.md prints it). */
export function capacityTable(secondaryIps: number = DEFAULT_SECONDARY_IPS, m: Measurements = MEASURED): CapacityRow[] {
  return Object.keys(INSTANCE_TYPES).map((instanceType) => {
    const g = awsGenerator(instanceType, secondaryIps, m);
    const l = g.limits;
    return {
      instanceType,
      secondaryIps,
      byMemory: Math.floor(l.memoryBytes / l.bytesPerVuser),
      byOpenFiles: l.processes * l.openFiles,
      byPorts: l.sourceAddresses * l.ephemeralPorts,
      capacity: g.capacity.vusers,
      binding: g.capacity.binding,
      arrivalsPerSecond: g.arrivalsPerSecond,
    };
  });
}
