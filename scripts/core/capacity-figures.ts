/**
 * The capacity model's figures (pure data): the measurements of the connect scenario with where each came
 * from, the reserves and shares the model keeps, and the generator instance types it knows. The arithmetic
 * built on them is in ./capacity-model.ts.
 */
import type { GeneratorLimits, capacityPerGenerator } from './capacity';
import { DEFAULT_THRESHOLDS } from './verdict';

const KiB = 1024;
export const MiB = 1024 * KiB;

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
   * Vusers per second one core of a generator creates on the connect scenario when the core is its own, as
   * on an AWS generator (the target runs elsewhere). Measured by `npm run bench -- --pin` (the reference
   * target pinned to CPU 1, the rig and its agent to CPU 0): the rig sustained 800/s on its one CPU (< 1%
   * failed, every full 10-s period ≥ 95% of its share), 1,000/s it did not (2026-11-23; docs/performance.md,
   * "Pinned figures"). The planner adds AWS generators when the profile's peak arrival rate is above the
   * fleet's (cores × this).
   */
  arrivalsPerCorePerSecond: 800,
  /**
   * The same where the reference target shares the cores (the local platform): the unpinned bench's ladder
   * sustained 800/s on the 2-core dev machine with its target on the same two cores (2026-11-21 and
   * 2026-11-23), 1,000/s not: 800 / 2 cores = 400. The local planner warns above cores × this.
   */
  sharedArrivalsPerCorePerSecond: 400,
  /** Reference target memory per held connection: 96k run, /metrics RSS 186 → 853 MB over 19,219 held = 35.5 KB. */
  targetBytesPerVuser: 36 * KiB,
} as const;

/**
 * CPU seconds (user + system) one Artillery load process takes from its start to the end of a short run: module
 * loading, the rig plugin, its worker thread. 12 local generators (24 load processes, 24 vusers, `npm run loadtest --
 * --generators 12 --vusers 24 --ramp 2s --hold 1s`, 2-vCPU Intel Xeon, 2026-11-27): 89 CPU-s for the whole run, ~3.7
 * per process; plain `artillery run` of one request: 3.5–3.6. Bounds how many local generators start before the
 * ready deadline.
 */
export const ARTILLERY_START_CPU_SECONDS = 3.7;

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

/** The generator instance types the model knows (EC2 specifications), kept with the CDK app's synth-time checks. */
export { INSTANCE_TYPES } from '../../lib/instance-types';
export type { InstanceSpec } from '../../lib/instance-types';

/** Default number of secondary private IPs per generator (lib/config.ts `generatorSecondaryIps`). */
export const DEFAULT_SECONDARY_IPS = 1;

/** Overrides of the measured figures (e.g. a fresh bench result). */
export interface Measurements {
  readonly generatorBytesPerVuser: number;
  readonly artilleryBaseRssBytes: number;
  readonly arrivalsPerCorePerSecond: number;
  readonly sharedArrivalsPerCorePerSecond: number;
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
