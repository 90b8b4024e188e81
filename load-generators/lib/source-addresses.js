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
const { spawn } = require('node:child_process');
const fs = require('node:fs');
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
 * every such target is private, else the OS's choice.
 * @param {{ sourceAddress?: string, script?: any }[]} specs
 * @param {{ interfaces?: NodeJS.Dict<os.NetworkInterfaceInfo[]>, env?: NodeJS.ProcessEnv, resolve?: (host: string) => Promise<string[]> }} [io]
 *   resolve: every address of a host name, both families (default: the OS's resolver)
 * @returns {Promise<{ sources: string[], notes: string[] }>}
 */
async function sourceAddressesFor(specs, io = {}) {
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
  const assigned = assignSourceAddresses(specs, addresses);
  return { sources: assigned.map((a, k) => (dropped[k] ? '' : a)), notes };
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

/**
 * Hex form of an IPv4 address as /proc/net/tcp prints it (little-endian).
 * @param {string} addr
 */
function hexIPv4(addr) {
  return addr.split('.').map((o) => Number(o).toString(16).padStart(2, '0').toUpperCase()).reverse().join('');
}

/**
 * TCP sockets (every state but LISTEN) bound to each address, from ONE read of /proc/net/tcp — the
 * fallback of countPortsByAddress where `ss` is missing.
 * @param {string[]} addresses
 * @param {string} [procFile]
 * @param {string} [onlyState] count only sockets in this /proc state (hex, e.g. '01' = ESTABLISHED)
 * @returns {Map<string, number> | undefined}
 */
function countPortsFromProc(addresses, procFile = '/proc/net/tcp', onlyState = '') {
  const wanted = new Map();
  for (const a of addresses) if (/^\d+\.\d+\.\d+\.\d+$/.test(a)) wanted.set(`${hexIPv4(a)}:`, a);
  if (wanted.size === 0) return undefined;
  let text;
  try {
    text = fs.readFileSync(procFile, 'latin1');
  } catch {
    return undefined;
  }
  /** @type {Map<string, number>} */
  const counts = new Map(addresses.map((a) => [a, 0]));
  // Fixed layout: "  sl  local_address rem_address   st ..."; local is 8 hex + ':' + 4 hex.
  let pos = text.indexOf('\n') + 1;
  while (pos > 0 && pos < text.length) {
    const end = text.indexOf('\n', pos);
    const line = text.slice(pos, end < 0 ? text.length : end);
    pos = end < 0 ? text.length : end + 1;
    const colon = line.indexOf(': ');
    if (colon < 0) continue;
    const local = line.slice(colon + 2, colon + 11);
    const addr = wanted.get(local);
    if (addr === undefined) continue;
    const state = line.slice(colon + 2 + 28, colon + 2 + 30); // after "LLLLLLLL:PPPP RRRRRRRR:PPPP "
    if (onlyState ? state === onlyState : state !== '0A') counts.set(addr, (counts.get(addr) || 0) + 1);
  }
  return counts;
}

/**
 * Runs `ss` with `args`, handing its output to `onText` piece by piece as it arrives.
 * @param {string[]} args @param {(text: string) => void} onText
 * @returns {Promise<void>}
 */
function runSs(args, onText) {
  return new Promise((resolve, reject) => {
    const child = spawn('ss', args, { stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
    child.stdout.setEncoding('latin1').on('data', onText);
    child.once('error', reject);
    child.once('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`ss ended with ${signal || `exit code ${code}`}`))));
  });
}

/**
 * Counts `ss -Htan` lines per local address as the output arrives, holding only the line in progress. The
 * agent samples every few seconds while a generator holds tens of thousands of sockets: collected whole, each
 * sample was a string of ~60 bytes per socket and its split lines, which the agent's heap kept growing for (its
 * RSS rose ~10 MB while a local run came up to 6,000 held).
 * @param {string[]} addresses
 */
function ssSocketCounter(addresses) {
  /** @type {Map<string, number>} */
  const ports = new Map(addresses.map((a) => [a, 0]));
  /** @type {Map<string, number>} */
  const established = new Map(addresses.map((a) => [a, 0]));
  let partial = '';
  // "ESTAB 0 0 127.0.1.10:40145 127.0.0.1:3950": the fourth column is the local address:port.
  const countLine = (/** @type {string} */ line) => {
    const cols = line.trim().split(/\s+/);
    const local = cols[3];
    if (!local) return;
    const addr = local.slice(0, local.lastIndexOf(':'));
    const n = ports.get(addr);
    if (n === undefined) return;
    ports.set(addr, n + 1);
    if (cols[0] === 'ESTAB') established.set(addr, (established.get(addr) || 0) + 1);
  };
  return {
    /** @param {string} text the next piece of the output (lines may be cut anywhere) */
    feed(text) {
      const buffered = partial + text;
      let from = 0;
      for (let nl = buffered.indexOf('\n'); nl >= 0; from = nl + 1, nl = buffered.indexOf('\n', from)) countLine(buffered.slice(from, nl));
      partial = buffered.slice(from);
    },
    /** The counts, once the output ended. */
    end() {
      if (partial) countLine(partial);
      partial = '';
      return { ports, established };
    },
  };
}

/**
 * TCP sockets (every state but LISTEN, TIME-WAIT included) bound to each address. Asks the kernel through
 * sock_diag (`ss`) with a source-address filter, so only these addresses' sockets are formatted: reading
 * /proc/net/tcp formats every socket of the machine as text, ~0.5 s of kernel CPU per read at 130,000
 * sockets (three local generators reading it every 5 s took half a core of two in a 96,000-vuser run).
 * Falls back to /proc/net/tcp where `ss` cannot run.
 * @param {string[]} addresses
 * @param {{ ss?: (args: string[], onText: (text: string) => void) => Promise<void>, procFile?: string }} [io]
 * @returns {Promise<Map<string, number> | undefined>}
 */
async function countPortsByAddress(addresses, io = {}) {
  return (await countSocketsByAddress(addresses, io))?.ports;
}

/**
 * Like {@link countPortsByAddress}, and also the established connections per address: the sockets that
 * really hold a vuser (ports in use include TIME_WAIT and closing ones).
 * @param {string[]} addresses
 * @param {{ ss?: (args: string[], onText: (text: string) => void) => Promise<void>, procFile?: string }} [io]
 * @returns {Promise<{ ports: Map<string, number>, established: Map<string, number> } | undefined>}
 */
async function countSocketsByAddress(addresses, io = {}) {
  const wanted = [...new Set(addresses.filter((a) => /^\d+\.\d+\.\d+\.\d+$/.test(a)))];
  if (wanted.length === 0) return undefined;
  const filter = ['(', ...wanted.flatMap((a, i) => (i === 0 ? ['src', a] : ['or', 'src', a])), ')'];
  const counter = ssSocketCounter(addresses);
  try {
    await (io.ss ?? runSs)(['-Htan', 'state', 'all', 'exclude', 'listening', ...filter], (text) => counter.feed(text));
  } catch {
    const ports = countPortsFromProc(addresses, io.procFile);
    const established = countPortsFromProc(addresses, io.procFile, '01');
    return ports && established ? { ports, established } : undefined;
  }
  return counter.end();
}

module.exports = {
  parseSourceAddresses,
  privateIPv4Addresses, assignSourceAddresses, sourceAddressesFor, aliasReaches, targetAddresses, targetIsPrivate, isPrivateIPv4, countPortsByAddress, countPortsFromProc, isLoopbackTarget, hexIPv4, countSocketsByAddress, ssSocketCounter,
};
