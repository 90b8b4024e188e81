/**
 * The local reference target (edge adapter): starts target-stack/app as child processes for a run,
 * waits for its one "listening" line, and always stops it.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { isIPv6 } from 'node:net';
import * as path from 'node:path';
import type { TargetHandle } from '../../contracts';
import { RigError, UsageError } from '../../errors';

/** Options for the local reference target. */
export interface LocalTargetOptions {
  readonly appDir: string;
  readonly port: number;
  readonly workers: number;
  /** Extra environment (fault injection, e.g. FAULT_COOKIE_503_FRACTION; RIG_RUN_ID tags the processes). */
  readonly env?: Readonly<Record<string, string>>;
  readonly startTimeoutMs?: number;
  /** The address it listens on; default 127.0.0.1 (`::` also takes IPv6 loopback, named [::1] in the URL). */
  readonly host?: string;
}

/** Starts the reference target on 127.0.0.1 (or `host`); rejects with a UsageError when the port is taken. */
export function startLocalTarget(opts: LocalTargetOptions): Promise<TargetHandle> {
  const child = spawn(process.execPath, [path.join(opts.appDir, 'server.js')], {
    // EXIT_WITH_PARENT: the target stops itself if this process dies without stopping it.
    env: { ...process.env, ...opts.env, PORT: String(opts.port), HOST: opts.host ?? '127.0.0.1', WORKERS: String(opts.workers), EXIT_WITH_PARENT: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => {
      void stopChild(child);
      reject(new RigError(`the local target did not start within ${(opts.startTimeoutMs ?? 30000) / 1000} s: ${lastLine(stderr)}`));
    }, opts.startTimeoutMs ?? 30000);
    child.stdout?.on('data', (d: Buffer) => {
      buffered += d.toString();
      const line = buffered.split('\n').find((l) => l.includes('"listening"'));
      if (!line) return;
      clearTimeout(timer);
      const info = JSON.parse(line) as { port: number };
      resolve({ url: `http://${urlHost(opts.host ?? '127.0.0.1')}:${info.port}`, pid: child.pid, stop: () => stopChild(child) });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      // The target app names its own setting (PORT, for `npm start`); started by the rig, the port is --target-port.
      if (code === 2) reject(new UsageError(lastLine(stderr).replace('pass another PORT', 'pass another --target-port (or none, for any free port)') || `the local target's port ${opts.port} is unavailable; pick another with --target-port`));
      else reject(new RigError(`the local target exited with code ${code} before listening: ${lastLine(stderr)}`));
    });
  });
}

/** The listening address as a URL names it: IPv6 in brackets, the unspecified `::` as its loopback. */
function urlHost(host: string): string {
  if (!isIPv6(host)) return host;
  return `[${host === '::' ? '::1' : host}]`;
}

function lastLine(text: string): string {
  return text.trim().split('\n').filter(Boolean).pop()?.replace(/^target:\s*/, '') ?? '';
}

/** SIGTERM, then SIGKILL after 5 s; resolves once the process is gone. Idempotent. */
export function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
