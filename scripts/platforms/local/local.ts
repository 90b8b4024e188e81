/**
 * The local platform: generators are agent processes on this machine, each connecting from its own
 * loopback source addresses; the target is the reference target started for the run (or --target).
 */
import * as path from 'node:path';
import { randomInt } from 'node:crypto';
import { localStore } from '../../../load-generators/lib/run-store';
import { aliasReaches } from '../../../load-generators/lib/source-addresses';
import type { MachineLimits } from '../../adapters/system-limits';
import { targetMetricsSource } from '../../adapters/target-metrics';
import type { TargetHandle } from '../../contracts';
import { localGenerator, localMaxGenerators, usablePorts } from '../../core/capacity-model';
import type { Plan } from '../../core/plan';
import type { RunOptions } from '../../options';
import { POLLING_FIX, preflightHere } from '../../preflight';
import { Platform, RunTimings, cleanupStack } from '../platform';
import { localFleet } from './fleet';
import { checkReachable } from '../../adapters/reachability';
import { startLocalTarget } from './target';

/** Sockets one target worker should hold at most, as a share of its open-file limit. */
const TARGET_WORKER_FILL = 0.8;
/** Fault-injection variables forwarded to the local reference target. */
const TARGET_ENV_KEYS = ['FAULT_DELIVERY_DELAY_MS', 'FAULT_WITHHOLD_FRACTION', 'FAULT_COOKIE_503_FRACTION', 'FAULT_SEED'];
/**
 * Locally the start instant reaches every load thread within one agent poll (50 ms at this lead:
 * agent-control.js polls at a quarter of the lead, at least every 50 ms) and one plugin poll (10 ms) of being
 * written; 150 ms leaves twice that for a busy machine. A later agent starts at once and the lateness shows in
 * the run's start skew. Every millisecond here is start-up a user waits for (issue 17: ≤ 1 s over plain).
 */
const LOCAL_TIMINGS: RunTimings = { readyTimeoutMs: 120_000, startLeadMs: 150 };

/**
 * Loopback source address of the n-th load process of a run whose aliases are in `127.<block>.0.0/16`
 * (127.<block>.1.10 …): each process gets its own port range. Each run draws its own block, so two local runs on
 * one machine (parallel CI jobs) neither count each other's sockets in their health samples nor compete for the
 * same addresses' ports; all of 127.0.0.0/8 is loopback on Linux.
 */
export function loopbackSourceAddress(n: number, block: number): string {
  return `127.${block}.${1 + Math.floor(n / 200)}.${10 + (n % 200)}`;
}

/**
 * Why every connection of a local run leaves from one source address, or undefined when each load process has its
 * own loopback alias: only the built-in scenarios' processors bind one, and an alias reaches 127.0.0.0/8 only.
 * @param target `--target`, or the script's own (undefined: the reference target, on 127.0.0.1)
 */
export function oneSourceAddressWhy(userScript: boolean, target: string | undefined): string | undefined {
  if (userScript) return "your script's connections leave from the address the OS picks (the rig's loopback aliases serve its built-in scenarios)";
  if (target === undefined) return undefined;
  // The agent's rule (aliasReaches), on what is known before the run: an address as written, or `localhost`.
  const host = URL.canParse(target) ? new URL(target).hostname.toLowerCase().replace(/^\[|\]$/g, '') : undefined;
  if (host === undefined || host === 'localhost' || aliasReaches([host])) return undefined;
  return `connections to ${target} leave from the address the OS picks (a loopback alias reaches 127.0.0.0/8 only)`;
}

/** Target worker processes for a peak of concurrent connections: each stays under its open-file limit. */
export function targetWorkersFor(peakConcurrent: number, openFiles: number): number {
  return Math.max(2, Math.ceil(peakConcurrent / (openFiles * TARGET_WORKER_FILL)));
}

/** What the local platform is built from (by the CLI, or a test). */
export interface LocalPlatformProps {
  readonly root: string;
  readonly machine: MachineLimits;
  readonly options: RunOptions;
  readonly env: NodeJS.ProcessEnv;
  readonly log: (line: string) => void;
  /** The run's script is the user's own (its connections come from Artillery's engines, not the rig's processors). */
  readonly userScript?: boolean;
  /**
   * The URLs a user's script connects to when it runs against `options.target` (scripts/engines.ts connectionTargets):
   * a ws `connect` step's own URL instead of the target. @default the target
   */
  readonly connectTargets?: readonly string[];
  /** The script's own `config.target` (a user's script run without --target). */
  readonly scriptTarget?: string;
  /** The run's script starts its Socket.IO clients with HTTP long-polling (scripts/preflight.ts socketIoPolls). */
  readonly socketIoPolls?: boolean;
  /** A scenario of the run's (user) script uses the socketio engine. */
  readonly socketIoScript?: boolean;
  /**
   * Run after the target's preflight, before any generator starts: starts the browser of a script that drives one
   * (scripts/browser.ts assertBrowserStarts), refusing the run when it does not start. @default none
   */
  readonly browserCheck?: (signal?: AbortSignal) => Promise<void>;
  /** The second octet of this run's loopback aliases ({@link loopbackSourceAddress}). @default a random 1–254 */
  readonly aliasBlock?: number;
}

/** Builds the local platform from this machine's limits. */
export function localPlatform(opts: LocalPlatformProps): Platform {
  const { machine, options, log } = opts;
  // One load process per core (Artillery's own runner gives a 2-core machine a single worker thread),
  // each from its own loopback source address; limits from the capacity model and this machine.
  const { limits, arrivalsPerSecond } = localGenerator(machine);
  const processes = limits.processes;
  const aliasBlock = opts.aliasBlock ?? randomInt(1, 255);
  const maxLocal = localMaxGenerators(machine, LOCAL_TIMINGS.readyTimeoutMs);
  const oneAddressWhy = oneSourceAddressWhy(opts.userScript === true, options.target ?? opts.scriptTarget);
  // The built-in connect flow's token, which the preflight sends as a vuser would.
  const authToken = opts.env.RIG_SECRET_AUTH_TOKEN || undefined;

  const prepareTarget = async (plan: Plan, runId: string, signal: AbortSignal | undefined): Promise<TargetHandle> => {
    if (options.target) {
      // A Socket.IO polling handshake is what the built-in scenarios' and a Socket.IO script's clients send anyway;
      // any other script's target only gets a connection.
      // A Ctrl-C aborts the check (the run's signal).
      const how = { http: !opts.userScript || opts.socketIoScript === true, ...(signal ? { signal } : {}) };
      for (const url of opts.connectTargets ?? [options.target]) {
        const trust = options.untrustedCertFix ? { untrustedFix: options.untrustedCertFix } : {};
        await checkReachable(url, undefined, options.insecureTls === true, url === options.target ? { ...how, ...trust } : { ...how, ...trust, namedBy: 'the ws connect step that names it' });
      }
      return { url: options.target, stop: async () => undefined };
    }
    const workers = targetWorkersFor(plan.peakConcurrent, machine.openFiles);
    const env: Record<string, string> = {
      ...Object.fromEntries(TARGET_ENV_KEYS.filter((k) => opts.env[k] !== undefined).map((k) => [k, String(opts.env[k])])),
      RIG_RUN_ID: runId,
    };
    const target = await startLocalTarget({ appDir: path.join(opts.root, 'target-stack', 'app'), port: options.targetPort, workers, env });
    log(`local reference target: ${target.url} (${workers} workers)`);
    if (opts.socketIoPolls && workers > 1) {
      // docs/target.md "Transports": each poll of a session must reach the same worker; the shared port does not do that.
      log(`warning: your script's Socket.IO clients start with HTTP long-polling (Artillery's default transports), which the reference target's ${workers} workers cannot serve without sticky sessions: its vusers will fail with "xhr poll error" or "xhr post error". ${POLLING_FIX}`);
    }
    return target;
  };

  return {
    name: 'local',
    limits,
    // Local generators share this machine's cores: more of them add no arrival rate.
    arrivalCapacity: { perSecond: arrivalsPerSecond, perGenerator: false },
    maxGenerators: maxLocal.count,
    maxGeneratorsWhy: maxLocal.why,
    portRange: machine.ephemeralPorts,
    ...(oneAddressWhy ? { oneSourceAddress: { vusers: usablePorts(machine.ephemeralPorts), why: oneAddressWhy } } : {}),
    // Every local generator shares this machine's memory: the whole machine holds one generator's memory bound.
    maxConcurrent: {
      vusers: Math.floor(limits.memoryBytes / limits.bytesPerVuser),
      why: `${(machine.freeMemoryBytes / 2 ** 30).toFixed(1)} GiB free, ~${Math.round(limits.bytesPerVuser / 1024)} KiB per vuser`,
    },
    secretsInEnvironment: true,
    sourceAddress: (g, k) => loopbackSourceAddress(g * processes + k, aliasBlock),

    async open({ runId, runDir, plan, signal }) {
      const cleanups = cleanupStack();
      try {
        const target = await prepareTarget(plan, runId, signal);
        cleanups.push(() => target.stop());
        const store = localStore(runDir);
        const metrics = targetMetricsSource({ url: target.url, store, referenceTarget: !options.target });
        cleanups.push(() => metrics.collect(undefined).then(() => undefined));
        const fleet = localFleet({ agentScript: path.join(opts.root, 'load-generators', 'agent.js'), runDir: store.location, runId });
        cleanups.push(() => fleet.stop());
        return {
          target,
          store,
          fleet,
          metrics,
          timings: LOCAL_TIMINGS,
          preflight: async (spec, signal) => {
            await preflightHere(spec, log, authToken, signal);
            await opts.browserCheck?.(signal);
          },
          copyToRunDir: async () => undefined,
          close: () => cleanups.run(),
        };
      } catch (err) {
        await cleanups.run();
        throw err;
      }
    },
  };
}
