/**
 * A Ctrl-C while an entry still loads its modules (scripts/early-interrupt.js, listened to by scripts/launch.js): it
 * used to end the CLI at once and silently (no `interrupted` line, no --output file), because the CLI's handler is
 * installed only once its imports are loaded. The entry below stands for such an entry: it says it is loading, then
 * blocks — as a synchronous module load does — until the test has sent SIGINT (a file says so), then installs its
 * handler (or none). Started through launch.js, as `npm run loadtest` starts the CLI.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../helpers/cli';

const ROOT = path.resolve(__dirname, '..', '..');
const NODE = path.join(ROOT, 'node_modules', '.bin', 'node');

/** Runs an entry through launch.js (or plain node) that loads until SIGINT was sent; its stdout, exit code and signal. */
function loadingEntry(opts: { launch: boolean; handler: boolean }): Promise<{ out: string; code: number | null; signal: NodeJS.Signals | null }> {
  const dir = tempDir('rig-early-interrupt-');
  const sent = path.join(dir, 'sent');
  const entry = path.join(dir, 'entry.ts');
  fs.writeFileSync(entry, `
    import * as fs from 'node:fs';
    process.stdout.write('loading\\n');
    const until = Date.now() + 20_000; // bounded: a module load that never ends would fail the test, not hang it
    while (!fs.existsSync(${JSON.stringify(sent)}) && Date.now() < until) { /* a synchronous module load */ }
    if (${opts.handler}) process.on('SIGINT', () => { process.stdout.write('handled SIGINT\\n'); process.exit(130); });
    setTimeout(() => process.stdout.write('not interrupted\\n'), 1000);
  `);
  // Without launch.js: the same entry as plain JavaScript (what happened before, with no early listener).
  const js = entry.replace(/\.ts$/, '.js');
  fs.writeFileSync(js, fs.readFileSync(entry, 'utf8').replace("import * as fs from 'node:fs';", "const fs = require('node:fs');"));
  const argv = opts.launch ? [path.join(ROOT, 'scripts', 'launch.js'), entry] : [js];
  return new Promise((resolve) => {
    const child = spawn(NODE, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out === 'loading\n') {
        child.kill('SIGINT');
        fs.writeFileSync(sent, '');
      }
    });
    child.on('exit', (code, signal) => resolve({ out, code, signal }));
  });
}

test('a SIGINT while the entry loads reaches the handler it installs after (was: the process ended silently by the signal)', async () => {
  expect(await loadingEntry({ launch: true, handler: true })).toEqual({ out: 'loading\nhandled SIGINT\n', code: 130, signal: null });
  // Without launch.js's early listener, no handler had a chance.
  expect(await loadingEntry({ launch: false, handler: true })).toEqual({ out: 'loading\n', code: null, signal: 'SIGINT' });
});

test('an entry that installs no handler still ends by the signal, as without the early listener', async () => {
  expect(await loadingEntry({ launch: true, handler: false })).toEqual({ out: 'loading\n', code: null, signal: 'SIGINT' });
});
