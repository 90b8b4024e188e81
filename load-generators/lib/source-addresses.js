// @ts-check
'use strict';
/**
 * Source addresses of a generator's load processes. Locally the orchestrator names one loopback alias
 * per process (127.0.1.10 …). On AWS the process specs name none: the generator fleet gives each
 * instance several private IPv4 addresses (secondary IPs on its network interface, configured by the
 * OS), and the agent spreads its processes over them, so one instance holds more than one address's
 * ~64k ephemeral ports of connections to a single target address:port.
 *
 * A process gets a comma-separated list when there are more addresses than processes; the connect
 * processor rotates over it per vuser.
 */
const dns = require('node:dns');
const net = require('node:net');
const os = require('node:os');

/** Interfaces that never carry the generator's traffic (containers, bridges, tunnels). */
const VIRTUAL_INTERFACE = /^(lo|docker|br-|veth|virbr|cni|flannel|tun|tap|wg)/;

/**
 * The instance's own IPv4 addresses in the OS's order (primary first on AL2023), without loopback,
 * link-local or virtual interfaces. `RIG_SOURCE_ADDRESSES` (comma-separated) overrides the discovery.
 * @param {NodeJS.Dict<os.NetworkInterfaceInfo[]>} [interfaces]
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string[]}
 */
function privateIPv4Addresses(interfaces = os.networkInterfaces(), env = process.env) {
  if (env.RIG_SOURCE_ADDRESSES) return env.RIG_SOURCE_ADDRESSES.split(',').map((a) => a.trim()).filter(Boolean);
  /** @type {string[]} */
  const out = [];
  for (const [name, infos] of Object.entries(interfaces)) {
    if (VIRTUAL_INTERFACE.test(name)) continue;
    for (const i of infos || []) {
      const v4 = i.family === 'IPv4' || /** @type {unknown} */ (i.family) === 4;
      if (!v4 || i.internal || i.address.startsWith('169.254.') || out.includes(i.address)) continue;
      out.push(i.address);
    }
  }
  return out;
}

/** @param {string | undefined} target */
function isLoopbackTarget(target) {
  try {
    const host = new URL(String(target)).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

/**
 * True for an address only reachable without public address translation: RFC 1918, carrier-grade NAT
 * (100.64/10, which VPCs may use), and loopback.
 * @param {string} ip
 */
function isPrivateIPv4(ip) {
  const o = ip.split('.').map(Number);
  if (o.length !== 4 || o.some((x) => !(x >= 0 && x <= 255))) return false;
  const [a = 0, b = 0] = o;
  return a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
}

/**
 * Whether connections to `target` may leave from secondary private IPs: only when every address it
 * resolves to, in either family, is private IPv4 (inside the VPC or peered). A secondary private IP has no
 * public IPv4 mapping at the internet gateway, so packets from it to a public address (an internet-facing load
 * balancer) would be dropped; and a socket bound to an IPv4 address cannot connect to an IPv6 one (Node picks
 * one address per connection and, with a local address, does not fall back to the other family): those
 * targets keep the OS's choice (the primary address).
 * @param {string | undefined} target
 * @param {(host: string) => Promise<string[]>} [resolve] every address of a host name (both families)
 */
async function targetIsPrivate(target, resolve) {
  const ips = await targetAddresses(target, resolve);
  return ips.length > 0 && ips.every(isPrivateIPv4);
}

/**
 * Whether a loopback alias (127.0.x.y, the local platform's source address per load process) can reach a host
 * that resolves to `ips`: only when every one of them is IPv4 loopback. Linux delivers 127/8 only over `lo`, so a
 * socket bound to an alias cannot reach another host, and an IPv6 target needs an IPv6 socket, which cannot bind
 * an IPv4 address: either way every connect fails with EINVAL, and every vuser with it.
 * @param {string[]} ips
 */
function aliasReaches(ips) {
  return ips.length > 0 && ips.every((ip) => net.isIPv4(ip) && ip.startsWith('127.'));
}

/**
 * Every address `target`'s host resolves to (both families), or none when it has no host or does not resolve.
 * @param {string | undefined} target
 * @param {(host: string) => Promise<string[]>} [resolve]
 * @returns {Promise<string[]>}
 */
async function targetAddresses(target, resolve = async (h) => (await dns.promises.lookup(h, { all: true })).map((r) => r.address)) {
  let host;
  try {
    host = new URL(String(target)).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return [];
  }
  if (net.isIP(host)) return [host];
  return resolve(host).catch(() => []);
}

/**
 * The source address(es) of each load process on this machine, and what the run output should say about them:
 * a spec's own address (a local loopback alias) only where it reaches the spec's target (else the OS's choice,
 * with a note); for specs without one, `assignSourceAddresses` over this instance's private IPv4 addresses when
 * every such target is private, else the OS's choice. A spec marked `osChoice` (a user's script: Artillery's engines
 * bind no address) always keeps the OS's choice and takes no share of the instance's addresses.
 * @param {{ sourceAddress?: string, script?: any, osChoice?: boolean }[]} allSpecs
 * @param {{ interfaces?: NodeJS.Dict<os.NetworkInterfaceInfo[]>, env?: NodeJS.ProcessEnv, resolve?: (host: string) => Promise<string[]> }} [io]
 *   resolve: every address of a host name, both families (default: the OS's resolver)
 * @returns {Promise<{ sources: string[], notes: string[] }>}
 */
async function sourceAddressesFor(allSpecs, io = {}) {
  const specs = allSpecs.filter((s) => !s.osChoice);
  const targetOf = (/** @type {{ script?: any }} */ s) => s.script && s.script.config && s.script.config.target;
  /** @type {string[]} */
  const notes = [];
  const unreachable = new Set();
  for (const target of new Set(specs.filter((s) => s.sourceAddress).map(targetOf))) {
    if (aliasReaches(await targetAddresses(target, io.resolve))) continue;
    unreachable.add(target);
    notes.push(`note: ${String(target)} is not on this machine's IPv4 loopback (127.0.0.0/8): connections to it leave from the address the OS picks, not from a loopback alias per load process`);
  }
  // A spec whose alias cannot reach its target keeps the OS's choice.
  const dropped = specs.map((s) => Boolean(s.sourceAddress) && unreachable.has(targetOf(s)));
  const open = specs.filter((s) => !s.sourceAddress).map(targetOf);
  /** @type {string[]} */
  let addresses = [];
  if (open.length > 0) {
    const ok = await Promise.all(open.map((t) => (isLoopbackTarget(t) ? true : targetIsPrivate(t, io.resolve))));
    if (ok.every(Boolean)) addresses = privateIPv4Addresses(io.interfaces, io.env);
  }
  const assigned = assignSourceAddresses(specs, addresses).map((a, k) => (dropped[k] ? '' : a));
  let next = 0;
  return { sources: allSpecs.map((s) => (s.osChoice ? '' : /** @type {string} */ (assigned[next++]))), notes };
}

/**
 * Source address(es) per load process: a spec's own address wins; otherwise, when the target is not on
 * loopback, the addresses are dealt out — every process its own share when there are at least as many
 * addresses as processes, else round-robin (processes share an address). Empty string = the OS's choice.
 * @param {{ sourceAddress?: string, script?: any }[]} specs
 * @param {string[]} addresses
 * @returns {string[]}
 */
function assignSourceAddresses(specs, addresses) {
  const n = specs.length;
  return specs.map((spec, k) => {
    if (spec.sourceAddress) return spec.sourceAddress;
    const target = spec.script && spec.script.config && spec.script.config.target;
    if (addresses.length === 0 || isLoopbackTarget(target)) return '';
    if (addresses.length <= n) return addresses[k % addresses.length] || '';
    return addresses.filter((_, i) => i % n === k).join(',');
  });
}

/**
 * The addresses one load process was given in RIG_SOURCE_ADDRESS: one address, a comma-separated list (an AWS
 * generator with more private IPs than load processes), or none (empty: the OS's choice).
 * @param {string | undefined} value
 * @returns {string[]}
 */
function parseSourceAddresses(value) {
  return String(value || '').split(',').map((a) => a.trim()).filter(Boolean);
}

module.exports = {
  parseSourceAddresses,
  privateIPv4Addresses, assignSourceAddresses, sourceAddressesFor, aliasReaches, targetAddresses, targetIsPrivate, isPrivateIPv4, isLoopbackTarget,
};
