import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { until } from '../helpers/wait';

import * as sc from '../../load-generators/lib/socket-counts';

const tmpFile = (name: string, lines: string[]) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sockets-')), name);
  fs.writeFileSync(file, lines.join('\n'));
  return file;
};
const PROC_HEADER = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
const noSs = () => Promise.reject(new Error('spawn ss ENOENT'));

describe('sockets per source address (load processes with addresses of their own)', () => {
  test('ports in use per address from one read of /proc/net/tcp (LISTEN excluded), the fallback where ss cannot run', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tcp-')), 'tcp');
    fs.writeFileSync(file, [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0',
      '   1: 0A01007F:8000 0100007F:0BB8 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0 20 4 30 10 -1',
      '10000: 0A01007F:8001 0100007F:0BB8 06 00000000:00000000 00:00000000 00000000     0        0 3 1 0 20 4 30 10 -1',
      '   3: 0B01007F:8001 0100007F:0BB8 01 00000000:00000000 00:00000000 00000000     0        0 4 1 0 20 4 30 10 -1',
    ].join('\n'));
    const counts = sc.countPortsFromProc(['127.0.1.10', '127.0.1.11', '127.0.0.1'], file);
    expect(Object.fromEntries(counts ?? [])).toEqual({ '127.0.1.10': 2, '127.0.1.11': 1, '127.0.0.1': 0 });
    // Where `ss` cannot run, the agent's count falls back to that file.
    const fallback = await sc.countPortsByAddress(['127.0.1.10', '127.0.1.11'], { ss: () => Promise.reject(new Error('spawn ss ENOENT')), procFile: file });
    expect(Object.fromEntries(fallback ?? [])).toEqual({ '127.0.1.10': 2, '127.0.1.11': 1 });
  });

  test('established connections per address (the sockets that hold a vuser), from ss or the /proc fallback', async () => {
    const ssOut = ['ESTAB 0 0 127.0.1.10:40145 127.0.0.1:3950', 'TIME-WAIT 0 0 127.0.1.10:40146 127.0.0.1:3950', 'ESTAB 0 0 127.0.1.11:40147 127.0.0.1:3950', ''].join('\n');
    const viaSs = await sc.countSocketsByAddress(['127.0.1.10', '127.0.1.11'], { ss: async (_args, onText) => onText(ssOut) });
    expect(Object.fromEntries(viaSs?.ports ?? [])).toEqual({ '127.0.1.10': 2, '127.0.1.11': 1 });
    expect(Object.fromEntries(viaSs?.established ?? [])).toEqual({ '127.0.1.10': 1, '127.0.1.11': 1 });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tcp-')), 'tcp');
    fs.writeFileSync(file, [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   1: 0A01007F:8000 0100007F:0BB8 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0 20 4 30 10 -1',
      '   2: 0A01007F:8001 0100007F:0BB8 06 00000000:00000000 00:00000000 00000000     0        0 3 1 0 20 4 30 10 -1',
    ].join('\n'));
    const viaProc = await sc.countSocketsByAddress(['127.0.1.10'], { ss: () => Promise.reject(new Error('spawn ss ENOENT')), procFile: file });
    expect(Object.fromEntries(viaProc?.established ?? [])).toEqual({ '127.0.1.10': 1 });
    expect(Object.fromEntries(viaProc?.ports ?? [])).toEqual({ '127.0.1.10': 2 });
  });

  test('ss output is counted as it arrives, however it is cut (the agent holds one line, not the whole output)', () => {
    const lines = Array.from({ length: 300 }, (_, i) => `${i % 3 ? 'ESTAB' : 'TIME-WAIT'}    0      0      127.0.1.${10 + (i % 2)}:${40000 + i}      127.0.0.1:3950`);
    const out = `${lines.join('\n')}\n`;
    const whole = sc.ssSocketCounter(['127.0.1.10', '127.0.1.11']);
    whole.feed(out);
    const expected = whole.end();
    expect(Object.fromEntries(expected.ports)).toEqual({ '127.0.1.10': 150, '127.0.1.11': 150 });
    expect(Object.fromEntries(expected.established)).toEqual({ '127.0.1.10': 100, '127.0.1.11': 100 });
    for (const size of [1, 7, 61, 62, 63, 4096]) {
      const c = sc.ssSocketCounter(['127.0.1.10', '127.0.1.11']);
      for (let i = 0; i < out.length; i += size) c.feed(out.slice(i, i + size));
      expect(c.end()).toEqual(expected);
    }
    // The last line without its newline still counts.
    const c = sc.ssSocketCounter(['127.0.1.10']);
    c.feed('ESTAB 0 0 127.0.1.10:1 127.0.0.1:3950\nESTAB 0 0 127.0.1.10:2 127.0.0.1:3950');
    expect(c.end().established.get('127.0.1.10')).toBe(2);
  });

  test('ports in use per address, asked of the kernel for those addresses only (ss, real sockets)', async () => {
    const server = net.createServer((s) => s.on('error', () => undefined));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as import('node:net').AddressInfo).port;
    const from = (localAddress: string) => new Promise<import('node:net').Socket>((resolve) => {
      const s = net.connect({ port, host: '127.0.0.1', localAddress }, () => resolve(s));
    });
    // Addresses of this run only: a closed socket stays in TIME-WAIT for 60 s and still holds its port, so an
    // earlier run's sockets on fixed addresses would be counted here too.
    const net24 = `127.${10 + crypto.randomInt(240)}.${crypto.randomInt(256)}`;
    const [a1, a2, a3] = [`${net24}.1`, `${net24}.2`, `${net24}.3`];
    const sockets = await Promise.all([from(a1), from(a1), from(a1), from(a2)]);
    try {
      const counts = await sc.countPortsByAddress([a1, a2, a3, 'not-an-ip']);
      expect(Object.fromEntries(counts ?? [])).toEqual({ [a1]: 3, [a2]: 1, [a3]: 0, 'not-an-ip': 0 });
      expect(await sc.countPortsByAddress(['not-an-ip'])).toBeUndefined();
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });});

describe('ports per (source, destination) pair (load processes on the address the OS picks)', () => {
  test("a target's destination port: its own, or its scheme's default; none for a template or another scheme", () => {
    expect(sc.destinationPort('http://staging.lan:3000/app')).toBe(3000);
    expect(sc.destinationPort('https://example.test')).toBe(443);
    expect(sc.destinationPort('wss://example.test:8443')).toBe(8443);
    expect(sc.destinationPort('ws://[::1]')).toBe(80);
    expect(sc.destinationPort('http://example.test')).toBe(80);
    expect(sc.destinationPort('{{ $env.MY_TARGET }}')).toBeUndefined();
    expect(sc.destinationPort('ftp://example.test')).toBeUndefined();
    expect(sc.destinationPort(undefined)).toBeUndefined();
  });

  test('tcp_tw_reuse: 1 reuses every TIME-WAIT for a new connect, 2 (Linux default) only with a loopback end, 0 none', () => {
    expect([1, 2, 0].map((r) => [sc.timeWaitReused(r, true), sc.timeWaitReused(r, false)])).toEqual([[true, true], [true, false], [false, false]]);
  });

  const SS_OUT = [
    'ESTAB      0 0 10.0.1.5:40001   10.0.2.9:3000',
    'ESTAB      0 0 10.0.1.5:40002   10.0.2.9:3000',
    'TIME-WAIT  0 0 10.0.1.5:40003   10.0.2.9:3000',
    'ESTAB      0 0 10.0.1.5:40001   10.0.2.10:3000',
    'ESTAB      0 0 127.0.0.1:40004  127.0.0.1:3000',
    'TIME-WAIT  0 0 127.0.0.1:40005  127.0.0.1:3000',
    'ESTAB      0 0 [::1]:40006      [::1]:3000',
    'SYN-SENT   0 0 [fe80::1%eth0]:40007 [fe80::2]:3000',
    '',
  ].join('\n');

  test('ss lines counted per pair as they arrive, however cut; TIME-WAIT only where the kernel would not reuse it', () => {
    const count = (reuse: number, size: number) => {
      const c = sc.ssPairCounter(reuse);
      for (let i = 0; i < SS_OUT.length; i += size) c.feed(SS_OUT.slice(i, i + size));
      return Object.fromEntries(c.end());
    };
    const withDefault = {
      '10.0.1.5 → 10.0.2.9:3000': 3, // a private target: its TIME-WAIT holds a port under tcp_tw_reuse 2
      '10.0.1.5 → 10.0.2.10:3000': 1, // the same local port 40001, another destination: another range
      '127.0.0.1 → 127.0.0.1:3000': 1, // loopback: the TIME-WAIT is reused
      '::1 → [::1]:3000': 1,
      'fe80::1 → [fe80::2]:3000': 1,
    };
    for (const size of [1, 5, 37, 4096]) expect(count(2, size)).toEqual(withDefault);
    expect(count(1, 4096)).toEqual({ ...withDefault, '10.0.1.5 → 10.0.2.9:3000': 2 });
    expect(count(0, 4096)).toEqual({ ...withDefault, '127.0.0.1 → 127.0.0.1:3000': 2 });
  });

  test('the busiest pair, asked of ss for the destination ports only; none without a port', async () => {
    const asked: string[][] = [];
    const ss = async (args: string[], onText: (text: string) => void) => {
      asked.push(args);
      onText(SS_OUT);
    };
    const twReuseFile = tmpFile('tcp_tw_reuse', ['2', '']);
    expect(await sc.countPortsByDestination([3000, 3000, 443], { ss, twReuseFile })).toEqual({ busiest: 3, pair: '10.0.1.5 → 10.0.2.9:3000' });
    expect(asked).toEqual([['-Htan', 'state', 'all', 'exclude', 'listening', '(', 'dport', '=', ':3000', 'or', 'dport', '=', ':443', ')']]);
    expect(await sc.countPortsByDestination([], { ss })).toBeUndefined();
    expect(await sc.countPortsByDestination([0, 70000, 1.5], { ss })).toBeUndefined();
    expect(asked).toHaveLength(1);
    // Nothing connected yet: 0, not "unknown".
    expect(await sc.countPortsByDestination([3000], { ss: async () => undefined, twReuseFile })).toEqual({ busiest: 0 });
  });

  test('where ss cannot run: one read of /proc/net/tcp and tcp6, destination port and TIME-WAIT rule alike', async () => {
    const tcp = tmpFile('tcp', [
      PROC_HEADER,
      '   0: 00000000:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0',
      '   1: 0501000A:9C41 0902000A:0BB8 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0 20 4 30 10 -1',
      '   2: 0501000A:9C42 0902000A:0BB8 06 00000000:00000000 00:00000000 00000000     0        0 3 1 0 20 4 30 10 -1',
      '   3: 0501000A:9C43 0902000A:01BB 01 00000000:00000000 00:00000000 00000000     0        0 4 1 0 20 4 30 10 -1',
      '   4: 0100007F:9C44 0100007F:0BB8 06 00000000:00000000 00:00000000 00000000     0        0 5 1 0 20 4 30 10 -1',
      '',
    ]);
    const tcp6 = tmpFile('tcp6', [
      PROC_HEADER,
      '   0: 00000000000000000000000001000000:9C45 00000000000000000000000001000000:0BB8 01 00000000:00000000 00:00000000 00000000     0        0 6 1 0 20 4 30 10 -1',
      '   1: 00000000000000000000000001000000:9C46 00000000000000000000000001000000:0BB8 06 00000000:00000000 00:00000000 00000000     0        0 7 1 0 20 4 30 10 -1',
      '   2: 0000000000000000FFFF00000100007F:9C47 0000000000000000FFFF00000100007F:0BB8 06 00000000:00000000 00:00000000 00000000     0        0 8 1 0 20 4 30 10 -1',
    ]);
    const reuse = (v: string) => tmpFile('tcp_tw_reuse', [v]);
    // Port 3000 (0BB8) only: the private pair's two (one in TIME-WAIT), each loopback pair's one live socket.
    expect(await sc.countPortsByDestination([3000], { ss: noSs, procFiles: [tcp, tcp6], twReuseFile: reuse('2') })).toEqual({ busiest: 2, pair: '0501000A → 0902000A:0BB8' });
    expect(await sc.countPortsByDestination([3000], { ss: noSs, procFiles: [tcp, tcp6], twReuseFile: reuse('1') })).toEqual({ busiest: 1, pair: '0501000A → 0902000A:0BB8' });
    // No reuse: every TIME-WAIT holds its port, the IPv6 loopback pair's too.
    expect(await sc.countPortsByDestination([3000], { ss: noSs, procFiles: [tcp6], twReuseFile: reuse('0') })).toEqual({ busiest: 2, pair: '00000000000000000000000001000000 → 00000000000000000000000001000000:0BB8' });
    expect(await sc.countPortsByDestination([3000], { ss: noSs, procFiles: ['/nonexistent/tcp'] })).toBeUndefined();
  });

  test('real connections from the OS-picked address: the busiest pair counts them, and drops them once closed (loopback TIME-WAIT is reused)', async () => {
    const listen = async () => {
      const server = net.createServer((s) => s.on('error', () => undefined));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { server, port: (server.address() as net.AddressInfo).port };
    };
    const [a, b] = [await listen(), await listen()];
    const connect = (port: number) => new Promise<net.Socket>((resolve) => {
      const s = net.connect({ port, host: '127.0.0.1' }, () => resolve(s));
    });
    const sockets = await Promise.all([connect(a.port), connect(a.port), connect(a.port), connect(a.port), connect(b.port)]);
    const twReuseFile = tmpFile('tcp_tw_reuse', ['2']);
    try {
      // The client ends and the accepted ends of a pair are two pairs (the accepted end's "destination" is an ephemeral port).
      expect(await sc.countPortsByDestination([a.port, b.port], { twReuseFile })).toEqual({ busiest: 4, pair: `127.0.0.1 → 127.0.0.1:${a.port}` });
      expect(await sc.countPortsByDestination([a.port, b.port], { ss: noSs, twReuseFile })).toEqual({ busiest: 4, pair: `0100007F → 0100007F:${a.port.toString(16).toUpperCase().padStart(4, '0')}` });
      expect(await sc.countPortsByDestination([b.port], { twReuseFile })).toEqual({ busiest: 1, pair: `127.0.0.1 → 127.0.0.1:${b.port}` });
    } finally {
      for (const s of sockets) s.destroy();
    }
    await until(async () => (await sc.countPortsByDestination([a.port, b.port], { twReuseFile }))?.busiest === 0, { what: 'closed loopback connections no longer counted' });
    await Promise.all([a, b].map(({ server }) => new Promise((resolve) => server.close(resolve))));
  });
});
