import { spawn, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import { io as ioc, Socket } from 'socket.io-client';

export const SERVER = path.join(__dirname, '..', '..', 'target-stack', 'app', 'server.js');

export interface Listening {
  event: 'listening';
  port: number;
  host: string;
  workers: number;
  pid: number;
}

export interface Target {
  proc: ChildProcess;
  listening: Listening;
  base: string;
  /** unique value of TARGET_TEST_TAG in the target's environment (inherited by its workers) */
  tag: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop: () => Promise<void>;
}

export interface Spawned {
  proc: ChildProcess;
  tag: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawn the target without waiting for anything. */
export function spawnTarget(env: Record<string, string>, args: readonly string[] = []): Spawned {
  const tag = crypto.randomUUID();
  const proc = spawn(process.execPath, [SERVER, ...args], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...env, TARGET_TEST_TAG: tag },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('exit', (code, signal) => {
      if (process.env.TARGET_TEST_LOG) fs.appendFileSync(process.env.TARGET_TEST_LOG, `--- ${code} ${signal}\n${err}`);
      resolve({ code, signal });
    }),
  );
  return { proc, tag, stdout: () => out, stderr: () => err, exited };
}

/** Spawn the target and resolve once the primary printed its listening line. */
export async function startTarget(env: Record<string, string> = {}): Promise<Target> {
  const s = spawnTarget(env);
  const listening = await new Promise<Listening>((resolve, reject) => {
    const onData = () => {
      const nl = s.stdout().indexOf('\n');
      if (nl >= 0) {
        s.proc.stdout!.off('data', onData);
        try {
          resolve(JSON.parse(s.stdout().slice(0, nl)) as Listening);
        } catch (e) {
          reject(e);
        }
      }
    };
    s.proc.stdout!.on('data', onData);
    void s.exited.then(({ code }) => reject(new Error(`target exited (${code}) before listening: ${s.stderr()}`)));
  });
  const stop = async () => {
    if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill('SIGTERM');
    await s.exited;
  };
  return { ...s, listening, base: `http://127.0.0.1:${listening.port}`, stop };
}

export async function getJson<T = any>(url: string): Promise<{ status: number; body: T; headers: Headers }> {
  // A request that never answers is an error, not a hung test (e.g. a pooled connection to a killed worker).
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

export async function metrics(t: Target): Promise<any> {
  return (await getJson(`${t.base}/metrics`)).body;
}

/** A connected websocket-only client holding a (fabricated) sid cookie. */
export function connect(t: Target, opts: Record<string, unknown> = {}): Promise<Socket> {
  const socket = ioc(t.base, {
    transports: ['websocket'],
    extraHeaders: { cookie: `sid=${crypto.randomBytes(8).toString('hex')}` },
    reconnection: false,
    forceNew: true,
    ...opts,
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error('connect: no answer within 10 s'));
    }, 10_000);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('connect_error', (err) => {
      clearTimeout(timer);
      socket.close();
      reject(err);
    });
  });
}

export function subscribe(socket: Socket, room: string): Promise<any> {
  return socket.timeout(5000).emitWithAck('subscribe', room);
}

/** Resolves with the next `event` on socket whose first argument satisfies pred. */
export function next<T = any>(socket: Socket, event: string, pred: (v: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve) => {
    const h = (v: T) => {
      if (pred(v)) {
        socket.off(event, h);
        resolve(v);
      }
    };
    socket.on(event, h);
  });
}

/**
 * Connect clients until every one of the target's workers holds at least `perWorker` of them (the kernel spreads
 * connections over the workers' SO_REUSEPORT sockets by address hash, so this takes a handful).
 */
export async function connectAcrossWorkers(t: Target, perWorker = 1, max = 60): Promise<Socket[]> {
  const sockets: Socket[] = [];
  for (;;) {
    sockets.push(await connect(t));
    if (sockets.length >= t.listening.workers * perWorker) {
      const m = await metrics(t);
      if ((m.perWorker as Array<{ connections: number }>).every((w) => w.connections >= perWorker)) return sockets;
    }
    if (sockets.length >= max) throw new Error(`could not spread ${max} clients over the workers`);
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of live processes whose environment holds TARGET_TEST_TAG=tag (the primary and its workers). */
export function pidsWithTag(tag: string): number[] {
  const needle = `TARGET_TEST_TAG=${tag}`;
  const pids: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const env = fs.readFileSync(`/proc/${d}/environ`, 'latin1');
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'latin1');
      if (env.split('\0').includes(needle) && !/\) Z /.test(stat)) pids.push(Number(d));
    } catch {
      // gone, or not ours
    }
  }
  return pids;
}

export function closeAll(sockets: Socket[]): void {
  for (const s of sockets) s.close();
}
