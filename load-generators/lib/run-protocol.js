// @ts-check
'use strict';
/**
 * The run-store protocol: the one place that names every key of a run and the JSON shape behind it,
 * shared by the orchestrator (TypeScript, on the operator's machine) and the agent and the rig's
 * Artillery plugin (JavaScript, on a generator, run without a build step). It imports nothing, so both
 * sides can load it; `tsc` checks both sides against the same shapes.
 *
 *   run.json                               the plan and options (orchestrator)
 *   control/heartbeat.json                 Heartbeat, refreshed by the orchestrator; agents stop when it goes stale
 *   control/start.json                     StartControl, the shared start instant, written once every agent is ready
 *   control/abort.json                     AbortControl, the orchestrator asks every agent to stop
 *   generators/<id>/slice.json             Slice, this generator's Artillery scripts (one per load process)
 *   generators/<id>/ready.json             ReadyMarker, the agent is loaded and waiting
 *   generators/<id>/error.json             ErrorMarker, why the agent could not get ready
 *   generators/<id>/p<k>/periods/*.json    per-period metrics, Artillery's SSMS serialization
 *                                          (`<period>-flush-t<n>.json`: what a worker held when stopped early)
 *   generators/<id>/p<k>/final.json        Artillery's final report for that process
 *   generators/<id>/p<k>/started-*.json    StartedMarker, when each load thread really started
 *   generators/<id>/p<k>/artillery.log     the load process's output
 *   generators/<id>/health/*.json          HealthRecord, resource samples (CPU, memory, files, ports)
 *   generators/<id>/instance.json          AWS: { instanceId, commandId, at } the instance running the agent
 *   generators/<id>/agent.log              the agent's own output
 *   generators/<id>/done.json              DoneMarker (reason: 'completed', why it stopped, or which load
 *                                          process ended how, e.g. 'load process p0 killed by SIGKILL')
 *   target/metrics/*.json                  the reference target's /metrics samples (orchestrator)
 *   preflight/spec.json, result.json       AWS: the reachability probe run from the first generator
 *
 * A load process's spool folder (on the generator, between the agent and the plugin) uses SPOOL.
 */

/**
 * The store both sides read and write: a local folder or an S3 prefix (load-generators/lib/run-store.js).
 * @typedef {object} RunStore
 * @property {string} location human-readable location (folder or s3:// URL)
 * @property {(key: string, body: string | Buffer) => Promise<void>} put   atomic whole-object write
 * @property {(key: string) => Promise<string | undefined>} get           undefined when absent
 * @property {(prefix: string) => Promise<string[]>} list                  keys under a prefix, sorted
 */

/**
 * One load process of a slice: its Artillery script and, locally, its source address.
 * `osChoice`: the script connects through Artillery's engines, which bind no source address (a user's script): the
 * process gets none, and its ports are counted per destination.
 * @typedef {{ script: any, sourceAddress?: string, osChoice?: boolean }} LoadProcessSpec
 */
/**
 * generators/<id>/slice.json. `testRunId`: the run's one test id, which every load process of every generator gets as
 * ARTILLERY_TEST_RUN_ID (Artillery's `{{ $testId }}`, `context.vars.$testId`, `global.artillery.testRunId`): without
 * it each `artillery run` would draw its own, and one rig run would tag its traffic with one id per load process.
 * @typedef {{ generator: string, index?: number, count?: number, scriptDir: string, processes: LoadProcessSpec[], heartbeatTimeoutMs?: number, healthIntervalMs?: number, startLeadMs?: number, targetFromEnv?: boolean, testRunId?: string }} Slice
 */
/** control/heartbeat.json @typedef {{ at: number }} Heartbeat */
/** control/start.json (and the spool's start.json) @typedef {{ startAt: number }} StartControl */
/** control/abort.json @typedef {{ at: number, reason: string }} AbortControl */
/**
 * generators/<id>/ready.json. `osPackages`: the builds of the OS packages the generator's boot installed unpinned
 * (name → version-release.arch, lib/os-packages.js), on AWS generators only.
 * @typedef {{ at: number, pid?: number, host?: string, processes?: number, notes?: string[], osPackages?: Record<string, string> }} ReadyMarker
 */
/** generators/<id>/error.json @typedef {{ at: number, message: string }} ErrorMarker */
/**
 * generators/<id>/done.json. `askedExitCodes`: per load process, the exit code a plugin asked Artillery for at the end
 * of a run that finished (artillery-plugin-expect's 21 when an expectation failed), else null; such a process counts
 * as completed (its exitCodes entry is 0) and the run's result says what was asked.
 * `failedAfterLoad`: per load process, when it finished its load (final report written) and then exited non-zero
 * without a plugin asking — the script's `after` section failed — its exit code and why (its exitCodes entry is 0).
 * @typedef {{ at: number, exitCodes: Array<number | null>, reason: string, askedExitCodes?: Array<number | null>, failedAfterLoad?: Array<{ code: number, why: string } | null> }} DoneMarker
 */
/** p<k>/started-<thread>.json @typedef {{ plannedAt: number, actualAt: number, pid?: number, threadId?: number }} StartedMarker */
/** generators/<id>/health/<at>.json @typedef {{ at: number, samples: Array<Record<string, unknown>> }} HealthRecord */

/** Defaults both sides agree on (the orchestrator may override the timeouts in the slice). */
const DEFAULTS = Object.freeze({
  /** How often the orchestrator refreshes control/heartbeat.json. */
  heartbeatIntervalMs: 2_000,
  /** How long agents run on without a fresh heartbeat before they stop themselves (orphaned). */
  heartbeatTimeoutMs: 30_000,
  /** How often an agent writes a health sample. */
  healthIntervalMs: 5_000,
});

/** The reason an agent writes into done.json when every load process ended normally. */
const COMPLETED = 'completed';
/**
 * How an agent's stop reason begins when a load process of a script with a `before` section ended before the start:
 * Artillery runs that section in its main thread before its workers start, and a failure there ends it (exit 1).
 */
const BEFORE_FAILED = "the script's `before` section failed";
/** An agent's stop reason when SIGINT/SIGTERM reached it (a Ctrl-C to the process group, or its fleet stopping it). */
const STOPPED_BY_SIGNAL = 'signal';
/** How an agent's stop reason begins when the orchestrator's abort file stopped it. */
const ABORTED = 'aborted by the orchestrator';
/** How an agent's stop reason begins when it stopped because the orchestrator's heartbeat did. */
const ORPHANED = 'orphaned';

/** Keys of the run-wide control files. */
const CONTROL = Object.freeze({
  run: 'run.json',
  heartbeat: 'control/heartbeat.json',
  start: 'control/start.json',
  abort: 'control/abort.json',
  /** AWS: the reachability probe's spec and result, run on the first generator (load-generators/lib/preflight.js). */
  preflightSpec: 'preflight/spec.json',
  preflightResult: 'preflight/result.json',
});

/** Prefix of every generator's keys. */
const GENERATORS_PREFIX = 'generators/';
/** Prefix of the target-side samples. */
const TARGET_METRICS_PREFIX = 'target/metrics/';
/** The target-side sample taken at `at`. @param {number} at */
const targetMetricsKey = (at) => `${TARGET_METRICS_PREFIX}${at}.json`;

/**
 * Keys of one generator's files.
 * @param {string} id generator id (g01 …)
 */
function generatorKeys(id) {
  const base = `${GENERATORS_PREFIX}${id}/`;
  return {
    prefix: base,
    slice: `${base}slice.json`,
    ready: `${base}ready.json`,
    error: `${base}error.json`,
    done: `${base}done.json`,
    agentLog: `${base}agent.log`,
    /** AWS: the instance and SSM command that run this generator's agent. */
    instance: `${base}instance.json`,
    /** @param {number} at */
    health: (at) => `${base}health/${at}.json`,
    /** A spool file of load process k, by its path relative to the spool (e.g. `periods/…`, `final.json`). @param {number} k @param {string} rel */
    process: (k, rel) => `${base}p${k}/${rel}`,
    /** @param {number} k */
    artilleryLog: (k) => `${base}p${k}/artillery.log`,
  };
}

/** What a key under `generators/` holds, read back by the report. */
const KEY_KIND = Object.freeze({
  period: /\/periods\/[^/]+\.json$/,
  started: /\/started-[^/]+\.json$/,
  health: /\/health\/[^/]+\.json$/,
});

/** The generator id a key under `generators/` belongs to. @param {string} key */
function generatorOfKey(key) {
  return key.startsWith(GENERATORS_PREFIX) ? key.slice(GENERATORS_PREFIX.length).split('/')[0] || undefined : undefined;
}

/** The file names in a load process's spool folder, between the agent and the plugin. */
const SPOOL = Object.freeze({
  periods: 'periods',
  start: 'start.json',
  abort: 'abort',
  final: 'final.json',
  /** Written by the rig plugin at Artillery's cleanup: the exit code a plugin asked for (global.artillery.suggestedExitCode). */
  asked: 'asked-exit.json',
  script: 'script.json',
  log: 'artillery.log',
  /** @param {number} thread */
  ready: (thread) => `ready-${thread}.json`,
  /** @param {number} thread */
  started: (thread) => `started-${thread}.json`,
  /** @param {number} thread */
  lag: (thread) => `lag-${thread}.json`,
  /** @param {number} thread */
  flushed: (thread) => `flushed-${thread}.json`,
  /** Written by the rig plugin when a step ended its load thread (process.exit() in a worker thread). @param {number} thread */
  threadExit: (thread) => `thread-exit-${thread}.json`,
  threadExitFile: /^thread-exit-\d+\.json$/,
  /** The files the agent ships to the store besides periods/. */
  shipped: /^(started-|ready-).*\.json$|^final\.json$/,
  readyFile: /^ready-\d+\.json$/,
  startedFile: /^started-(\d+)\.json$/,
  lagFile: /^lag-\d+\.json$/,
});

module.exports = { DEFAULTS, COMPLETED, ORPHANED, BEFORE_FAILED, STOPPED_BY_SIGNAL, ABORTED, CONTROL, GENERATORS_PREFIX, TARGET_METRICS_PREFIX, targetMetricsKey, generatorKeys, generatorOfKey, KEY_KIND, SPOOL };
