/**
 * A `.js` test script, which `artillery run` 2.0.34 loads with require (prepare-test-execution-plan.ts) and runs: the
 * rig refused it ("does not run one yet"). Read the same way, it is checked and split like a YAML script.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { validateFlags } from '../../scripts/options';
import { prepareRunInput } from '../../scripts/run-input';
import { UsageError } from '../../scripts/errors';
import { runProbe } from '../../scripts/probe-child';

const root = path.resolve(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-script-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};
write('proc.js', 'module.exports = { hello(c, e, d) { d(); } };\n');

describe('a .js test script', () => {
  test('module.exports = { config, scenarios }: read, -e merged, its processor checked from its folder', () => {
    const file = write('cjs.js', `module.exports = { config: { target: 'http://127.0.0.1:9', processor: './proc.js', phases: [{ duration: 1, arrivalCount: 2 }], environments: { b: { target: 'http://127.0.0.1:10' } } }, scenarios: [{ flow: [{ function: 'hello' }, { get: { url: '/' } }] }] };\n`);
    const input = prepareRunInput(validateFlags({ scenario: file, environment: 'b' }), root, {});
    expect(input.options.target).toBe('http://127.0.0.1:10');
    expect(input.script.config.phases).toEqual([{ duration: 1, arrivalCount: 2 }]);
    // Read again without -e: the first read's merge did not change the script.
    expect(prepareRunInput(validateFlags({ scenario: file }), root, {}).options.target).toBe('http://127.0.0.1:9');
  }, 10_000);

  test('one that throws when loaded is named, with its error', () => {
    const file = write('throws.js', `throw new Error('boom');\n`);
    expect(() => prepareRunInput(validateFlags({ scenario: file }), root, {})).toThrow(new UsageError(`scenario file ${file} does not load (boom); fix it and run again (a .js test script is loaded with require, as artillery run loads it)`));
  }, 10_000);

  // Loaded in a child process, as the processor check loads a processor: user code never runs in the orchestrator.
  test("its top-level code runs in a child process, not the orchestrator's: a global it sets, a process.exit, a value JSON cannot carry", () => {
    const phases = '[{ duration: 1, arrivalCount: 1 }]';
    const marks = write('marks.js', `globalThis.__rigScriptLoaded = true;\nmodule.exports = { config: { target: 'http://127.0.0.1:9', phases: ${phases} }, scenarios: [{ flow: [{ get: { url: '/' } }] }] };\n`);
    expect(prepareRunInput(validateFlags({ scenario: marks }), root, {}).script.scenarios).toHaveLength(1);
    expect((globalThis as { __rigScriptLoaded?: boolean }).__rigScriptLoaded).toBeUndefined();
    const exits = write('exits.js', 'process.exit(0);\n');
    expect(() => prepareRunInput(validateFlags({ scenario: exits }), root, {})).toThrow(new UsageError(`scenario file ${exits} does not load (it exited while loading); fix it and run again (a .js test script is loaded with require, as artillery run loads it)`));
    const dated = write('dated.js', `module.exports = { config: { target: 'http://127.0.0.1:9', phases: ${phases}, variables: { at: new Date(0) } }, scenarios: [{ flow: [] }] };\n`);
    expect(() => prepareRunInput(validateFlags({ scenario: dated }), root, {})).toThrow(/dated\.js: config\.variables\.at is a Date object, which the rig cannot send to its load processes/);
    // A key left undefined (`ca: process.env.CA` with CA unset) is left out, as plain Artillery's copy leaves it.
    const unset = write('unset.js', `module.exports = { config: { target: 'http://127.0.0.1:9', phases: ${phases}, tls: { ca: undefined } }, scenarios: [{ flow: [] }] };\n`);
    expect(prepareRunInput(validateFlags({ scenario: unset }), root, {}).script.config.tls).toEqual({});
  }, 20_000);

  test("an ES module's named exports are the script (Node's __esModule marker is not); a module exporting a function is named", () => {
    const esm = write('esm-named.js', `export const config = { target: 'http://127.0.0.1:9', phases: [{ duration: 1, arrivalCount: 1 }] };\nexport const scenarios = [{ flow: [{ get: { url: '/' } }] }];\n`);
    const input = prepareRunInput(validateFlags({ scenario: esm }), root, {});
    expect(Object.keys(input.script)).not.toContain('__esModule');
    expect(input.options.target).toBe('http://127.0.0.1:9');
    const fn = write('fn-export.js', 'module.exports = function () {};\n');
    expect(() => prepareRunInput(validateFlags({ scenario: fn }), root, {})).toThrow(/does not load \(it exports a function, not \{ config, scenarios \}\)/);
  }, 20_000);

  test('an ES module with only a default export, or one that awaits at its top level: one line each with the fix', () => {
    const def = write('def.mjs.js', `export default { config: { target: 'http://127.0.0.1:9' }, scenarios: [] };\n`);
    expect(() => prepareRunInput(validateFlags({ scenario: def }), root, {})).toThrow(/has only a default export, which artillery run does not read .*export const config = …/);
    const tla = write('tla.js', `const v = await Promise.resolve(1);\nexport const config = { target: 'http://127.0.0.1:9', variables: { v } };\nexport const scenarios = [];\n`);
    expect(() => prepareRunInput(validateFlags({ scenario: tla }), root, {})).toThrow(/does not load \(it awaits at its top level, and require, which artillery run loads it with too, cannot wait; compute those values in a processor or a before section\)/);
  }, 20_000);

  test('a process it starts in the background at load time (stderr inherited) does not hold the load open', () => {
    const pidFile = path.join(dir, 'bg.pid');
    const bg = write('bg.js', `const { spawn } = require('node:child_process');\nconst c = spawn('sleep', ['30'], { stdio: 'inherit', detached: true });\nrequire('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));\nc.unref();\nmodule.exports = { config: { target: 'http://127.0.0.1:9', phases: [{ duration: 1, arrivalCount: 1 }] }, scenarios: [{ flow: [] }] };\n`);
    try {
      const t0 = Date.now();
      expect(prepareRunInput(validateFlags({ scenario: bg }), root, {}).script.scenarios).toHaveLength(1);
      expect(Date.now() - t0).toBeLessThan(10_000);
    } finally {
      if (fs.existsSync(pidFile)) process.kill(Number(fs.readFileSync(pidFile, 'utf8')), 'SIGKILL');
    }
  }, 20_000);
});

describe('a probe of user code (scripts/probe-child.ts)', () => {
  // A top level that builds something for 16 s is valid (plain artillery run waits for it); it was refused at 15 s.
  test('a processor whose top level takes longer than the old 15-s bound still loads', () => {
    const probe = write('slow-probe.js', 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 16_000);\n');
    expect(runProbe(probe, [], dir, dir)).toBeUndefined();
  }, 40_000);

  test('one that ignores SIGTERM and never finishes is killed at its deadline and named', () => {
    const probe = write('stuck-probe.js', "process.on('SIGTERM', () => {});\nfor (;;) {}\n");
    const t0 = Date.now();
    expect(runProbe(probe, [], dir, dir, 1000)).toBe("did not finish loading within 1 s (every load process loads it too, before the run's ready deadline): code at its top level that waits or loops; move it into a step or a hook");
    // Killed by anything else (here itself, as an OOM kill would): said as that, not as the deadline.
    expect(runProbe(write('killed-probe.js', "process.kill(process.pid, 'SIGKILL');\n"), [], dir, dir)).toBe('was killed by SIGKILL while loading');
    expect(Date.now() - t0).toBeLessThan(8000);
  }, 10_000);

  test("one that fails names its error line, read from its stderr", () => {
    const probe = write('failing-probe.js', "console.error('noise');\nthrow new TypeError('bad thing');\n");
    expect(runProbe(probe, [], dir, dir)).toBe('TypeError: bad thing');
  }, 10_000);
});
