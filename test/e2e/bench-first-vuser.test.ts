/**
 * The bench's processor (scripts/bench/first-vuser.js) under real Artillery against the reference target:
 * vusers run the connect flow to the end (the wrapper must stay async: Artillery hands a plain function a
 * callback and waits for it forever), and the first vuser's instant is written once.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startLocalTarget } from '../../scripts/platforms/local/target';
import { trialEnv } from '../../scripts/bench/trial';
import { ROOT, tempDir } from '../helpers/cli';

const ARTILLERY = path.join(ROOT, 'node_modules', 'artillery', 'bin', 'run');

test('plain Artillery with the bench processor completes every vuser and records the first one', async () => {
  const target = await startLocalTarget({ appDir: path.join(ROOT, 'target-stack', 'app'), port: 0, workers: 1 });
  const dir = tempDir('rig-bench-fv-');
  try {
    const script = path.join(dir, 'script.json');
    fs.writeFileSync(script, JSON.stringify({
      config: {
        target: target.url,
        processor: path.join(ROOT, 'scripts', 'bench', 'first-vuser.js'),
        phases: [{ duration: 1, arrivalCount: 4 }],
        variables: { hold: 0.5 },
      },
      scenarios: [{ flow: [{ function: 'fetchCookie' }, { function: 'openSocket' }, { think: '{{ hold }}' }, { function: 'closeSocket' }] }],
    }));
    const marker = path.join(dir, 'first-vuser');
    const spawnedAt = Date.now();
    const child = spawn(process.execPath, [ARTILLERY, 'run', '--output', path.join(dir, 'out.json'), script], {
      env: { ...process.env, ARTILLERY_DISABLE_TELEMETRY: 'true', RIG_BENCH_FIRST_VUSER_FILE: marker },
      stdio: 'ignore',
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    clearTimeout(timer);
    expect(code).toBe(0);
    const counters = (JSON.parse(fs.readFileSync(path.join(dir, 'out.json'), 'utf8')) as { aggregate: { counters: Record<string, number> } }).aggregate.counters;
    expect(counters['vusers.completed']).toBe(4);
    expect(counters['ws.connected']).toBe(4);
    const firstAt = Number(fs.readFileSync(marker, 'utf8'));
    expect(firstAt).toBeGreaterThan(spawnedAt);
    expect(firstAt).toBeLessThan(Date.now());
  } finally {
    await target.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("plain without its timer spin: the bench's environment reaches Artillery's load thread, and only for that trial", async () => {
  const dir = tempDir('rig-bench-spin-');
  try {
    // A vuser's function step reports whether the nanotimer that Artillery's arrivals use is the calm one.
    const processor = path.join(dir, 'probe.js');
    fs.writeFileSync(processor, `
      const path = require('node:path');
      const arrivals = path.dirname(require.resolve('arrivals/package.json', { paths: [path.dirname(require.resolve('artillery/package.json', { paths: [${JSON.stringify(ROOT)}] }))] }));
      module.exports = { probe(context, events, done) {
        const NanoTimer = require(require.resolve('nanotimer', { paths: [arrivals] }));
        require('node:fs').writeFileSync(process.env.PROBE_OUT, String(Boolean(NanoTimer.prototype.__rigCalm)));
        done();
      } };
    `);
    const script = path.join(dir, 'script.json');
    fs.writeFileSync(script, JSON.stringify({ config: { target: 'http://127.0.0.1:9', processor, phases: [{ duration: 1, arrivalCount: 1 }] }, scenarios: [{ flow: [{ function: 'probe' }] }] }));
    const calmIn = async (withoutSpin: boolean) => {
      const out = path.join(dir, `calm-${withoutSpin}`);
      const env = { ...trialEnv('plain', withoutSpin, process.env, path.join(dir, 'first-vuser')), PROBE_OUT: out };
      const child = spawn(process.execPath, [ARTILLERY, 'run', script], { env, stdio: 'ignore' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      clearTimeout(timer);
      expect(code).toBe(0);
      return fs.readFileSync(out, 'utf8');
    };
    expect(await calmIn(true)).toBe('true');
    expect(await calmIn(false)).toBe('false');
    expect(trialEnv('rig', true, { NODE_OPTIONS: '--x' }, 'f').NODE_OPTIONS).toBe('--x');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
