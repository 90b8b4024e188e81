/**
 * Connections from a source address on named ports (load-generators/lib/bound-ports.js): the port pool,
 * and real loopback connections through it — the port the server sees, release on close, a taken port skipped.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

import * as bp from '../../load-generators/lib/bound-ports';

/** A free loopback port range of `n` ports (bound, then released). */
async function freePorts(n: number): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 10_000);
    const ok = await Promise.all(
      Array.from({ length: n }, (_, i) => new Promise<boolean>((resolve) => {
        const s = net.createServer().once('error', () => resolve(false)).listen(base + i, '127.0.3.9', () => s.close(() => resolve(true)));
      })),
    );
    if (ok.every(Boolean)) return base;
  }
}

/** Resolves once `ok()` holds, checked every event-loop turn (jest's own timeout bounds it). */
async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((resolve) => setImmediate(resolve));
}

describe('port pool', () => {
  test('hands out each port once per address, round the range from its start, and again once released', () => {
    const pool = bp.createPortPool({ low: 100, high: 103 }, () => 0.5); // starts at 102
    expect([pool.acquire('a'), pool.acquire('a'), pool.acquire('a')]).toEqual([102, 103, 100]);
    expect(pool.acquire('b')).toBe(102); // every address has its own ports
    pool.release('a', 103);
    expect(pool.acquire('a')).toBe(101);
    expect(pool.acquire('a')).toBe(103); // the released one, next round
    expect(pool.held('a')).toBe(4);
    expect(() => pool.acquire('a')).toThrow(expect.objectContaining({ code: 'EADDRNOTAVAIL', message: expect.stringMatching(/every port of 100-103 on a/) }));
  });

  test('the range comes from ip_local_port_range, or Linux\'s default where it cannot be read', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-ports-'));
    fs.writeFileSync(path.join(dir, 'range'), '1024\t65535\n');
    expect(bp.ephemeralRange(path.join(dir, 'range'))).toEqual({ low: 1024, high: 65535 });
    expect(bp.ephemeralRange(path.join(dir, 'missing'))).toEqual({ low: 32768, high: 60999 });
    fs.rmSync(dir, { recursive: true });
  });
});

describe('connections on named ports (real loopback sockets)', () => {
  let server: net.Server;
  let port = 0;
  const seen: Array<{ address: string; port: number }> = [];
  beforeAll(async () => {
    server = net.createServer((s) => {
      seen.push({ address: String(s.remoteAddress), port: Number(s.remotePort) });
      s.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const connect = (pool: ReturnType<typeof bp.createPortPool>) =>
    new Promise<net.Socket>((resolve, reject) => bp.connectFrom(pool, '127.0.3.9', net.connect, { host: '127.0.0.1', port }, (err, s) => (err ? reject(err) : resolve(s!))));

  test('leave from the address on the port the pool named; the port is free again once the socket closes', async () => {
    const low = await freePorts(2);
    const pool = bp.createPortPool({ low, high: low + 1 }, () => 0);
    const s = await connect(pool);
    expect(s.localAddress).toBe('127.0.3.9');
    expect(s.localPort).toBe(low);
    await new Promise<void>((resolve) => {
      const check = () => (seen.some((x) => x.port === low) ? resolve() : setImmediate(check));
      check();
    });
    expect(seen.find((x) => x.port === low)?.address).toBe('127.0.3.9');
    expect(pool.held('127.0.3.9')).toBe(1);
    await new Promise((resolve) => s.once('close', resolve).destroy());
    expect(pool.held('127.0.3.9')).toBe(0);
  });

  test('a port another socket holds is skipped for the next one', async () => {
    const low = await freePorts(2);
    const squatter = net.createServer().listen(low, '127.0.3.9'); // listening: bind() there fails with EADDRINUSE
    await new Promise((resolve) => squatter.once('listening', resolve));
    const pool = bp.createPortPool({ low, high: low + 1 }, () => 0);
    const s = await connect(pool);
    expect(s.localPort).toBe(low + 1);
    expect(pool.held('127.0.3.9')).toBe(1); // the refused port went back
    s.destroy();
    await new Promise((resolve) => squatter.close(resolve));
  });

  test('with every port of the range taken elsewhere, the error is the caller\'s after a bounded number of tries', async () => {
    const low = await freePorts(1);
    const squatter = net.createServer().listen(low, '127.0.3.9');
    await new Promise((resolve) => squatter.once('listening', resolve));
    const pool = bp.createPortPool({ low, high: low }, () => 0);
    await expect(connect(pool)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(pool.held('127.0.3.9')).toBe(0);
    await new Promise((resolve) => squatter.close(resolve));
  });

  test('an HTTP request through the bound agent leaves from the address, one connection per request, closed after it', async () => {
    const closed: number[] = [];
    const web = http.createServer((req, res) => {
      req.socket.once('close', () => closed.push(Number(req.socket.remotePort)));
      res.end(`${req.socket.remoteAddress} ${req.socket.remotePort} ${req.headers.connection}`);
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(web.address() as net.AddressInfo).port}/`;
    const low = await freePorts(4);
    const pool = bp.createPortPool({ low, high: low + 3 }, () => 0);
    const agent = bp.boundAgent(pool, '127.0.3.9', false);
    const get = () =>
      new Promise<string>((resolve, reject) => {
        http.get(url, { agent }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d)).on('end', () => resolve(body));
        }).on('error', reject);
      });
    // No keep-alive (a separate user's connection each time): the request says `Connection: close`, as through Node's
    // Agent({ keepAlive: false }), the next request takes a new connection on the next port, and each is closed.
    expect(await get()).toBe(`127.0.3.9 ${low} close`);
    expect(await get()).toBe(`127.0.3.9 ${low + 1} close`);
    await until(() => pool.held('127.0.3.9') === 0 && closed.length === 2);
    expect(closed.sort()).toEqual([low, low + 1]);
    await new Promise((resolve) => web.close(resolve));
  }, 10_000);

  test('an HTTP request through the bound agent gets its own timeout on its socket, as through Node\'s Agent', async () => {
    const web = http.createServer(() => undefined); // never answers
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    try {
      const low = await freePorts(2);
      const pool = bp.createPortPool({ low, high: low + 1 }, () => 0);
      const req = http.get(`http://127.0.0.1:${(web.address() as net.AddressInfo).port}/`, { agent: bp.boundAgent(pool, '127.0.3.9', false), timeout: 200 });
      req.on('error', () => undefined);
      await new Promise<void>((resolve) => req.once('timeout', () => resolve()));
      req.destroy();
      await until(() => pool.held('127.0.3.9') === 0);
    } finally {
      web.closeAllConnections();
      await new Promise((resolve) => web.close(resolve));
    }
  }, 10_000);

  test('a request aborted before its connection is made leaves no connection open', async () => {
    const opened: net.Socket[] = [];
    const server2 = net.createServer((s) => opened.push(s.on('error', () => undefined)));
    await new Promise<void>((resolve) => server2.listen(0, '127.0.0.1', resolve));
    try {
      const low = await freePorts(2);
      const pool = bp.createPortPool({ low, high: low + 1 }, () => 0);
      const req = http.get(`http://127.0.0.1:${(server2.address() as net.AddressInfo).port}/`, { agent: bp.boundAgent(pool, '127.0.3.9', false) });
      req.on('error', () => undefined);
      req.destroy(); // before connect: the socket that arrives after is nobody's (Node's client emits 'free' on it)
      await until(() => opened.length === 1);
      await until(() => opened[0]!.destroyed || opened[0]!.readableEnded);
      await until(() => pool.held('127.0.3.9') === 0);
    } finally {
      for (const s of opened) s.destroy();
      await new Promise((resolve) => server2.close(resolve));
    }
  }, 10_000);

  test('a request aborted while its connection is still being made (SYNs dropped) gets its error and its port back at once, as through Node\'s Agent', async () => {
    // A listener that never accepts, its accept queue full (backlog 0 holds one): Linux drops the next SYNs, so a connect
    // stays in progress (retried for ~2 minutes). Node's net server always accepts, hence Python.
    const py = spawn('python3', ['-c', 'import socket,sys,time\ns=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(0)\nprint(s.getsockname()[1], flush=True)\ntime.sleep(60)']);
    const fillers: net.Socket[] = [];
    try {
      const listening = Number(String(await new Promise<Buffer>((resolve, reject) => {
        py.stdout.once('data', resolve);
        py.once('error', (e) => reject(new Error(`this test needs python3 (a listener that never accepts): ${e.message}`)));
      })).trim());
      const filler = net.connect(listening, '127.0.0.1').on('error', () => undefined);
      fillers.push(filler);
      await new Promise((resolve) => filler.once('connect', resolve)); // the queue's one place is taken
      const low = await freePorts(2);
      const pool = bp.createPortPool({ low, high: low + 1 }, () => 0);
      const req = http.get({ host: '127.0.0.1', port: listening, path: '/', agent: bp.boundAgent(pool, '127.0.3.9', false) });
      const failed = new Promise<NodeJS.ErrnoException>((resolve) => req.once('error', resolve));
      const closed = new Promise((resolve) => req.once('close', resolve));
      await until(() => pool.held('127.0.3.9') === 1); // connecting from its named port
      expect(req.socket).toBeFalsy();
      req.abort(); // what ws does to its upgrade request when Socket.IO's connect timeout fires
      expect((await failed).code).toBe('ECONNRESET');
      await closed;
      expect(pool.held('127.0.3.9')).toBe(0);
    } finally {
      for (const s of fillers) s.destroy();
      py.kill();
    }
  }, 10_000);

  test('an HTTPS request through the bound agent leaves from the address after the TLS handshake', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-tls-'));
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
    const web = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => res.end(`${req.socket.remoteAddress} ${req.socket.remotePort}`));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    try {
      const low = await freePorts(2);
      const agent = bp.boundAgent(bp.createPortPool({ low, high: low + 1 }, () => 0), '127.0.3.9', true);
      const body = await new Promise<string>((resolve, reject) => {
        https.get(`https://127.0.0.1:${(web.address() as net.AddressInfo).port}/`, { agent, ca: fs.readFileSync(cert), checkServerIdentity: () => undefined }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d)).on('end', () => resolve(text));
        }).on('error', reject);
      });
      expect(body).toBe(`127.0.3.9 ${low}`);
    } finally {
      await new Promise((resolve) => web.close(resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('a held connection keeps only its port (a closure keeps its whole scope)', () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    let upgrades: http.Server;
    let url = '';
    const held: net.Socket[] = [];
    beforeAll(async () => {
      upgrades = http.createServer().on('upgrade', (_req, socket: net.Socket) => {
        held.push(socket);
        socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n');
      });
      await new Promise<void>((resolve) => upgrades.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(upgrades.address() as net.AddressInfo).port}/`;
    });
    afterAll(async () => {
      for (const s of held) s.destroy();
      await new Promise((resolve) => upgrades.close(resolve));
    });

    /** An upgraded connection (as ws makes for Socket.IO) through the bound agent; only a weak reference to its request is kept. */
    const upgrade = (agent: http.Agent, timeout?: number) =>
      new Promise<{ socket: net.Socket; request: WeakRef<http.ClientRequest> }>((resolve, reject) => {
        const req = http.request(url, { agent, headers: { Connection: 'Upgrade', Upgrade: 'test' }, ...(timeout ? { timeout } : {}) });
        const request = new WeakRef(req);
        req.on('upgrade', (_res, socket: net.Socket) => resolve({ socket, request })).on('error', reject).end();
      });

    test.each([
      ['without a connect timeout', undefined],
      ['with a connect timeout', 5_000],
    ])('%s: the upgrade request is collectable while the socket is held, and the port still goes back on close', async (_name, timeout) => {
      const low = await freePorts(2);
      const pool = bp.createPortPool({ low, high: low + 1 }, () => 0);
      const { socket, request } = await upgrade(bp.boundAgent(pool, '127.0.3.9', false), timeout);
      expect(socket.localPort).toBe(low);
      await new Promise((resolve) => setImmediate(resolve)); // a WeakRef's target lives to the end of the job that made it
      gc();
      // Before: the port's close listener shared the connect attempt's scope, which held the agent's callback and
      // through it the request (and the response, ws's extension offer…) for the socket's life: ~3.9 KB per held vuser.
      expect(request.deref()).toBeUndefined();
      expect(pool.held('127.0.3.9')).toBe(1);
      await new Promise((resolve) => socket.once('close', resolve).destroy());
      expect(pool.held('127.0.3.9')).toBe(0);
    });
  });
});
