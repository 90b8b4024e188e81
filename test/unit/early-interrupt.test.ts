/**
 * A Ctrl-C while an entry still loads its modules (scripts/early-interrupt.js, listened to by scripts/launch.js): it
 * used to end the CLI at once and silently (no `interrupted` line, no --output file) because the CLI's handler is
 * installed only once its imports are loaded. The child below stands for such an entry: it says it is loading, then
 * blocks (as a synchronous module load does) while the test sends SIGINT, then installs its handler (or none).
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';

const EARLY = path.resolve(__dirname, '../../scripts/early-interrupt.js');

/** Runs a child that loads for 300 ms with SIGINT sent during it; its stdout, exit code and signal. */
function loadingChild(opts: { early: boolean; handler: boolean }): Promise<{ out: string; code: number | null; signal: NodeJS.Signals | null }> {
  const src = `
    const early = require(${JSON.stringify(EARLY)});
    if (${opts.early}) early.listen();
    process.stdout.write('loading\\n');
    const until = Date.now() + 300; while (Date.now() < until) {} // a synchronous module load
    if (${opts.handler}) process.on('SIGINT', () => { process.stdout.write('handled SIGINT\\n'); process.exit(130); });
    if (${opts.early}) early.release();
    setTimeout(() => { process.stdout.write('not interrupted\\n'); }, 1000);
  `;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', src], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out === 'loading\n') child.kill('SIGINT');
    });
    child.on('exit', (code, signal) => resolve({ out, code, signal }));
  });
}

test('a SIGINT during the load reaches the handler the entry installs after it (was: the process ended silently by the signal)', async () => {
  expect(await loadingChild({ early: true, handler: true })).toEqual({ out: 'loading\nhandled SIGINT\n', code: 130, signal: null });
  // What happened without the early listener: no handler had a chance.
  expect(await loadingChild({ early: false, handler: true })).toEqual({ out: 'loading\n', code: null, signal: 'SIGINT' });
});

test('an entry that installs no handler still ends by the signal, as without the early listener', async () => {
  expect(await loadingChild({ early: true, handler: false })).toEqual({ out: 'loading\n', code: null, signal: 'SIGINT' });
});
