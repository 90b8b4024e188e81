/**
 * The local fleet (edge adapter): one agent process per generator on this machine, each reading its
 * slice from the run folder. The AWS fleet implements the same interface with SSM Run Command.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Fleet } from '../../contracts';
import { stopChild } from './target';

/** Options of the local fleet. */
export interface LocalFleetOptions {
  readonly agentScript: string;
  /** The run folder (the run store's location). */
  readonly runDir: string;
  /** Tags every process of the run (RIG_RUN_ID in its environment), so none can hide afterwards. */
  readonly runId: string;
}

/**
 * How long a stopping agent gets: its load processes flush their period in progress (up to 12 s, see
 * agent.js) and it ships them to the store before exiting.
 */
const AGENT_STOP_GRACE_MS = 20_000;

/** A fleet of local agent processes. */
export function localFleet(opts: LocalFleetOptions): Fleet {
  const agents = new Map<string, { child: ChildProcess; exit?: number | null; end?: { code?: number; signal?: string } }>();
  // The agents' temporary folders live under one folder of the run, removed when the fleet stops:
  // even an agent killed with SIGKILL leaves nothing behind.
  let workRoot: string | undefined;
  return {
    async launch(ids, secrets = {}) {
      workRoot ??= fs.mkdtempSync(path.join(os.tmpdir(), `rig-${opts.runId}-`));
      for (const id of ids) {
        const logDir = path.join(opts.runDir, 'generators', id);
        fs.mkdirSync(logDir, { recursive: true });
        const log = fs.openSync(path.join(logDir, 'agent.log'), 'a');
        const child = spawn(process.execPath, [opts.agentScript, '--store', opts.runDir, '--generator', id, '--workdir', workRoot], {
          stdio: ['ignore', log, log],
          env: { ...process.env, RIG_RUN_ID: opts.runId, ...(secrets.targetUrl ? { RIG_TARGET_URL: secrets.targetUrl } : {}) },
        });
        fs.closeSync(log);
        const entry: { child: ChildProcess; exit?: number | null; end?: { code?: number; signal?: string } } = { child };
        child.on('exit', (code, signal) => {
          entry.exit = code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : null);
          entry.end = signal ? { signal } : { code: code ?? undefined };
        });
        agents.set(id, entry);
      }
    },
    status() {
      return new Map([...agents].map(([id, a]) => [id, a.exit]));
    },
    exitReason(id) {
      return agents.get(id)?.end;
    },
    async stop() {
      await Promise.all([...agents.values()].map((a) => stopChild(a.child, AGENT_STOP_GRACE_MS)));
      if (workRoot) fs.rmSync(workRoot, { recursive: true, force: true });
    },
  };
}
