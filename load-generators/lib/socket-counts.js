// @ts-check
'use strict';
/**
 * TCP sockets of a generator, counted for its health samples: per source address (the load processes' own
 * addresses: each address has one ephemeral port range), and per (source, destination) pair for connections
 * that leave from the address the OS picks (there the kernel's limit is one port range per pair).
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');

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
 * Hands `countLine` each whole line of a text that arrives in pieces cut anywhere, holding only the line in progress.
 * @param {(line: string) => void} countLine
 */
function lineFeeder(countLine) {
  let partial = '';
  return {
    /** @param {string} text the next piece of the output */
    feed(text) {
      const buffered = partial + text;
      let from = 0;
      for (let nl = buffered.indexOf('\n'); nl >= 0; from = nl + 1, nl = buffered.indexOf('\n', from)) countLine(buffered.slice(from, nl));
      partial = buffered.slice(from);
    },
    /** The output ended: its last line, if it had no newline. */
    flush() {
      if (partial) countLine(partial);
      partial = '';
    },
  };
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
  // "ESTAB 0 0 127.0.1.10:40145 127.0.0.1:3950": the fourth column is the local address:port.
  const lines = lineFeeder((line) => {
    const cols = line.trim().split(/\s+/);
    const local = cols[3];
    if (!local) return;
    const addr = local.slice(0, local.lastIndexOf(':'));
    const n = ports.get(addr);
    if (n === undefined) return;
    ports.set(addr, n + 1);
    if (cols[0] === 'ESTAB') established.set(addr, (established.get(addr) || 0) + 1);
  });
  return {
    feed: lines.feed,
    /** The counts, once the output ended. */
    end() {
      lines.flush();
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


/**
 * The port connections to `url` go to: its own, or its scheme's default. Undefined for anything else.
 * @param {string | undefined} url
 * @returns {number | undefined}
 */
function destinationPort(url) {
  try {
    const u = new URL(String(url));
    if (u.port) return Number(u.port);
    return /** @type {Record<string, number>} */ ({ 'http:': 80, 'ws:': 80, 'https:': 443, 'wss:': 443 })[u.protocol];
  } catch {
    return undefined;
  }
}

/** @param {string} ip an address as ss prints it, brackets and zone removed */
function isLoopbackIp(ip) {
  return /^127\./.test(ip) || ip === '::1' || /^::ffff:127\./i.test(ip);
}

/** @param {string} hex an address as /proc/net/tcp or tcp6 prints it */
function isLoopbackHex(hex) {
  if (hex.length === 8) return hex.endsWith('7F');
  return hex === '00000000000000000000000001000000' || (hex.startsWith('0000000000000000FFFF0000') && hex.endsWith('7F'));
}

/**
 * Whether Linux lets a new outgoing connection take over a pair's TIME-WAIT socket, so that it holds no port of the
 * pair's range: net.ipv4.tcp_tw_reuse 1 (the generator fleet's host tuning) for every pair, 2 (Linux's default)
 * when either end is loopback, 0 never (ip-sysctl.rst, tcp_tw_reuse; the kernel's tcp_twsk_unique).
 * @param {number} reuse @param {boolean} loopbackEnd
 */
function timeWaitReused(reuse, loopbackEnd) {
  return reuse === 1 || (reuse === 2 && loopbackEnd);
}

/** @param {string} file */
function readTwReuse(file) {
  try {
    const v = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(v) ? v : 2;
  } catch {
    return 2;
  }
}

/**
 * Counts `ss -Htan` lines per (local address, remote address:port) pair as the output arrives.
 * @param {number} reuse net.ipv4.tcp_tw_reuse
 */
function ssPairCounter(reuse) {
  /** @type {Map<string, number>} */
  const pairs = new Map();
  const hostOf = (/** @type {string} */ endpoint) => endpoint.slice(0, endpoint.lastIndexOf(':')).replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  // "ESTAB 0 0 127.0.0.1:40145 127.0.0.1:3950", "TIME-WAIT 0 0 [::1]:40146 [::1]:3950"
  const lines = lineFeeder((line) => {
    const [state, , , local, remote] = line.trim().split(/\s+/);
    if (!local || !remote) return;
    const from = hostOf(local);
    if (state === 'TIME-WAIT' && timeWaitReused(reuse, isLoopbackIp(from) || isLoopbackIp(hostOf(remote)))) return;
    const key = `${from} → ${remote}`;
    pairs.set(key, (pairs.get(key) || 0) + 1);
  });
  return {
    feed: lines.feed,
    end() {
      lines.flush();
      return pairs;
    },
  };
}

/**
 * The /proc fallback of {@link countPortsByDestination}: one read of each file (IPv4 and IPv6).
 * @param {Set<number>} ports @param {number} reuse @param {string[]} files
 * @returns {Map<string, number> | undefined}
 */
function pairsFromProc(ports, reuse, files) {
  /** @type {Map<string, number>} */
  const pairs = new Map();
  let read = false;
  for (const file of files) {
    let text;
    try {
      text = fs.readFileSync(file, 'latin1');
    } catch {
      continue;
    }
    read = true;
    // "  sl  local_address rem_address   st ...": "   1: 0100007F:9C41 0100007F:0F6E 01 ..."
    for (const line of text.split('\n').slice(1)) {
      const [, local, remote, state] = line.trim().split(/\s+/);
      if (!local || !remote || state === '0A') continue;
      const [remoteHex = '', remotePort = ''] = remote.split(':');
      if (!ports.has(parseInt(remotePort, 16))) continue;
      const localHex = local.slice(0, local.indexOf(':'));
      if (state === '06' && timeWaitReused(reuse, isLoopbackHex(localHex) || isLoopbackHex(remoteHex))) continue;
      const key = `${localHex} → ${remote}`;
      pairs.set(key, (pairs.get(key) || 0) + 1);
    }
  }
  return read ? pairs : undefined;
}

/**
 * Ports in use by connections that leave from the address the OS picks (no source address of the rig's), toward
 * the given destination ports: the busiest (source address, destination address:port) pair on this machine.
 * Without a bound address, Linux lets one local port serve connections to different destinations, so a pair, not
 * an address, has one ephemeral range; when a pair's range is used up, its connects fail with EADDRNOTAVAIL.
 * Every connection of the machine counts, since they share the ranges, whichever process holds it.
 * TIME-WAIT sockets count only where the kernel would not reuse them ({@link timeWaitReused}).
 * @param {number[]} ports destination ports (the targets')
 * @param {{ ss?: (args: string[], onText: (text: string) => void) => Promise<void>, procFiles?: string[], twReuseFile?: string }} [io]
 * @returns {Promise<{ busiest: number, pair?: string } | undefined>}
 */
async function countPortsByDestination(ports, io = {}) {
  const wanted = [...new Set(ports.filter((p) => Number.isInteger(p) && p > 0 && p <= 65535))];
  if (wanted.length === 0) return undefined;
  const reuse = readTwReuse(io.twReuseFile ?? '/proc/sys/net/ipv4/tcp_tw_reuse');
  const filter = ['(', ...wanted.flatMap((p, i) => (i === 0 ? ['dport', '=', `:${p}`] : ['or', 'dport', '=', `:${p}`])), ')'];
  const counter = ssPairCounter(reuse);
  /** @type {Map<string, number> | undefined} */
  let pairs;
  try {
    await (io.ss ?? runSs)(['-Htan', 'state', 'all', 'exclude', 'listening', ...filter], (text) => counter.feed(text));
    pairs = counter.end();
  } catch {
    pairs = pairsFromProc(new Set(wanted), reuse, io.procFiles ?? ['/proc/net/tcp', '/proc/net/tcp6']);
  }
  if (!pairs) return undefined;
  let busiest = 0;
  /** @type {string | undefined} */
  let pair;
  for (const [key, n] of pairs) if (n > busiest) [busiest, pair] = [n, key];
  return pair ? { busiest, pair } : { busiest };
}

module.exports = {
  hexIPv4, countPortsFromProc, ssSocketCounter, countPortsByAddress, countSocketsByAddress,
  destinationPort, timeWaitReused, ssPairCounter, countPortsByDestination,
};
