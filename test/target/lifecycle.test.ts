import * as fs from 'node:fs';
import * as net from 'node:net';
import { Socket } from 'socket.io-client';
import { until } from '../helpers/wait';
import { startTarget, spawnTarget, metrics, connectAcrossWorkers, alive, pidsWithTag, closeAll, Target } from './helpers';

const started: Target[] = [];
afterAll(async () => {
  for (const t of started) {
    if (t.proc.exitCode === null && t.proc.signalCode === null) t.proc.kill('SIGKILL');
    for (const pid of pidsWithTag(t.tag)) process.kill(pid, 'SIGKILL');
  }
});

test('PORT=0: the primary prints exactly one listening line; all workers share that one port', async () => {
  const t = await startTarget({ WORKERS: '2' });
  started.push(t);
  expect(t.stdout()).toMatch(/^\{"event":"listening","port":\d+,"host":"127\.0\.0\.1","workers":2,"pid":\d+\}\n$/);
  expect(t.listening).toEqual({ event: 'listening', port: expect.any(Number), host: '127.0.0.1', workers: 2, pid: t.proc.pid });
  expect(t.listening.port).toBeGreaterThan(0);
  const sockets: Socket[] = await connectAcrossWorkers(t, 1);
  const m = await metrics(t);
  expect(m.perWorker.map((w: any) => w.connections > 0)).toEqual([true, true]);
  closeAll(sockets);
  await t.stop();
  expect(t.stdout().split('\n').filter((l) => l !== '')).toHaveLength(1);
});

/** Pids holding a listening TCP socket on `port` (from /proc/net/tcp inodes and each pid's fds). */
function listenerPids(port: number, candidates: number[]): number[] {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set(
    fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)
      .map((l) => l.trim().split(/\s+/))
      .filter((c) => c[1]?.endsWith(hexPort) && c[3] === '0A')
      .map((c) => c[9]),
  );
  return candidates.filter((pid) => {
    try {
      return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        return m !== null && inodes.has(m[1]);
      });
    } catch {
      return false;
    }
  });
}

test('each worker accepts on its own SO_REUSEPORT socket: the primary holds no listener, a replacement joins the same port', async () => {
  const t = await startTarget({ WORKERS: '2' });
  started.push(t);
  const workerPids: number[] = (await metrics(t)).perWorker.map((w: any) => w.pid);
  expect(listenerPids(t.listening.port, [t.listening.pid, ...workerPids]).sort()).toEqual([...workerPids].sort());
  process.kill(workerPids[0]!, 'SIGKILL');
  await until(async () => {
    const m = await metrics(t).catch(() => undefined);
    return m !== undefined && m.workerRestarts === 1 && m.perWorker.length === 2;
  }, { timeoutMs: 15000, what: 'a replacement worker to report' });
  const now: number[] = (await metrics(t)).perWorker.map((w: any) => w.pid);
  expect(now).not.toContain(workerPids[0]);
  expect(listenerPids(t.listening.port, [t.listening.pid, ...now]).sort()).toEqual([...now].sort());
  const sockets = await connectAcrossWorkers(t, 1);
  closeAll(sockets);
  await t.stop();
});

test('SIGTERM: the primary stops every worker and exits 0 within 5 s, leaving no process', async () => {
  const t = await startTarget({ WORKERS: '2' });
  started.push(t);
  const sockets = await connectAcrossWorkers(t, 1);
  const workerPids: number[] = (await metrics(t)).perWorker.map((w: any) => w.pid);
  expect(workerPids).toHaveLength(2);
  expect(pidsWithTag(t.tag).sort()).toEqual([t.listening.pid, ...workerPids].sort());
  const t0 = Date.now();
  t.proc.kill('SIGTERM');
  const { code, signal } = await t.exited;
  expect(Date.now() - t0).toBeLessThan(5000);
  expect({ code, signal }).toEqual({ code: 0, signal: null });
  for (const pid of workerPids) expect(alive(pid)).toBe(false);
  expect(pidsWithTag(t.tag)).toEqual([]);
  closeAll(sockets);
});

test('if the primary dies (SIGKILL), its workers exit instead of lingering as orphans', async () => {
  const t = await startTarget({ WORKERS: '2' });
  started.push(t);
  const workerPids: number[] = (await metrics(t)).perWorker.map((w: any) => w.pid);
  t.proc.kill('SIGKILL');
  await t.exited;
  await until(() => workerPids.every((pid) => !alive(pid)), { timeoutMs: 5000, what: 'orphaned workers to exit' });
  expect(pidsWithTag(t.tag)).toEqual([]);
});

test('port in use: one stderr line naming the port, exit code 2, nothing on stdout, no worker left', async () => {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    const s = spawnTarget({ WORKERS: '2', PORT: String(port) });
    const { code } = await s.exited;
    expect(code).toBe(2);
    expect(s.stdout()).toBe('');
    expect(s.stderr()).toContain(
      `target: port ${port} on 127.0.0.1 is already in use; pass another PORT or stop the other process\n`,
    );
    expect(s.stderr().match(/already in use/g)).toHaveLength(1);
    await until(() => pidsWithTag(s.tag).length === 0, { timeoutMs: 3000, what: 'workers to be gone' });
  } finally {
    await new Promise((r) => blocker.close(r));
  }
});

test('a HOST that does not resolve: one line naming it, exit 2 (was exit 1, "getaddrinfo ENOTFOUND")', async () => {
  const s = spawnTarget({ HOST: 'no-such-host.invalid', PORT: '0' });
  const { code } = await s.exited;
  expect(code).toBe(2);
  expect(s.stderr()).toContain('target: HOST="no-such-host.invalid" does not resolve to an address of this machine; use an address such as 127.0.0.1 or 0.0.0.0\n');
  await until(() => pidsWithTag(s.tag).length === 0, { timeoutMs: 3000, what: 'workers to be gone' });
});

test('a flag (npm run target -- --port 3100) is refused with exit 2 naming the environment variables, not ignored', async () => {
  const s = spawnTarget({}, ['--port', '3100']);
  const { code } = await s.exited;
  expect(code).toBe(2);
  expect(s.stderr()).toBe('target: takes no arguments (got --port 3100); set PORT, HOST, WORKERS in the environment, e.g. PORT=3100 npm run target\n');
  expect(s.stdout()).toBe('');
});

test('invalid env is refused with exit 2 and a message naming the variable', async () => {
  const s = spawnTarget({ WORKERS: 'many' });
  const { code } = await s.exited;
  expect(code).toBe(2);
  expect(s.stderr()).toContain('WORKERS="many" is invalid');
  expect(s.stdout()).toBe('');
});

test('a worker killed mid-run: its sockets drop, a replacement starts, the target keeps serving and counts the restart', async () => {
  const t = await startTarget({ WORKERS: '2' });
  started.push(t);
  const sockets = await connectAcrossWorkers(t, 1);
  const before = (await metrics(t)).perWorker.map((w: any) => w.pid);
  const victim = before[0];
  const dropped = new Promise<void>((resolve) => sockets.forEach((s) => s.once('disconnect', () => resolve())));
  process.kill(victim, 'SIGKILL');
  await dropped;
  await until(async () => {
    // A request may still hit the dying worker's connection: that is "not yet", not a failure.
    const m = await metrics(t).catch(() => undefined);
    return m !== undefined && m.workers === 2 && !m.perWorker.some((w: any) => w.pid === victim);
  }, { timeoutMs: 15000, what: 'a replacement worker to report' });
  const m = await metrics(t);
  expect(m.workerRestarts).toBe(1);
  const fresh = await connectAcrossWorkers(t, 1);
  expect(fresh.every((s) => s.connected)).toBe(true);
  closeAll([...sockets, ...fresh]);
  await t.stop();
});

test('EXIT_WITH_PARENT=1: the target stops itself when the process that started it dies', async () => {
  // A shell parent that starts the target, then is killed: the target must not outlive it.
  const { spawn } = await import('node:child_process');
  const { SERVER } = await import('./helpers');
  const tag = `exit-with-parent-${process.pid}-${Date.now()}`;
  const parent = spawn('/bin/sh', ['-c', `"${process.execPath}" "${SERVER}" & wait`], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', WORKERS: '2', EXIT_WITH_PARENT: '1', TARGET_TEST_TAG: tag },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise<void>((resolve) => parent.stdout?.on('data', (d: Buffer) => d.toString().includes('"listening"') && resolve()));
  expect(pidsWithTag(tag).length).toBeGreaterThanOrEqual(3);
  parent.kill('SIGKILL');
  await until(() => pidsWithTag(tag).length === 0, { timeoutMs: 8000, what: 'the orphaned target to stop' });
});
