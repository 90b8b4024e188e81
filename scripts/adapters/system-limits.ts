/**
 * Reads this machine's real limits (edge adapter): the open-file limit a load process inherits,
 * the ephemeral port range, free memory and cores. The planner takes the numbers, never the machine.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';

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
  let ephemeralPorts = 28232;
  try {
    const [lo, hi] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (lo !== undefined && hi !== undefined && hi >= lo) ephemeralPorts = hi - lo + 1;
  } catch {
    /* keep the Linux default range's size */
  }
  return { openFiles, ephemeralPorts, freeMemoryBytes: os.freemem(), cores: os.availableParallelism() };
}
