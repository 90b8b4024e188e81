// @ts-check
'use strict';
/**
 * The EC2 instance's network allowances, as its ENA driver counts them (`ethtool -S`): packets an instance queued
 * or dropped because it passed a limit of its own size — aggregate bandwidth in or out, packets per second,
 * tracked connections, packets to link-local services (DNS, IMDS, time sync). On a generator each is the rig's
 * limit, not the target's: a target never causes them, and without them such drops look like a slow or refusing
 * target (Amazon EC2 User Guide, "Monitor network performance for ENA settings on your EC2 instance"; the
 * generators' security group has no inbound rule, so every connection is tracked: "Amazon EC2 security group
 * connection tracking").
 *
 * Where there is no ENA interface or no `ethtool` (every local run), there is nothing to count: undefined.
 */
const { execFile } = require('node:child_process');
const fs = require('node:fs');

/** The driver's counter names and the short names the health samples use. */
const ALLOWANCES = /** @type {const} */ ({
  bw_in_allowance_exceeded: 'bw_in',
  bw_out_allowance_exceeded: 'bw_out',
  pps_allowance_exceeded: 'pps',
  conntrack_allowance_exceeded: 'conntrack',
  linklocal_allowance_exceeded: 'linklocal',
});

/**
 * The allowance counters in one interface's `ethtool -S` output ("     conntrack_allowance_exceeded: 0").
 * @param {string} text
 * @returns {Record<string, number>} by short name; empty for an interface without them (not ENA)
 */
function parseEthtoolStats(text) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const m of text.matchAll(/^\s*([a-z_]+_allowance_exceeded):\s*(\d+)\s*$/gm)) {
    const short = /** @type {Record<string, string>} */ (ALLOWANCES)[/** @type {string} */ (m[1])];
    if (short) out[short] = Number(m[2]);
  }
  return out;
}

/** @param {string} iface @returns {Promise<string>} */
function runEthtool(iface) {
  return new Promise((resolve, reject) => {
    execFile('ethtool', ['-S', iface], { timeout: 5_000, maxBuffer: 1 << 20 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}

/** Interfaces other than loopback (the instance's ENIs; virtual ones have no allowance counters). */
function networkInterfaces() {
  return fs.readdirSync('/sys/class/net').filter((n) => n !== 'lo');
}

/**
 * Counts the allowance drops between samples. The first sample sets the baseline (drops before the run are not
 * its own) and reports zeros; a counter that went down (the driver was reset) counts from zero again.
 * @param {{ ethtool?: (iface: string) => Promise<string>, interfaces?: () => string[] }} [io]
 */
function nicAllowanceMeter(io = {}) {
  const ethtool = io.ethtool ?? runEthtool;
  const interfaces = io.interfaces ?? networkInterfaces;
  /** @type {Record<string, number> | undefined} */
  let previous;
  let unavailable = false;

  /** @returns {Promise<Record<string, number> | undefined>} the counters summed over the interfaces */
  const read = async () => {
    /** @type {Record<string, number>} */
    const total = {};
    let found = false;
    let names;
    try {
      names = interfaces();
    } catch {
      return undefined;
    }
    for (const iface of names) {
      let text;
      try {
        text = await ethtool(iface);
      } catch (err) {
        // No ethtool on this machine: nothing to ask again. Another failure (an interface without statistics) skips it.
        if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') unavailable = true;
        if (unavailable) return undefined;
        continue;
      }
      for (const [k, v] of Object.entries(parseEthtoolStats(text))) {
        total[k] = (total[k] ?? 0) + v;
        found = true;
      }
    }
    return found ? total : undefined;
  };

  return {
    /**
     * Packets queued or dropped per allowance since the previous sample; undefined where nothing counts them.
     * @returns {Promise<Record<string, number> | undefined>}
     */
    async sample() {
      if (unavailable) return undefined;
      const now = await read();
      if (!now) return undefined;
      const base = previous ?? now;
      previous = now;
      return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v >= (base[k] ?? 0) ? v - (base[k] ?? 0) : v]));
    },
  };
}

module.exports = { parseEthtoolStats, nicAllowanceMeter };
