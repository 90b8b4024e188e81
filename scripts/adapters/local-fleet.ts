/**
 * The local fleet (edge adapter): one agent process per generator on this machine, each reading its
 * slice from the run folder. The AWS fleet implements the same interface with SSM Run Command.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stopChild } from './local-target';

/** Launches and stops the generators' agents. */
export interface Fleet {
  /** Starts one agent per generator id; the slices are already in the store. */
  launch(generatorIds: readonly string[]): Promise<void>;
  /** Exit codes of the agents that ended (undefined while running). */
  status(): ReadonlyMap<string, number | null | undefined>;
  /** Stops every agent still running (they stop their load processes). Idempotent. */
  stop(): Promise<void>;
}

/** Options of the local fleet. */
export interface LocalFleetOptions {
  readonly agentScript: string;
  /** The run folder (the run store's location). */
  readonly runDir: string;
  /** Tags every process of the run (RIG_RUN_ID in its environment), so none can hide afterwards. */
  readonly runId: string;
}

/** A fleet of local agent processes. */
export function localFleet(opts: LocalFleetOptions): Fleet {
  const agents = new Map<string, { child: ChildProcess; exit?: number | null }>();
  return {
    async launch(ids) {
      for (const id of ids) {
        const logDir = path.join(opts.runDir, 'generators', id);
        fs.mkdirSync(logDir, { recursive: true });
        const log = fs.openSync(path.join(logDir, 'agent.log'), 'a');
        const child = spawn(process.execPath, [opts.agentScript, '--store', opts.runDir, '--generator', id], {
          stdio: ['ignore', log, log],
          env: { ...process.env, RIG_RUN_ID: opts.runId },
        });
        fs.closeSync(log);
        const entry: { child: ChildProcess; exit?: number | null } = { child };
        child.on('exit', (code, signal) => {
          entry.exit = code ?? (signal ? 128 : null);
        });
        agents.set(id, entry);
      }
    },
    status() {
      return new Map([...agents].map(([id, a]) => [id, a.exit]));
    },
    async stop() {
      await Promise.all([...agents.values()].map((a) => stopChild(a.child, 8000)));
    },
  };
}
