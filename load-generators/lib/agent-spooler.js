// @ts-check
'use strict';
/**
 * The agent's spooler: copies what the load processes write into their spool folders (periods, started
 * and ready markers, the final report) into the run store, and samples the generator's resources
 * (CPU, memory, sockets, event-loop lag) into generators/<id>/health/ while the load runs.
 */
const fs = require('node:fs');
const path = require('node:path');
const { sampleProcess } = require('./health');
const { SPOOL } = require('./run-protocol');
const { parseSourceAddresses } = require('./source-addresses');
const { countPortsByDestination, countSocketsByAddress, destinationPort } = require('./socket-counts');
const { nicAllowanceMeter } = require('./nic-allowances');

/**
 * The worst recent event-loop delay (p99 of the last window) of a load process's threads.
 * @param {string} spool
 */
function latestLag(spool) {
  let worst;
  for (const n of fs.readdirSync(spool).filter((f) => SPOOL.lagFile.test(f))) {
    try {
      const { p99Ms } = JSON.parse(fs.readFileSync(path.join(spool, n), 'utf8'));
      worst = Math.max(worst ?? 0, Number(p99Ms) || 0);
    } catch { /* being replaced right now */ }
  }
  return worst;
}

/**
 * @param {{ store: import('./run-store').RunStore, keys: ReturnType<typeof import('./run-protocol').generatorKeys>, procs: import('./agent-supervisor').LoadProcess[],
 *   sources: (string | undefined)[], targets: (string | undefined)[], clock: import('./backoff').AgentClock, healthIntervalMs: number,
 *   nic?: ReturnType<typeof nicAllowanceMeter> }} opts
 *   `sources`: each process's source address(es), '' for the OS's choice; `targets`: each process's target URL;
 *   `nic`: the instance's network-allowance counters (default: ethtool's, where there are any)
 */
function spooler(opts) {
  const { store, keys, procs, clock } = opts;
  const sourceList = (/** @type {number} */ k) => parseSourceAddresses(opts.sources[k]);
  // Processes whose connections leave from the address the OS picks: their ports are counted per destination.
  const osChosen = new Set(procs.filter((p) => sourceList(p.k).length === 0).map((p) => p.k));
  const destinationPorts = [...osChosen].map((k) => destinationPort(opts.targets[k])).filter((p) => p !== undefined);
  const nic = opts.nic ?? nicAllowanceMeter();
  let nextHealth = 0;

  /** Copies every new spool file into the store (periods are immutable once renamed into place). */
  const push = async () => {
    for (const p of procs) {
      const names = fs.readdirSync(p.spool).filter((n) => SPOOL.shipped.test(n));
      const periods = fs.readdirSync(path.join(p.spool, SPOOL.periods)).filter((n) => n.endsWith('.json')).map((n) => `${SPOOL.periods}/${n}`);
      for (const rel of [...periods, ...names]) {
        if (p.pushed.has(rel)) continue;
        await store.put(keys.process(p.k, rel), fs.readFileSync(path.join(p.spool, rel)));
        p.pushed.add(rel);
      }
    }
  };

  /**
   * One health sample when due: one socket count for every process with source addresses of its own (ss, filtered
   * to those addresses), one for those on the OS's choice (filtered to their targets' ports).
   */
  const sampleHealth = async () => {
    const now = clock.now();
    if (now < nextHealth) return;
    nextHealth = now + opts.healthIntervalMs;
    const sockets = await countSocketsByAddress(procs.flatMap((p) => sourceList(p.k)));
    const ports = sockets?.ports;
    const shared = osChosen.size ? await countPortsByDestination(destinationPorts) : undefined;
    const allowances = await nic.sample();
    const sum = (/** @type {Map<string, number> | undefined} */ m, /** @type {number} */ k) => (m && sourceList(k).length ? sourceList(k).reduce((a, addr) => a + (m.get(addr) || 0), 0) : undefined);
    const samples = procs.filter((p) => p.exit === undefined && p.child.pid).map((p) => ({
      process: `p${p.k}`,
      ...sampleProcess(/** @type {number} */ (p.child.pid)),
      // A process's figure is its busiest address; on the OS's choice, the machine's busiest (source, destination) pair.
      portsInUse: osChosen.has(p.k) ? shared?.busiest : ports && Math.max(...sourceList(p.k).map((a) => ports.get(a) || 0)),
      // Connections this process holds (every address it connects from): the generator side of "held".
      socketsEstablished: sum(sockets?.established, p.k),
      eventLoopLagMs: latestLag(p.spool),
    }));
    // The instance's, not a process's: on one sample only, so sums over the run count each packet once.
    if (allowances && samples[0]) Object.assign(samples[0], { nicAllowanceExceeded: allowances });
    await store.put(keys.health(now), JSON.stringify({ at: now, samples }));
  };

  return {
    /** One pass of the run loop: push new files, sample health when due. */
    async step() {
      await push();
      await sampleHealth();
    },
    /** After the load processes ended: what is left, and each process's log. */
    async finish() {
      await push();
      for (const p of procs) await store.put(keys.artilleryLog(p.k), fs.readFileSync(p.logFile));
    },
  };
}

module.exports = { spooler, latestLag };
