/**
 * A probe of user code (scripts/processor-probe.js, scripts/script-probe.js) in its own short-lived Node process, so
 * the user's code never runs in the orchestrator. What the probe answers comes in a file of its own; this says only
 * whether it finished, and why not.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InterruptedBeforeStart } from './errors';

/**
 * How long a probe may take: loading a processor or a script that builds something at its top level (a lookup table,
 * a dataset read) is valid and plain `artillery run` waits for it, so only what outlasts half of the local generators'
 * 120-s ready deadline — by which every load process must have loaded it too — is refused as code that hangs (it was
 * 15 s, which refused a processor plain Artillery runs).
 */
export const PROBE_TIMEOUT_MS = 60_000;

/**
 * Runs `node <probe> ...args` in `cwd` and waits for it: undefined when it exited 0, else the error line its stderr
 * names (or that it did not finish in time). Killed with SIGKILL at the deadline (user code may trap SIGTERM); its
 * stderr goes to a file in `dir`, not a pipe (a process the user's code starts in the background inherits a pipe, and
 * the wait would last until that process ended). A Ctrl-C that reached it too is an interrupt.
 */
export function runProbe(probe: string, args: readonly string[], cwd: string, dir: string, timeoutMs = PROBE_TIMEOUT_MS): string | undefined {
  const errFile = path.join(dir, 'stderr.txt');
  const fd = fs.openSync(errFile, 'w');
  try {
    execFileSync(process.execPath, [probe, ...args], { cwd, timeout: timeoutMs, killSignal: 'SIGKILL', stdio: ['ignore', 'ignore', fd] });
    return undefined;
  } catch (err) {
    const e = err as { signal?: string; code?: string; message: string };
    // Not our timeout: the probe was killed by the same Ctrl-C (or SIGTERM to the process group) as this process.
    if ((e.signal === 'SIGINT' || e.signal === 'SIGTERM') && e.code !== 'ETIMEDOUT') throw new InterruptedBeforeStart();
    if (e.code === 'ETIMEDOUT') return `did not finish loading within ${timeoutMs / 1000} s (every load process loads it too, before the run's ready deadline): code at its top level that waits or loops; move it into a step or a hook`;
    if (e.signal) return `was killed by ${e.signal} while loading`;
    const lines = fs.readFileSync(errFile, 'utf8').split('\n').map((l) => l.trim());
    return lines.find((l) => /^\w*Error\b|^Error[:[ ]/.test(l)) ?? lines.find(Boolean) ?? 'failed to load';
  } finally {
    fs.closeSync(fd);
  }
}
