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

module.exports = { sampleProcess };
