/**
 * Reads this machine's real limits (edge adapter): the open-file limit a load process inherits,
 * the ephemeral port range, free memory and cores. The planner takes the numbers, never the machine.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ephemeralRange } = require('../../load-generators/lib/bound-ports') as { ephemeralRange: () => PortRange };

/** A port range, both ends included. */
export interface PortRange {
  readonly low: number;
  readonly high: number;
}

/** Ports in a range (net.ipv4.ip_local_port_range: what one source address has per destination). */
export function portRangeSize(range: PortRange): number {
  return range.high - range.low + 1;
}

/** This machine's ephemeral port range (Linux's default where it cannot be read). */
export function machinePortRange(): PortRange {
  return ephemeralRange();
}

/** The limits that bound how many connections one local process can hold. */
export interface MachineLimits {
  /** Soft RLIMIT_NOFILE of this process (children inherit it). */
  readonly openFiles: number;
  /** Size of net.ipv4.ip_local_port_range. */
  readonly ephemeralPorts: number;
  readonly freeMemoryBytes: number;
  readonly cores: number;
}

/** Reads the limits from /proc (falls back to conservative defaults elsewhere). */
export function readMachineLimits(): MachineLimits {
  let openFiles = 1024;
  try {
    const m = /Max open files\s+(\d+)/.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    if (m) openFiles = Number(m[1]);
  } catch {
    /* not Linux: keep the default */
  }
  return { openFiles, ephemeralPorts: portRangeSize(machinePortRange()), freeMemoryBytes: os.freemem(), cores: os.availableParallelism() };
}
