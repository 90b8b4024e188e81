import { EventEmitter } from 'node:events';
import * as dns from 'node:dns';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import { Server } from 'socket.io';
import { until } from '../helpers/wait';

import * as sa from '../../load-generators/lib/source-addresses';

const nic = (address: string, internal = false): os.NetworkInterfaceInfo =>
  ({ address, family: 'IPv4', internal, netmask: '255.255.255.0', mac: '00:00:00:00:00:00', cidr: `${address}/24` }) as os.NetworkInterfaceInfo;
const INTERFACES = {
  lo: [nic('127.0.0.1', true)],
  ens5: [nic('10.0.1.5'), nic('10.0.1.77'), nic('10.0.1.78')],
  docker0: [nic('172.17.0.1')],
};
const spec = (target: string, sourceAddress?: string) => ({ ...(sourceAddress ? { sourceAddress } : {}), script: { config: { target } } });

describe('source addresses', () => {
  test('the instance addresses: primary first, no loopback or virtual interfaces; env override', () => {
    expect(sa.privateIPv4Addresses(INTERFACES, {})).toEqual(['10.0.1.5', '10.0.1.77', '10.0.1.78']);
    expect(sa.privateIPv4Addresses(INTERFACES, { RIG_SOURCE_ADDRESSES: '10.0.0.9, 10.0.0.10' })).toEqual(['10.0.0.9', '10.0.0.10']);
  });

  test('processes get their own addresses; more addresses than processes become lists; fewer are shared', () => {
    const two = [spec('http://10.0.2.9'), spec('http://10.0.2.9')];
    expect(sa.assignSourceAddresses(two, ['a', 'b'])).toEqual(['a', 'b']);
    expect(sa.assignSourceAddresses(two, ['a', 'b', 'c', 'd'])).toEqual(['a,c', 'b,d']);
    expect(sa.assignSourceAddresses([...two, ...two], ['a', 'b', 'c'])).toEqual(['a', 'b', 'c', 'a']);
    expect(sa.assignSourceAddresses(two, [])).toEqual(['', '']);
  });

  test('a named address wins the dealing; a loopback target never gets instance addresses', () => {
    expect(sa.assignSourceAddresses([spec('http://10.0.2.9', '127.0.1.10'), spec('http://127.0.0.1:3000')], ['a', 'b'])).toEqual(['127.0.1.10', '']);
  });

  test('a public target keeps the primary address (secondary IPs have no public mapping)', async () => {
    const specs = [spec('http://target.example'), spec('http://target.example')];
    const pub = await sa.sourceAddressesFor(specs, { interfaces: INTERFACES, env: {}, resolve: async () => ['52.1.2.3'] });
    expect(pub).toEqual({ sources: ['', ''], notes: [] });
    const priv = await sa.sourceAddressesFor(specs, { interfaces: INTERFACES, env: {}, resolve: async () => ['10.0.2.9', '10.0.3.9'] });
    expect(priv).toEqual({ sources: ['10.0.1.5,10.0.1.78', '10.0.1.77'], notes: [] });
  });

  test('a dual-stack private target (A and AAAA) keeps the primary address: a socket bound to an IPv4 address cannot reach the IPv6 one', async () => {
    // The OS's resolver as Node calls it: only IPv4 answers when asked for family 4, as the old lookup did.
    const lookup = jest.spyOn(dns.promises, 'lookup').mockImplementation((async (_host: string, opts: dns.LookupAllOptions) =>
      [{ address: '10.0.2.9', family: 4 }, { address: 'fd00:ec2::9', family: 6 }].filter((a) => !opts.family || a.family === opts.family)) as never);
    try {
      expect(await sa.targetIsPrivate('http://internal.example:3000')).toBe(false);
      const specs = [spec('http://internal.example:3000'), spec('http://internal.example:3000')];
      expect(await sa.sourceAddressesFor(specs, { interfaces: INTERFACES, env: {} })).toEqual({ sources: ['', ''], notes: [] });
    } finally {
      lookup.mockRestore();
    }
  });

  // Linux delivers 127/8 over `lo` only, and an IPv4 address cannot be bound by the IPv6 socket an IPv6 target needs:
  test("a user's script (osChoice: Artillery's engines bind no address) keeps the OS's choice and takes no share of the instance's addresses", async () => {
    const specs = [{ ...spec('http://10.0.2.9:3000'), osChoice: true }, spec('http://10.0.2.9:3000'), { ...spec('http://127.0.0.1:3000', '127.0.1.10'), osChoice: true }];
    const r = await sa.sourceAddressesFor(specs, { interfaces: INTERFACES, env: {}, resolve: async () => ['10.0.2.9'] });
    // The one process that binds gets every address (it is the only one they are dealt to).
    expect(r.sources).toEqual(['', '10.0.1.5,10.0.1.77,10.0.1.78', '']);
  });

  // a loopback alias reaches IPv4 loopback and nothing else (every connect fails with EINVAL otherwise).
  test('a loopback alias reaches only targets whose every address is IPv4 loopback', () => {
    expect(sa.aliasReaches(['127.0.0.1'])).toBe(true);
    expect(sa.aliasReaches(['127.0.0.1', '127.0.1.1'])).toBe(true);
    expect(sa.aliasReaches(['10.0.2.9'])).toBe(false);
    expect(sa.aliasReaches(['::1'])).toBe(false);
    expect(sa.aliasReaches(['127.0.0.1', '::1'])).toBe(false);
    expect(sa.aliasReaches([])).toBe(false);
  });

  test("a spec's own alias is kept for an IPv4 loopback target, and dropped (the OS's choice, with one note per target) for any other", async () => {
    const resolve = async (host: string) => ({ 'staging.lan': ['10.0.2.9'], 'both.local': ['127.0.0.1', '::1'], 'v4.local': ['127.0.0.1'] })[host] ?? Promise.reject(new Error('ENOTFOUND'));
    const io = { interfaces: INTERFACES, env: {}, resolve };
    const kept = await sa.sourceAddressesFor([spec('http://127.0.0.1:3000', '127.0.1.10'), spec('http://v4.local:3000', '127.0.1.11')], io);
    expect(kept).toEqual({ sources: ['127.0.1.10', '127.0.1.11'], notes: [] });
    for (const target of ['http://10.0.2.9:3000', 'http://staging.lan', 'http://[::1]:3000', 'http://both.local:3000', 'http://nowhere.invalid']) {
      const r = await sa.sourceAddressesFor([spec(target, '127.0.1.10'), spec(target, '127.0.1.11')], io);
      expect(r.sources).toEqual(['', '']);
      expect(r.notes).toEqual([`note: ${target} is not on this machine's IPv4 loopback (127.0.0.0/8): connections to it leave from the address the OS picks, not from a loopback alias per load process`]);
    }
  });
});

describe('a load process given several source addresses (RIG_SOURCE_ADDRESS="a,b", an AWS generator with spare IPs)', () => {
  let server: import('node:http').Server;
  let url = '';
  const seen: string[] = [];
  const saved = process.env.RIG_SOURCE_ADDRESS;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push(String(req.socket.remoteAddress));
      if (req.url === '/set-cookie') res.setHeader('set-cookie', 'sid=abc; Path=/');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ now: Date.now() }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
    process.env.RIG_SOURCE_ADDRESS = '127.0.3.1, 127.0.3.2';
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.RIG_SOURCE_ADDRESS;
    else process.env.RIG_SOURCE_ADDRESS = saved;
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => void seen.splice(0));

  test('each vuser of the connect flow leaves from the next address of the list', async () => {
    let connect: typeof import('../../load-generators/processors/connect') | undefined;
    jest.isolateModules(() => {
      // A fresh module per test (it reads RIG_SOURCE_ADDRESS when loaded): isolateModules works through require.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      connect = require('../../load-generators/processors/connect');
    });
    for (let i = 0; i < 4; i++) await connect!.fetchCookie({ vars: { target: url } }, new EventEmitter());
    expect(seen).toEqual(['127.0.3.1', '127.0.3.2', '127.0.3.1', '127.0.3.2']);
  });

  test('the vusers\' Socket.IO connections leave from the addresses too, on ports the process names', async () => {
    const web = http.createServer();
    const ioServer = new Server(web, { transports: ['websocket'] });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    try {
      const handshakes: string[] = [];
      ioServer.on('connection', (sock) => void handshakes.push(`${sock.handshake.address}`));
      const ioUrl = `http://127.0.0.1:${(web.address() as import('node:net').AddressInfo).port}`;
      let connect: typeof import('../../load-generators/processors/connect') | undefined;
      jest.isolateModules(() => {
        // A fresh module per test (it reads RIG_SOURCE_ADDRESS when loaded): isolateModules works through require.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        connect = require('../../load-generators/processors/connect');
      });
        const contexts = [{ vars: { target: ioUrl, cookie: 'sid=abc' } }, { vars: { target: ioUrl, cookie: 'sid=abc' } }];
      for (const c of contexts) await connect!.openSocket(c, new EventEmitter());
      expect(handshakes).toEqual(['127.0.3.1', '127.0.3.2']);
      // On ports the process named (no bind-time port search in the kernel), each held until its socket closes.
      expect([connect!.boundPorts.held('127.0.3.1'), connect!.boundPorts.held('127.0.3.2')]).toEqual([1, 1]);
      for (const c of contexts) await connect!.closeSocket(c, new EventEmitter());
      await until(() => connect!.boundPorts.held('127.0.3.1') + connect!.boundPorts.held('127.0.3.2') === 0, { pollMs: 0, what: 'both addresses released' });
    } finally {
      await new Promise((resolve) => ioServer.close(resolve));
    }
  });

  test('clock samples and publisher requests leave from the first address, not from the whole list', async () => {
    let clock: typeof import('../../load-generators/processors/clock') | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      clock = require('../../load-generators/processors/clock');
    });
    const res = await clock!.requestJson('GET', `${url}/time`);
    expect(res.status).toBe(200);
    expect(typeof res.body.now).toBe('number');
    expect(seen).toEqual(['127.0.3.1']);
  });
});

describe("a failed Socket.IO connect names its network error: the target's or the generator's own", () => {
  const saved = process.env.RIG_SOURCE_ADDRESS;
  afterAll(() => {
    if (saved === undefined) delete process.env.RIG_SOURCE_ADDRESS;
    else process.env.RIG_SOURCE_ADDRESS = saved;
  });
  const counters = async (source: string, target: string) => {
    process.env.RIG_SOURCE_ADDRESS = source;
    let connect: typeof import('../../load-generators/processors/connect') | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      connect = require('../../load-generators/processors/connect');
    });
    const events = new EventEmitter();
    const seen: string[] = [];
    events.on('counter', (name: string) => void seen.push(name));
    await expect(connect!.openSocket({ vars: { target } }, events)).rejects.toMatchObject({ code: 'WS_CONNECT_FAILED' });
    return seen;
  };

  test('a closed port on loopback: ECONNREFUSED (the target side)', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await counters('', `http://127.0.0.1:${port}`)).toEqual(['ws.connect_failed', 'ws.connect_failed_reason.ECONNREFUSED']);
  });

  test('a source address this machine does not have (TEST-NET-1): EADDRNOTAVAIL, refused by the kernel before any packet', async () => {
    expect(await counters('192.0.2.1', 'http://127.0.0.1:9')).toEqual(['ws.connect_failed', 'ws.connect_failed_reason.EADDRNOTAVAIL']);
  });
});
