// @ts-check
'use strict';
/**
 * Resource samples of a load process, read from /proc (Linux): the figures that tell a saturated
 * generator from a failing target — CPU, memory, open files against their limit, ports in use.
 */
const fs = require('node:fs');

const CLK_TCK = 100; // USER_HZ on Linux
/** @type {Map<number, { at: number, ticks: number }>} */
const lastCpu = new Map();

/**
 * @param {number} pid
 * @returns {{ pid: number, cpuPercent?: number, rssBytes?: number, openFiles?: number, openFilesLimit?: number }}
 */
function sampleProcess(pid) {
  const out = /** @type {ReturnType<typeof sampleProcess>} */ ({ pid });
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
    const now = Date.now();
    const prev = lastCpu.get(pid);
    if (prev && now > prev.at) out.cpuPercent = Math.round(((ticks - prev.ticks) / CLK_TCK / ((now - prev.at) / 1000)) * 1000) / 10;
    lastCpu.set(pid, { at: now, ticks });
    const rssPages = Number(fields[21]);
    out.rssBytes = rssPages * 4096;
    out.openFiles = fs.readdirSync(`/proc/${pid}/fd`).length;
    const limits = fs.readFileSync(`/proc/${pid}/limits`, 'utf8');
    const m = /Max open files\s+(\d+)/.exec(limits);
    if (m) out.openFilesLimit = Number(m[1]);
  } catch {
    // the process just exited: a partial sample is still a sample
  }
  return out;
}

/**
 * Hex form of an IPv4 address as /proc/net/tcp prints it (little-endian).
 * @param {string} addr
 */
function hexIPv4(addr) {
  return addr.split('.').map((/** @type {string} */ o) => Number(o).toString(16).padStart(2, '0').toUpperCase()).reverse().join('');
}

/**
 * TCP sockets bound to a source address (every state but LISTEN): the ephemeral ports it uses.
 * @param {string | undefined} sourceAddress
 */
function countPortsInUse(sourceAddress) {
  if (!sourceAddress || !/^\d+\.\d+\.\d+\.\d+$/.test(sourceAddress)) return undefined;
  const want = hexIPv4(sourceAddress);
  try {
    const lines = fs.readFileSync('/proc/net/tcp', 'utf8').split('\n');
    let n = 0;
    for (let i = 1; i < lines.length; i++) {
      const cols = (lines[i] || '').trim().split(/\s+/);
      const local = cols[1];
      if (local && local.startsWith(want + ':') && cols[3] !== '0A') n++;
    }
    return n;
  } catch {
    return undefined;
  }
}

/** The ephemeral port range size (ip_local_port_range), for the planner and the verdict. */
function ephemeralPortRange() {
  try {
    const [lo, hi] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (lo === undefined || hi === undefined) return undefined;
    return { low: lo, high: hi, size: hi - lo + 1 };
  } catch {
    return undefined;
  }
}

module.exports = { sampleProcess, countPortsInUse, ephemeralPortRange, hexIPv4 };
