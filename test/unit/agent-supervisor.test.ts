/** What every load process starts with: the calm timers and one V8 helper thread, the user's NODE_OPTIONS kept. */
import { execFileSync } from 'node:child_process';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loadProcessExecArgv, loadProcessNodeOptions } = require('../../load-generators/lib/agent-supervisor') as {
  loadProcessNodeOptions(inherited?: string): string;
  loadProcessExecArgv(inherited?: string): string[];
};

/** Threads of a fresh Node process started with `execArgv` and `nodeOptions` (Linux: /proc/self/task), before any work. */
function threadsWith(execArgv: string[], nodeOptions: string | undefined): number {
  const env: NodeJS.ProcessEnv = { ...process.env, RIG_CALM_TIMERS: '0' };
  if (nodeOptions === undefined) delete env.NODE_OPTIONS;
  else env.NODE_OPTIONS = nodeOptions;
  return Number(execFileSync(process.execPath, [...execArgv, '-e', "process.stdout.write(String(require('fs').readdirSync('/proc/self/task').length))"], { env }).toString());
}

describe('load process NODE_OPTIONS and command line', () => {
  it("keeps the user's options first, then preloads the calm timers; V8's pool size goes on the command line", () => {
    expect(loadProcessNodeOptions('--max-old-space-size=3000')).toMatch(/^--max-old-space-size=3000 --require ".*calm-timers\.js"$/);
    expect(loadProcessNodeOptions(undefined)).toMatch(/^--require ".*calm-timers\.js"$/);
    expect(loadProcessExecArgv(undefined)).toEqual(['--v8-pool-size=1']);
  });

  it('a pool size the user set in NODE_OPTIONS wins', () => {
    expect(loadProcessExecArgv('--v8-pool-size=4')).toEqual([]);
    expect(loadProcessExecArgv('--max-old-space-size=3000 --v8-pool-size 2')).toEqual([]);
  });

  // Linux, as the rig (source addresses, /proc health) and CI are.
  it("a process started with them has three fewer V8 helper threads than Node's default of four", () => {
    const plain = threadsWith([], undefined);
    const rig = threadsWith(loadProcessExecArgv(undefined), loadProcessNodeOptions(undefined));
    expect(plain - rig).toBe(3);
  });

  // Artillery gives its worker thread `env` with NODE_OPTIONS + --enable-source-maps when the processor is TypeScript;
  // Node then re-reads NODE_OPTIONS for the worker and refuses process-wide flags in it.
  it('a worker thread started with its own env (as Artillery does for a TypeScript processor) starts', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, RIG_CALM_TIMERS: '0', NODE_OPTIONS: loadProcessNodeOptions(undefined) };
    const probe = "const { Worker } = require('worker_threads'); const w = new Worker('1', { eval: true, env: { ...process.env, NODE_OPTIONS: process.env.NODE_OPTIONS + ' --enable-source-maps' } }); w.on('exit', (c) => process.stdout.write('exit ' + c));";
    expect(execFileSync(process.execPath, [...loadProcessExecArgv(undefined), '-e', probe], { env }).toString()).toBe('exit 0');
  });
});

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { crashReason, supervisor } = require('../../load-generators/lib/agent-supervisor') as {
  crashReason(text: string): string | undefined;
  supervisor(opts: { clock: { now(): number; sleep(ms: number): Promise<void> } }): {
    procs: Array<{ exit?: number | null; why: string }>;
    start(k: number, spool: string, secrets: Record<string, string>, rigEnv: Record<string, string>): void;
  };
};

describe('why a load process ended', () => {
  it('names the error Artillery printed, not only the exit code (the one line the run ends with)', () => {
    const unknownEngine = 'Test run id: t1\nPhase started: unnamed\n\nworker error, id: 1 Error: Failed to run scenario "0": unknown engine "kafka". Did you forget to include it in "config.engines.kafka"?\n    at runScenario (runner.js:276:23)\n';
    expect(crashReason(unknownEngine)).toBe('Error: Failed to run scenario "0": unknown engine "kafka". Did you forget to include it in "config.engines.kafka"?');
    const noBrowser = "worker error, id: 1 browserType.launch: Executable doesn't exist at /root/.cache/ms-playwright/x/chrome\n\u001b[33m╔══╗\u001b[39m\n  name: 'Error',\n}\n";
    expect(crashReason(noBrowser)).toBe("browserType.launch: Executable doesn't exist at /root/.cache/ms-playwright/x/chrome");
    expect(crashReason('TypeError: boom\n    at f (p.js:1:1)\n')).toBe('TypeError: boom');
    expect(crashReason('Phase started\nAll VUs finished\n')).toBeUndefined();
    // A processor that throws outside a step (a timer): where in the user's own code, past Node's and the rig's frames.
    const userBug = 'worker error, id: 1 Error: async user bug\n    at wrap (/work/main/load-generators/lib/calm-timers.js:51:14)\n    at Timeout._onTimeout (/home/me/test/proc.js:1:146)\n    at listOnTimeout (node:internal/timers:585:17)\n';
    expect(crashReason(userBug)).toBe('Error: async user bug (thrown by your code at /home/me/test/proc.js:1:146)');
    expect(crashReason('TypeError: x\n    at f (file:///srv/app/node_modules/lib/a.js:1:1)\n    at g (file:///srv/tests/p.mjs:3:9)\n')).toBe('TypeError: x (thrown by your code at /srv/tests/p.mjs:3:9)');
    // Artillery's own crash (2.0.34's ws engine calling back twice): only packages' and Node's frames, no user code to
    // name; `node:internal/timers:585:17` once read as the path `/timers:585:17`.
    const artilleryBug = 'worker error, id: 1 Error: Callback was already called.\n    at /work/main/node_modules/async/dist/async.js:969:32\n    at Timeout._onTimeout (file:///work/main/node_modules/artillery/dist/lib/core/engine_ws.js:22:20)\n    at listOnTimeout (node:internal/timers:585:17)\n    at process.processTimers (node:internal/timers:521:7)\n';
    expect(crashReason(artilleryBug)).toBe('Error: Callback was already called.');
    expect(crashReason('Error: y\n    at /srv/tests/p.js:3:9\n')).toBe('Error: y (thrown by your code at /srv/tests/p.js:3:9)');
    expect(crashReason(`worker error, id: 1 ${'x'.repeat(1000)}`)).toHaveLength(300);
  });

  it('a real Artillery process that dies at its first vuser: `why` carries its error line', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const spool = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-sup-crash-'));
    // Artillery 2.0.34: an engine not in config.engines throws at the first arrival and the process exits 11.
    const script = { config: { target: 'http://127.0.0.1:9', phases: [{ duration: 1, arrivalCount: 1 }] }, scenarios: [{ engine: 'nosuchengine', flow: [] }] };
    fs.writeFileSync(path.join(spool, 'script.json'), JSON.stringify(script));
    const clock = { now: () => Date.now(), sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };
    const sup = supervisor({ clock });
    sup.start(0, spool, {}, {});
    const deadline = Date.now() + 60_000;
    while (sup.procs[0]!.exit === undefined && Date.now() < deadline) await clock.sleep(100);
    expect(sup.procs[0]!.exit).not.toBe(0);
    expect(sup.procs[0]!.why).toMatch(/^exit code \d+: Error: Failed to run scenario "0": unknown engine "nosuchengine"/);
  }, 90_000);
});

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { askedExit } = require('../../load-generators/lib/agent-supervisor') as { askedExit(spool: string, code: number): number | null };

describe('a load process that exits with the code a plugin asked for', () => {
  it('is a finished run (its code is the script verdict) only when it wrote its final report and that code', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const spool = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-sup-asked-'));
    // No final report: a crash, whatever the code.
    expect(askedExit(spool, 21)).toBeNull();
    fs.writeFileSync(path.join(spool, 'final.json'), '{}');
    expect(askedExit(spool, 21)).toBeNull(); // finished, but no plugin asked for anything: a crash during shutdown
    fs.writeFileSync(path.join(spool, 'asked-exit.json'), JSON.stringify({ code: 21 }));
    expect(askedExit(spool, 21)).toBe(21);
    expect(askedExit(spool, 11)).toBeNull(); // another code than the one asked: a crash
  });
});
