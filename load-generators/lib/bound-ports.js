// @ts-check
'use strict';
/**
 * Connections from a chosen source address without the kernel's bind-time port search.
 *
 * A load process connects from its own source address (a loopback alias locally, a secondary private IP on
 * AWS) so each process has a whole ephemeral port range to the target. Node can only do that with
 * `localAddress`, i.e. bind(address, port 0) before connect(); Linux then picks the port at bind time, scanning
 * for one no socket holds (it cannot know the destination yet, and Node cannot set IP_BIND_ADDRESS_NO_PORT).
 * That scan grows with the ports in use: measured on the dev machine (kernel 6.18), kernel CPU per connect
 * from one address was 30 µs at 2,000 held connections, 0.8 ms at 8,000, 1.6 ms at 10,000 and 4.8 ms at
 * 18,000. In the first 96,000-concurrent run (16,000 per address) that alone took more than a core of two.
 *
 * Naming the port makes bind() a single lookup (measured flat at ~35 µs per connect up to 18,000 held). So
 * each process keeps the ports it holds per address and hands out the next free one, round the kernel's
 * ephemeral range; libuv sets SO_REUSEADDR on bound sockets, so a port another socket left in TIME_WAIT is
 * reusable, and one still taken elsewhere (EADDRINUSE, or EADDRNOTAVAIL for a 4-tuple in TIME_WAIT) is skipped.
 * Ports are released when their socket closes.
 */
const fs = require('node:fs');
const https = require('node:https');
const net = require('node:net');
const tls = require('node:tls');

/** Ports tried for one connection before its error is the vuser's. */
const MAX_ATTEMPTS = 16;

/**
 * Linux's ephemeral port range (net.ipv4.ip_local_port_range), or its default where it cannot be read.
 * @param {string} [file]
 * @returns {{ low: number, high: number }}
 */
function ephemeralRange(file = '/proc/sys/net/ipv4/ip_local_port_range') {
  try {
    const [low, high] = fs.readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && high !== undefined && low > 0 && high >= low && high <= 65535) return { low, high };
  } catch {
    /* not Linux, or no procfs: the default range */
  }
  return { low: 32768, high: 60999 };
}

/**
 * The ports one process holds, per source address, and the next free one round the range.
 * @param {{ low: number, high: number }} range
 * @param {() => number} [random] where each address's cursor starts (0 ≤ x < 1): processes sharing an
 *   address then start far apart
 */
function createPortPool(range, random = Math.random) {
  const size = range.high - range.low + 1;
  /** @type {Map<string, { held: Set<number>, next: number }>} */
  const byAddress = new Map();
  /** @param {string} address */
  const stateOf = (address) => {
    let s = byAddress.get(address);
    if (!s) byAddress.set(address, (s = { held: new Set(), next: range.low + Math.floor(random() * size) }));
    return s;
  };
  return {
    /**
     * The next port this process does not hold on `address`; it is held until released.
     * @param {string} address
     * @returns {number}
     * @throws an EADDRNOTAVAIL error when every port of the range is held
     */
    acquire(address) {
      const s = stateOf(address);
      if (s.held.size >= size) {
        throw Object.assign(new Error(`every port of ${range.low}-${range.high} on ${address} is in use by this process`), { code: 'EADDRNOTAVAIL' });
      }
      let port = s.next;
      while (s.held.has(port)) port = port >= range.high ? range.low : port + 1;
      s.held.add(port);
      s.next = port >= range.high ? range.low : port + 1;
      return port;
    },
    /** @param {string} address @param {number} port */
    release(address, port) {
      byAddress.get(address)?.held.delete(port);
    },
    /** @param {string} address */
    held(address) {
      return byAddress.get(address)?.held.size ?? 0;
    },
  };
}

/** @typedef {ReturnType<typeof createPortPool>} PortPool */

/**
 * Connects from `address` on a port of `pool`, trying the next port when one is taken; calls back once
 * connected (the socket then owns the port until it closes) or with the last error.
 * @param {PortPool} pool
 * @param {string} address
 * @param {(opts: any) => net.Socket} connect net.connect or tls.connect
 * @param {any} options connection options (host, port, TLS settings…); given `localAddress` and `localPort` in place.
 *   Node's Agent hands createConnection a copy of its own for every connection; copying it again cost ~6 µs a
 *   connection (29 keys, a dictionary-mode object), measured on the dev machine.
 * @param {(err: Error | null, socket?: net.Socket) => void} cb
 * @param {'connect' | 'secureConnect'} [ready] the event that means connected
 * @returns {() => boolean} abandons the connection while it is still being made (its socket destroyed, its port
 *   given back, no further attempt, `cb` never called); true if there was one to abandon
 */
function connectFrom(pool, address, connect, options, cb, ready = 'connect') {
  /** @type {(() => void) | undefined} the attempt in flight's own undoing, cleared once it settles */
  let abandon;
  const attempt = (/** @type {number} */ n) => {
    let port;
    try {
      port = pool.acquire(address);
    } catch (err) {
      cb(/** @type {Error} */ (err));
      return;
    }
    options.localAddress = address;
    options.localPort = port;
    const release = portReleaser(pool, address, port);
    /** @type {net.Socket} */
    let socket;
    try {
      socket = connect(options);
    } catch (err) {
      release(); // a bad option thrown at once (port out of range, …): the port was never the socket's
      cb(/** @type {Error} */ (err));
      return;
    }
    // The request's own timeout starts once it has the socket: until then this one bounds the connect.
    const onTimeout = () => socket.destroy(Object.assign(new Error(`connect timed out after ${options.timeout} ms`), { code: 'ETIMEDOUT' }));
    if (options.timeout > 0) socket.setTimeout(options.timeout, onTimeout);
    const settle = () => {
      abandon = undefined;
      socket.removeListener('error', onError);
      socket.removeListener(ready, onConnect);
      // setTimeout(0) stops the timer but keeps the listener: removed by hand, or it would keep this attempt's
      // closures (the request's callback among them) for the socket's whole life.
      socket.removeListener('timeout', onTimeout);
      if (options.timeout > 0) socket.setTimeout(0);
    };
    const onError = (/** @type {NodeJS.ErrnoException} */ err) => {
      settle();
      release();
      socket.destroy();
      if ((err.code === 'EADDRINUSE' || err.code === 'EADDRNOTAVAIL') && n + 1 < MAX_ATTEMPTS) attempt(n + 1);
      else cb(err);
    };
    const onConnect = () => {
      settle();
      socket.once('close', release);
      cb(null, socket);
    };
    socket.once('error', onError);
    socket.once(ready, onConnect);
    abandon = () => {
      settle();
      // An error already queued for this socket (a bind or connect failure reported at once) would be emitted after
      // its listener is gone, uncaught; a module-level no-op keeps no closure alive.
      socket.on('error', ignoreError);
      release();
      socket.destroy();
    };
  };
  attempt(0);
  return () => {
    if (!abandon) return false;
    abandon();
    return true;
  };
}

/** Swallows the error of a connection nobody waits for any more. */
function ignoreError() {}

/**
 * The listener that gives a port back when its socket closes. Built outside connectFrom on purpose: a closure
 * keeps the whole scope it was made in, and a held connection keeps this listener for its life, so made inside
 * `attempt` it kept the attempt's callback and through it the HTTP upgrade request and response of every held
 * WebSocket (~3.9 KB of heap per held vuser, measured by heap snapshot: docs/performance.md).
 * @param {PortPool} pool @param {string} address @param {number} port
 */
function portReleaser(pool, address, port) {
  return () => pool.release(address, port);
}

/**
 * An HTTP(S) agent whose connections leave from `address` on ports of `pool` (no keep-alive: every
 * request its own connection, as a separate user's would be). Socket.IO's client hands it to `ws`
 * (the `agent` option), so the WebSocket upgrade uses it too. HTTPS: Node's Agent with its own connect; HTTP:
 * a lighter agent of our own (`lightHttpAgent`), two connections per vuser being the hot path.
 * @param {PortPool} pool
 * @param {string} address
 * @param {boolean} secure
 * @returns {import('node:http').Agent}
 */
function boundAgent(pool, address, secure) {
  if (!secure) return /** @type {any} */ (lightHttpAgent(pool, address));
  class BoundAgent extends https.Agent {
    /**
     * Node's Agent calls createConnection(options, oncreate) and takes the socket from `oncreate` when nothing is returned.
     * @param {any} options
     * @param {any} oncreate (err, socket) once connected, or with the error
     * @returns {undefined}
     * @override
     */
    createConnection(options, oncreate) {
      connectFrom(pool, address, tls.connect, options, oncreate, 'secureConnect');
      return undefined;
    }
  }
  // localAddress among the agent's options (Node: "options in socket.connect() are also supported") puts it in the
  // per-connection options before the agent names its socket pool, so setting it again in connectFrom keeps that
  // name and the agent finds the socket again when it closes.
  return new BoundAgent({ keepAlive: false, localAddress: address });
}

/** The options of an HTTP request that net.connect reads (besides host, port and the source address and port). */
const NET_OPTIONS = ['family', 'hints', 'lookup', 'autoSelectFamily', 'autoSelectFamilyAttemptTimeout', 'keepAlive', 'keepAliveInitialDelay', 'allowHalfOpen'];

/** A socket nobody's request took (aborted before it connected): with no keep-alive it is closed, as Node's Agent does. @this {net.Socket} */
function destroyFreeSocket() {
  this.destroy();
}

/**
 * What Node's http client takes as an agent ("Agent-like Object": `options.agent` needs only `addRequest`;
 * `_http_client.js`) for plain HTTP without keep-alive. Node's own Agent took ~7% of a load thread's busy samples at 800
 * vusers/s (docs/performance.md, "A lighter agent for named ports"): it copies the request's options twice
 * (`{ ...options, ...this.options }` in addRequest and createSocket; ws hands a dictionary-mode object of ~30
 * keys) and net.Socket copies them a third time, then it books every socket by name to find it again on close.
 * A non-keep-alive agent reuses nothing, so this one hands net.connect the few options it reads and the socket
 * straight to the request, as Node's Agent does with a new connection (`setRequestSocket`): the request's own
 * timeout set on the socket, `Connection: close` sent (`keepAlive` false and no finite `maxSockets`, the test
 * Node's client makes), a socket that arrives after its request was aborted closed (Node's client emits 'free'
 * on it, which Node's Agent answers by destroying a socket it will not reuse), and a connect still in progress when
 * its request is aborted (`abort()`, as `ws` does) abandoned, its port given back. A `destroy()` before the socket
 * comes is bounded by the request's `timeout` when it has one (the connect's own; the cookie request's has).
 * @param {PortPool} pool
 * @param {string} address
 */
function lightHttpAgent(pool, address) {
  return {
    keepAlive: false,
    maxSockets: Infinity,
    protocol: 'http:',
    defaultPort: 80,
    options: {},
    /** @param {import('node:http').ClientRequest & { timeout?: number }} req @param {any} options the request's, Node's copy */
    addRequest(req, options) {
      /** @type {any} */
      const connectOptions = { host: options.host, port: options.port, noDelay: options.noDelay ?? true, timeout: options.timeout };
      for (const key of NET_OPTIONS) if (options[key] !== undefined) connectOptions[key] = options[key];
      let abandon = () => false;
      // Node's Agent gives a request its socket while it connects, so an abort closes the connection at once; this
      // one hands it over once connected (so a taken port can be retried), and abandons the connect on abort:
      // `ws` aborts its upgrade request when Socket.IO's connect timeout fires, and a connect whose SYNs the target
      // drops (accept queue full) would otherwise hold its port and file for Linux's ~2 minutes of SYN retries.
      const onAbort = () => {
        if (abandon()) /** @type {any} */ (req).onSocket(undefined, Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      };
      req.once('abort', onAbort);
      abandon = connectFrom(pool, address, net.connect, connectOptions, (err, socket) => {
        req.removeListener('abort', onAbort);
        if (err || !socket) {
          /** @type {any} */ (req).onSocket(socket, err);
          return;
        }
        socket.on('free', destroyFreeSocket);
        /** @type {any} */ (req).onSocket(socket);
        if (req.timeout !== undefined) socket.setTimeout(req.timeout);
      });
    },
  };
}

module.exports = { ephemeralRange, createPortPool, connectFrom, boundAgent };
