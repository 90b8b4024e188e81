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
import { DEFAULT_THRESHOLDS } from './verdict';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/**
 * The measurements the model is built from (connect scenario: cookie GET, Socket.IO websocket, hold).
 * Source of each: README.md, re-measured by `npm run bench`.
 */
export const MEASURED = {
  /**
   * Generator memory per held vuser: (peak RSS of the load processes − their RSS at the start instant)
   * / peak held vusers. `npm run loadtest -- --vusers 96000 --ramp 10m --hold 2m` on the 2-core / 24 GiB
   * dev machine, 2026-11-21 (Artillery 2.0.34, Node 22.23.3, two load processes with calm timers and
   * pooled HTTP agents): 621 MB over 19,219 held = 31.3 KB, rounded up. (At 6,000 held the bench measures
   * ~14 KB: V8 grows its heap with the live set, so the figure at scale is the one to plan with. With all
   * 96,000 held at once, 2026-11-23: 25.6 KB; the model keeps the larger figure.)
   */
  generatorBytesPerVuser: 32 * KiB,
  /** RSS of one idle Artillery process (main thread + one worker thread, rig plugin loaded) before load: 278–292 MB measured. */
  artilleryBaseRssBytes: 290 * MiB,
  /**
   * Vusers per second one core of a generator creates on the connect scenario. Measured by `npm run bench`'s
   * arrival-rate ladder: the rig sustained 800/s on the 2-core dev machine (< 1% failed, no arrival lag) on
   * 2026-11-21 and again on 2026-11-23, with the reference target on the same two cores; 1,000/s it did not.
   * 800 / 2 cores = 400. Conservative for a generator whose cores are its own (the target's CPU per vuser,
   * ~0.9 ms, came out of the same cores). The planner adds AWS generators when the profile's peak arrival
   * rate is above the fleet's and warns locally above this machine's.
   */
  arrivalsPerCorePerSecond: 400,
  /** Reference target memory per held connection: 96k run, /metrics RSS 186 → 853 MB over 19,219 held = 35.5 KB. */
  targetBytesPerVuser: 36 * KiB,
} as const;

/** What the model keeps free on a generator besides the Artillery processes: OS, SSM and CloudWatch agents, the rig agent. */
export const OS_RESERVE_BYTES = 512 * MiB;
/** Safety factor on the measured bytes per vuser: GC keeps garbage around, so peak RSS overshoots live memory. */
export const MEMORY_HEADROOM = 1.25;
/** Files a load process keeps for itself (Node, Artillery, logs) besides its sockets. */
export const RESERVED_FILES = 300;
/**
 * Sockets one load process is planned to hold under an open-file limit of `nofile`: the share at which the
 * rig-health verdict calls a generator saturated, less the files the process keeps for itself. A generator
 * planned at capacity then stays under the verdict's threshold instead of tripping it by construction.
 */
export function usableOpenFiles(nofile: number): number {
  return Math.max(1, Math.floor(nofile * DEFAULT_THRESHOLDS.openFilesShare) - RESERVED_FILES);
}

/** Connections one source address is planned to hold out of `range` ephemeral ports: the verdict's threshold share. */
export function usablePorts(range: number): number {
  return Math.max(1, Math.floor(range * DEFAULT_THRESHOLDS.portsShare));
}

/** Per-process open-file limit set by load-generators/host-tuning.sh on AWS generators. */
export const AWS_NOFILE = 65_536;
/** Ephemeral ports per source address with host-tuning.sh's ip_local_port_range 1024–65535. */
export const AWS_PORT_RANGE = 65_535 - 1024 + 1;
/** Ephemeral ports per source address with Linux's default ip_local_port_range 32768–60999. */
export const DEFAULT_PORT_RANGE = 60_999 - 32_768 + 1;

/** An EC2 instance type the generator fleet offers. */
export interface InstanceSpec {
  readonly vcpus: number;
  readonly memoryBytes: number;
  /** Private IPv4 addresses per network interface (EC2's limit), so 1 primary + up to this − 1 secondary. */
  readonly ipv4PerInterface: number;
  /** CPU architecture (EC2 DescribeInstanceTypes `SupportedArchitectures`). @default 'x86_64' */
  readonly architecture?: 'x86_64' | 'arm64';
}

/** The generator instance types the model knows (EC2 specifications). */
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

/** Default number of secondary private IPs per generator (lib/config.ts `generatorSecondaryIps`). */
export const DEFAULT_SECONDARY_IPS = 1;

/** Overrides of the measured figures (e.g. a fresh bench result). */
export interface Measurements {
  readonly generatorBytesPerVuser: number;
  readonly artilleryBaseRssBytes: number;
  readonly arrivalsPerCorePerSecond: number;
}

/** A generator's limits as the planner takes them, plus the model's arrival-rate figure. */
export interface ModelledGenerator {
  readonly limits: GeneratorLimits;
  /** V8 heap limit of each load process (`--max-old-space-size`, MiB): see {@link heapLimitMiB}. */
  readonly heapLimitMiB: number;
  /** Concurrent vusers it holds and the limit that binds. */
  readonly capacity: ReturnType<typeof capacityPerGenerator>;
  /** Arrivals per second it sustains (cores × measured rate per core). */
  readonly arrivalsPerSecond: number;
}

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

/** Vusers per second a generator with `processes` load processes (one per core) creates: cores × the measured rate per core. */
export function arrivalsPerSecond(processes: number, m: Measurements = MEASURED): number {
  return processes * m.arrivalsPerCorePerSecond;
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
 */
export function deployedGenerator(fleet: DeployedFleet, m: Measurements = MEASURED): DeployedGenerator {
  const secondaryIps = fleet.targetIsPrivate ? fleet.secondaryIps : 0;
  const spec = fleet.spec ?? INSTANCE_TYPES[fleet.instanceType];
  const source = fleet.spec ? 'ec2' : spec ? 'table' : 'size-name';
  let limits: GeneratorLimits;
  let heap: number;
  if (spec) {
    const g = generatorOf(fleet.instanceType, spec, Math.min(secondaryIps, spec.ipv4PerInterface - 1), m);
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
        'pass --generator-capacity N (vusers one generator holds), or measure the type with `npm run bench` and add it to INSTANCE_TYPES in scripts/core/capacity-model.ts',
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
  return { limits, capacity: capacityPerGenerator(limits), arrivalsPerSecond: arrivalsPerSecond(processes, m), heapLimitMiB: heapLimitMiB(machine.freeMemoryBytes * LOCAL_MEMORY_SHARE, processes, 0) };
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
