/**
 * The rig plugin's watch on process.exit in a load (worker) thread, run in real worker threads: a call from a step
 * ends the thread exactly as before (same exit code) and leaves the call's site for the agent; the call Artillery's
 * own shutdown makes (after the plugins' cleanup) leaves nothing.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { tempDir } from '../helpers/cli';

const THREAD_EXIT = path.join(__dirname, '..', '..', 'load-generators', 'plugins', 'artillery-plugin-rig', 'thread-exit.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { callSite } = require(THREAD_EXIT) as { callSite: (stack: string) => string | undefined };

/** Runs a worker thread that watches process.exit, then calls a step that exits with 7; resolves with its exit code. */
function exitingWorker(spool: string, shutdownFirst: boolean): Promise<{ code: number; threadId: number }> {
  const step = path.join(spool, 'step.js');
  fs.writeFileSync(step, 'module.exports = { step() {\n  process.exit(7);\n} };\n');
  const code = `
    const fs = require('node:fs');
    const watch = require(${JSON.stringify(THREAD_EXIT)}).reportEarlyExits(${JSON.stringify(spool)}, (f, d) => fs.writeFileSync(f, JSON.stringify(d)));
    ${shutdownFirst ? 'watch.shuttingDown();' : ''}
    require(${JSON.stringify(step)}).step();
  `;
  const worker = new Worker(code, { eval: true });
  const threadId = worker.threadId;
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (c) => resolve({ code: c, threadId }));
  });
}

describe('process.exit in a load thread', () => {
  test('from a step: the thread still ends with its code, and thread-exit-<thread>.json names the call site', async () => {
    const spool = tempDir('rig-thread-exit-');
    const { code, threadId } = await exitingWorker(spool, false);
    expect(code).toBe(7);
    const written = JSON.parse(fs.readFileSync(path.join(spool, `thread-exit-${threadId}.json`), 'utf8'));
    expect(written.code).toBe(7);
    expect(written.site).toMatch(new RegExp(`^${path.join(spool, 'step.js').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+$`));
  });

  test("during Artillery's own shutdown (after the plugin's cleanup): the same exit, no file", async () => {
    const spool = tempDir('rig-thread-exit-');
    const { code } = await exitingWorker(spool, true);
    expect(code).toBe(7);
    expect(fs.readdirSync(spool).filter((n) => n.startsWith('thread-exit-'))).toEqual([]);
  });

  test("Node's own exit of a thread on an uncaught error (no frame outside Node): no file, the error goes to the parent", async () => {
    const spool = tempDir('rig-thread-exit-');
    const code = `
      const fs = require('node:fs');
      require(${JSON.stringify(THREAD_EXIT)}).reportEarlyExits(${JSON.stringify(spool)}, (f, d) => fs.writeFileSync(f, JSON.stringify(d)));
      setTimeout(() => { throw new Error('async boom in a step'); }, 1);
    `;
    const worker = new Worker(code, { eval: true });
    const errors: Error[] = [];
    worker.on('error', (e) => errors.push(e));
    const exitCode = await new Promise<number>((resolve) => worker.once('exit', resolve));
    expect(exitCode).toBe(1);
    expect(errors.map((e) => e.message)).toEqual(['async boom in a step']);
    expect(fs.readdirSync(spool).filter((n) => n.startsWith('thread-exit-'))).toEqual([]);
  });

  test("the call site skips Node's internals and the plugin's own frames", () => {
    const stack = [
      'Error',
      '    at rigExit (/x/load-generators/plugins/artillery-plugin-rig/thread-exit.js:40:90)',
      '    at process.exit (node:internal/process/per_thread:190:5)',
      '    at Object.boom (/home/u/proj/processor.js:12:7)',
      '    at /home/u/proj/node_modules/artillery/lib/engine_http.js:10:3',
    ].join('\n');
    expect(callSite(stack)).toBe('/home/u/proj/processor.js:12:7');
    expect(callSite('Error\n    at file:///home/u/p/proc.mjs:3:9')).toBe('/home/u/p/proc.mjs:3:9');
    expect(callSite('Error\n    at node:internal/x:1:1')).toBeUndefined();
    expect(callSite('Error\n    at Object.step (/home/u/my load tests/p.js:4:3)')).toBe('/home/u/my load tests/p.js:4:3');
    expect(callSite('Error\n    at /home/u/my load tests/p.js:5:1')).toBe('/home/u/my load tests/p.js:5:1');
    expect(callSite('Error\n    at step (file:///home/u/my%20load/p.mjs:6:2)')).toBe('/home/u/my load/p.mjs:6:2');
  });
});
