// @ts-check
'use strict';
/**
 * The agent's process supervisor: one Artillery process per slice entry, each in its own spool folder.
 * It starts them, knows which are alive and why one ended, hands them the start instant and the abort
 * through files in their spool (written whole), and stops them (SIGTERM, then SIGKILL after a grace).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { BEFORE_FAILED, SPOOL } = require('./run-protocol');

const PLUGINS_DIR = path.join(__dirname, '..', 'plugins');
/** Preloaded into every load process and its worker threads: arrival pacing without nanotimer's busy-wait. */
const CALM_TIMERS = path.join(__dirname, 'calm-timers.js');
/**
 * V8's background threads per load process. Node's default is 4 per process; a generator runs one load process
 * per core, so the default puts 4 × cores GC helper threads on `cores` CPUs, with no idle core for them. On the
 * 2-core dev machine (6 load processes, 6 target workers) load threads' GC pauses stretched up to 788 ms; with
 * one helper each, 453 ms, and 3 rig-limited periods instead of 13 (one 96,000-held run each: docs/performance.md,
 * "GC pauses").
 */
const V8_POOL_SIZE = 1;

/**
 * The load processes' NODE_OPTIONS: the user's own, then the calm timers (NODE_OPTIONS reaches Artillery's worker
 * thread too). @param {string | undefined} inherited
 */
function loadProcessNodeOptions(inherited) {
  return `${inherited || ''} --require ${JSON.stringify(CALM_TIMERS)}`.trim();
}

/**
 * Node flags on the load process's command line: V8's pool size, unless the user's NODE_OPTIONS sets one (theirs
 * wins). Not in NODE_OPTIONS: a worker given its own env re-reads NODE_OPTIONS and refuses process-wide flags there,
 * and Artillery starts its worker with `NODE_OPTIONS … --enable-source-maps` for a TypeScript processor ("--v8-pool-size=
 * is not allowed in NODE_OPTIONS": every load process died before start).
 * @param {string | undefined} inherited
 */
function loadProcessExecArgv(inherited) {
  return /--v8-pool-size[= ]/.test(inherited || '') ? [] : [`--v8-pool-size=${V8_POOL_SIZE}`];
}
const ARTILLERY_BIN = path.join(path.dirname(require.resolve('artillery/package.json')), 'bin', 'run');
/** How long a stopped load process gets to flush its period in progress before it is killed. */
const FLUSH_GRACE_MS = 12_000;

/**
 * Write-then-rename: the load processes poll these files (start, abort) and must never read half of one.
 * @param {string} file @param {string | Buffer} body
 */
function writeAtomic(file, body) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, body);
  fs.renameSync(tmp, file);
}

/** How much of a crashed load process's log is searched for its error (the tail: the error is printed last). */
const LOG_TAIL_BYTES = 64 * 1024;

/**
 * The error a load process died of, from the text of its log: Artillery's `worker error, id: N <message>` line
 * (an unknown engine, a browser that is not installed, a processor that throws at the first vuser), else the
 * last `…Error: …` line; ANSI colours removed, at most 300 characters, and where in the user's own code it was thrown
 * (the first stack frame outside Node, node_modules and the rig). Undefined when there is none.
 * @param {string} text
 */
function crashReason(text) {
  // eslint-disable-next-line no-control-regex
  const lines = text.replace(/\u001b\[[0-9;]*m/g, '').split('\n').map((l) => l.trim()).filter(Boolean);
  let at = -1;
  lines.forEach((l, i) => {
    if (/^worker error, id: \d+ .+$/.test(l)) at = i;
  });
  if (at < 0) at = lines.map((l, i) => (/^(\w*Error|\w+\.\w+: )/.test(l) ? i : -1)).filter((i) => i >= 0).pop() ?? -1;
  if (at < 0) return undefined;
  let reason = String(lines[at]).replace(/^worker error, id: \d+ /, '');
  if (reason.length > 300) reason = `${reason.slice(0, 297)}...`;
  // The first frame of the stack in the user's own code (not Node's, not a package's, not the rig's): where to look.
  const frames = lines.slice(at + 1).filter((l) => l.startsWith('at '));
  // The location starts the frame's parentheses or follows `at `: `node:internal/timers:585:17` is Node's, not a path.
  const own = frames.map((f) => /(?:\(|^at )((?:\/|file:\/\/)[^()]+:\d+:\d+)\)?$/.exec(f)?.[1]).find((loc) => loc && !/node_modules|^node:|\/load-generators\//.test(loc));
  return own ? `${reason} (thrown by your code at ${own.replace(/^file:\/\//, '')})` : reason;
}

/** The tail of a log file, or '' when it cannot be read. @param {string} file */
function logTail(file) {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const len = Math.min(size, LOG_TAIL_BYTES);
      const buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, size - len);
      return buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

/**
 * The exit code a plugin asked for, when a load process ended with it after its run finished (the rig plugin wrote
 * the final report and the code at cleanup); null otherwise, i.e. the exit is a crash.
 * @param {string} spool @param {number} code
 * @returns {number | null}
 */
function askedExit(spool, code) {
  try {
    if (!fs.existsSync(path.join(spool, SPOOL.final))) return null;
    const asked = JSON.parse(fs.readFileSync(path.join(spool, SPOOL.asked), 'utf8'));
    return asked && asked.code === code ? code : null;
  } catch {
    return null;
  }
}

/**
 * The rig plugin's thread-exit file in a load process's spool, if a step ended one of its threads.
 * @param {string} spool @returns {{ code?: unknown, site?: string } | undefined}
 */
function threadExitOf(spool) {
  try {
    const name = fs.readdirSync(spool).find((n) => SPOOL.threadExitFile.test(n));
    return name ? JSON.parse(fs.readFileSync(path.join(spool, name), 'utf8')) : undefined;
  } catch {
    return undefined; // the spool is gone (the run is ending), or the file is being renamed into place: next tick
  }
}

/** @param {number} k @param {{ code?: unknown, site?: string }} ended */
function threadExitReason(k, ended) {
  const code = typeof ended.code === 'number' || typeof ended.code === 'string' ? String(ended.code) : '';
  return `load process p${k}: a step called process.exit(${code}) at ${ended.site}, which ends Artillery's load thread (plain \`artillery run\` then never ends); end a vuser with its step's callback instead (next(), or next(err) to fail it)`;
}

/** Why a child ended, in words: its exit code, or the signal's name (never a bare 128). @param {number | null} code @param {NodeJS.Signals | null} signal */
const exitText = (code, signal) => (signal ? `killed by ${signal}` : `exit code ${code}`);

/**
 * @typedef {{ k: number, spool: string, child: import('node:child_process').ChildProcess, exit?: number | null, why: string, pushed: Set<string>, logFile: string, asked: number | null, failedAfterLoad: string | null }} LoadProcess
 * @param {{ clock: import('./backoff').AgentClock, onStopped?: (reason: string) => void }} opts
 */
function supervisor(opts) {
  const { clock } = opts;
  /** @type {LoadProcess[]} */
  const procs = [];
  let stopping = '';
  return {
    procs,
    stopping: () => stopping,
    alive: () => procs.some((p) => p.exit === undefined),
    /**
     * Starts load process k on a script already written to `<spool>/script.json`.
     * @param {number} k @param {string} spool
     * @param {Record<string, string>} secrets the scenario's secrets (never override the rig's own variables)
     * @param {Record<string, string>} rigEnv the process's RIG_* variables
     * @param {{ sourceMaps?: boolean }} [how] `sourceMaps`: its processor is a bundle with an inline source map
     */
    start(k, spool, secrets, rigEnv, { sourceMaps = false } = {}) {
      const logFile = path.join(spool, SPOOL.log);
      const log = fs.openSync(logFile, 'a');
      const child = spawn(process.execPath, [...loadProcessExecArgv(process.env.NODE_OPTIONS), ARTILLERY_BIN, 'run', path.join(spool, SPOOL.script)], {
        cwd: spool,
        stdio: ['ignore', log, log],
        env: {
          ...process.env,
          WORKERS: '1',
          ...secrets,
          ARTILLERY_DISABLE_TELEMETRY: 'true',
          // Ensure is evaluated once, on the merged data, by the orchestrator: never on one process's slice.
          ARTILLERY_DISABLE_ENSURE: 'true',
          // The rig's plugin first, then a user's own plugin folders (Artillery's load-plugins.js reads the list).
          ARTILLERY_PLUGIN_PATH: [PLUGINS_DIR, process.env.ARTILLERY_PLUGIN_PATH].filter(Boolean).join(':'),
          NODE_OPTIONS: `${loadProcessNodeOptions(process.env.NODE_OPTIONS)}${sourceMaps ? ' --enable-source-maps' : ''}`,
          ...rigEnv,
        },
      });
      fs.closeSync(log);
      /** @type {LoadProcess} */
      const entry = { k, spool, child, exit: undefined, why: '', pushed: new Set(), logFile, asked: null, failedAfterLoad: null };
      child.on('exit', (code, signal) => {
        entry.exit = code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1);
        entry.asked = code !== 0 && code !== null ? askedExit(spool, code) : null;
        const reason = code !== 0 && !stopping && entry.asked === null ? crashReason(logTail(logFile)) : undefined;
        entry.why = entry.asked !== null ? `finished; a plugin asked for exit code ${code}` : reason ? `${exitText(code, signal)}: ${reason}` : exitText(code, signal);
        // Its load done and its final report written, then an error: the script's `after` section (or a plugin's
        // cleanup) failed, as plain `artillery run` would, exiting with the same code. Every figure is in: not lost.
        entry.failedAfterLoad = code !== 0 && code !== null && !stopping && entry.asked === null && fs.existsSync(path.join(spool, SPOOL.final)) ? entry.why : null;
      });
      procs.push(entry);
    },
    /** Asks every load process to stop (once); one that ignores SIGTERM is killed after the flush grace. @param {string} reason */
    stopAll(reason) {
      if (stopping) return;
      stopping = reason;
      for (const p of procs) {
        try { writeAtomic(path.join(p.spool, SPOOL.abort), reason); } catch { /* spool gone */ }
        // SIGTERM: Artillery's graceful shutdown, during which the rig plugin flushes the period in progress.
        if (p.exit === undefined) p.child.kill('SIGTERM');
      }
      setTimeout(() => { for (const p of procs) if (p.exit === undefined) p.child.kill('SIGKILL'); }, FLUSH_GRACE_MS).unref();
      opts.onStopped?.(reason);
    },
    /**
     * Until every load process has a thread waiting at the barrier; false (and stopping) when one ended first
     * or they were not ready in time. @param {(k: number) => string} logKey @param {number} [timeoutMs]
     * @param {(k: number) => boolean} [hasBefore] whether load process k's script has a `before` section
     */
    async waitReady(logKey, timeoutMs = 120_000, hasBefore = (/** @type {number} */ _k) => false) {
      const deadline = clock.now() + timeoutMs;
      for (;;) {
        if (stopping) return false;
        const dead = procs.find((p) => p.exit !== undefined);
        if (dead) {
          // A script with a `before` section that ended with an error of its own (not a signal) before the start: that
          // section failed (Artillery runs it before its workers start), the script's failure, not the rig's.
          const own = hasBefore(dead.k) && dead.exit === 1 && dead.why.startsWith('exit code 1: ');
          this.stopAll(`${own ? `${BEFORE_FAILED}: ` : ''}load process p${dead.k} ended before start (${dead.why}; see ${logKey(dead.k)})`);
          return false;
        }
        if (procs.every((p) => fs.readdirSync(p.spool).some((n) => SPOOL.readyFile.test(n)))) return true;
        if (clock.now() > deadline) { this.stopAll(`load processes not ready within ${timeoutMs / 1000} s`); return false; }
        await clock.sleep(50);
      }
    },
    /**
     * A step that ended a load thread (process.exit() in a worker thread; the rig plugin's thread-exit file) leaves
     * its load process waiting forever, as plain `artillery run` does: every load process is stopped, the step named.
     */
    stopOnThreadExit() {
      if (stopping) return;
      for (const p of procs) {
        const ended = threadExitOf(p.spool);
        if (ended) return this.stopAll(threadExitReason(p.k, ended));
      }
    },
    /** Hands the start instant to every load process (the rig plugin sleeps until it). @param {string} startJson */
    handStart(startJson) {
      for (const p of procs) writeAtomic(path.join(p.spool, SPOOL.start), startJson);
    },
  };
}

module.exports = { askedExit, crashReason, loadProcessExecArgv, loadProcessNodeOptions, supervisor, writeAtomic, FLUSH_GRACE_MS };
