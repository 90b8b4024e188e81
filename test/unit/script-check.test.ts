import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { UsageError } from '../../scripts/errors';
import { loadScenario } from '../../scripts/scenario';
import { artilleryEngineInstalled, checkScriptFiles, engineProblems, referencedFunctions, scriptInputFiles, weightProblem } from '../../scripts/script-check';

const SCENARIOS = path.join(__dirname, '..', '..', 'load-generators', 'scenarios');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-check-'));
fs.writeFileSync(path.join(dir, 'proc.js'), 'module.exports = { setUp(c, e, d) { d(); }, connectFn(p, c, n) { n(); }, notAFunction: 3 };\n');
fs.writeFileSync(path.join(dir, 'throws.js'), "throw new TypeError('boom at load');\n");
fs.writeFileSync(path.join(dir, 'rows.csv'), 'a,b\n1,2\n');
// A processor that keeps a timer and a server open from load time (a pool, a metrics loop) still checks at once.
fs.writeFileSync(path.join(dir, 'busy.js'), "setInterval(() => {}, 1000); require('node:net').createServer().listen(0, '127.0.0.1');\nmodule.exports = { f(c, e, d) { d(); } };\n");

function write(name: string, body: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, body);
  return file;
}
const check = (file: string) => () => checkScriptFiles(loadScenario(file, SCENARIOS));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('checkScriptFiles', () => {
  test('every function named by a step, a hook or a ws connect is found, with where', () => {
    const s = loadScenario(
      write(
        'refs.yml',
        `config: { target: "http://x", processor: ./proc.js }
before: { flow: [ { function: beforeAll } ] }
scenarios:
  - name: main
    beforeScenario: setUp
    flow:
      - connect: { function: connectFn }
      - get: { url: /, beforeRequest: [signIt] }
      - loop:
          - function: inLoop
        count: 2
`,
      ),
      SCENARIOS,
    );
    expect(referencedFunctions(s.script)).toEqual([
      { name: 'beforeAll', where: 'before step 1 (function)' },
      { name: 'setUp', where: 'scenario "main" (beforeScenario)' },
      { name: 'connectFn', where: 'scenario "main" step 1 (connect.function)' },
      { name: 'signIt', where: 'scenario "main" step 2 (get.beforeRequest)' },
      { name: 'inLoop', where: 'scenario "main" step 3 loop step 1 (function)' },
    ]);
  });

  test('functions the processor does not export are each reported, with the step and the exports', () => {
    const file = write('missing-fn.yml', 'config: { target: "http://x", processor: ./proc.js }\nscenarios:\n  - name: s\n    flow:\n      - function: setUp\n      - function: nope\n      - function: notAFunction\n');
    expect(check(file)).toThrow(UsageError);
    expect(check(file)).toThrow(/step 2 \(function\): function "nope" is not exported by .*proc\.js \(exports: setUp, connectFn\); scenario "s" step 3 \(function\): function "notAFunction"/);
  });

  test('a processor that prints at load time (a console.log) is checked all the same (was: "fails to load: Unexpected token")', () => {
    write('noisy.js', 'console.log("processor loaded {");\nmodule.exports = { f(c, e, d) { d(); } };\n');
    expect(check(write('noisy.yml', 'config: { target: "http://x", processor: ./noisy.js }\nscenarios:\n  - flow: [ { function: f } ]\n'))).not.toThrow();
  });

  test('a processor that prints hundreds of KB at load time, on stdout and stderr, is checked all the same, every time (the answer was lost with the queued output)', () => {
    write('very-noisy.js', "for (let i = 0; i < 3000; i++) { console.log('load-time noise ' + i + ' ' + 'y'.repeat(80)); console.error('warn ' + i); }\nmodule.exports = { setX(c, e, d) { d(); } };\n");
    const file = write('very-noisy.yml', 'config: { target: "http://x", processor: ./very-noisy.js }\nscenarios:\n  - flow: [ { function: setX } ]\n');
    for (let i = 0; i < 3; i++) expect(check(file)).not.toThrow();
    // And the check leaves nothing behind in the temporary folder: none of this process's probe folders (the
    // folder also holds those of suites running on the other jest worker at the same moment: a CI run once failed
    // on one of theirs).
    expect(fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`rig-processor-probe-${process.pid}-`))).toEqual([]);
  });

  test('a processor that is one function (module.exports = fn) is `function: default`, as Artillery loads it', () => {
    write('fn-export.js', 'module.exports = function (c, e, d) { c.vars.x = 1; d(); };\n');
    expect(check(write('fn-default.yml', 'config: { target: "http://x", processor: ./fn-export.js }\nscenarios:\n  - flow: [ { function: default } ]\n'))).not.toThrow();
    expect(check(write('fn-other.yml', 'config: { target: "http://x", processor: ./fn-export.js }\nscenarios:\n  - flow: [ { function: other } ]\n'))).toThrow(/function "other" is not exported by .*fn-export\.js \(exports: default\)/);
  });

  test("an ES-module processor is read as Artillery import()s it: default export's functions, named ones, top-level await (was refused)", () => {
    write('esm.mjs', 'await Promise.resolve();\nexport default { fromDefault(c, e, d) { d(); } };\nexport function named(c, e, d) { d(); }\n');
    expect(check(write('esm.yml', 'config: { target: "http://x", processor: ./esm.mjs }\nscenarios:\n  - flow: [ { function: fromDefault }, { function: named } ]\n'))).not.toThrow();
    expect(check(write('esm-missing.yml', 'config: { target: "http://x", processor: ./esm.mjs }\nscenarios:\n  - flow: [ { function: other } ]\n'))).toThrow(/function "other" is not exported by .*esm\.mjs \(exports: fromDefault, named\)/);
  });

  test('a processor path is resolved as Artillery resolves it: without its extension, or a folder with an index.js (was "no such file" / "a folder")', () => {
    expect(check(write('no-ext.yml', 'config: { target: "http://x", processor: ./proc }\nscenarios:\n  - flow: [ { function: setUp } ]\n'))).not.toThrow();
    fs.mkdirSync(path.join(dir, 'procdir'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'procdir', 'index.js'), 'module.exports = { fromIndex(c, e, d) { d(); } };\n');
    expect(check(write('dir-index.yml', 'config: { target: "http://x", processor: ./procdir }\nscenarios:\n  - flow: [ { function: fromIndex } ]\n'))).not.toThrow();
    expect(scriptInputFiles(loadScenario(path.join(dir, 'no-ext.yml'), SCENARIOS))).toContain(path.join(dir, 'proc.js'));
  });

  test('a processor or payload path that names a folder says so (not "no such file" or a module error)', () => {
    fs.mkdirSync(path.join(dir, 'a-folder.js'), { recursive: true });
    expect(check(write('dir-proc.yml', 'config: { target: "http://x", processor: ./a-folder.js }\nscenarios:\n  - flow: [ { function: f } ]\n'))).toThrow(/config\.processor \.\/a-folder\.js: a folder, not a file/);
    expect(check(write('dir-payload.yml', 'config: { target: "http://x", payload: { path: ./a-folder.js, fields: [a] } }\nscenarios:\n  - flow: []\n'))).toThrow(/config\.payload\.path \.\/a-folder\.js: a folder, not a file/);
  });

  test('a processor that is missing or throws while loading is named with the reason', () => {
    expect(check(write('no-proc.yml', 'config: { target: "http://x", processor: ./gone.js }\nscenarios:\n  - flow: [ { function: f } ]\n'))).toThrow(/config\.processor \.\/gone\.js: no such file/);
    expect(check(write('bad-proc.yml', 'config: { target: "http://x", processor: ./throws.js }\nscenarios:\n  - flow: [ { function: f } ]\n'))).toThrow(/throws\.js fails to load: TypeError: boom at load/);
  });

  test("paths in the refusal are as the script writes them, and absolute where a file was looked for; never relative to the rig's folder", () => {
    const message = (file: string) => {
      try {
        check(file)();
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    };
    const abs = (f: string) => path.join(dir, f).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(message(write('bad-proc-w.yml', 'config: { target: "http://x", processor: ./throws.js }\nscenarios:\n  - flow: [ { function: f } ]\n'))).toMatch(/: config\.processor \.\/throws\.js fails to load: TypeError: boom at load$/);
    expect(message(write('no-proc-w.yml', 'config: { target: "http://x", processor: ./gone.js }\nscenarios:\n  - flow: [ { function: f } ]\n'))).toMatch(new RegExp(`config\\.processor \\./gone\\.js: no such file \\(${abs('gone.js')}\\)`));
    expect(message(write('nope-fn-w.yml', 'config: { target: "http://x", processor: ./proc.js }\nscenarios:\n  - flow: [ { function: nope } ]\n'))).toMatch(/function "nope" is not exported by \.\/proc\.js \(exports/);
    expect(message(write('pay-w.yml', 'config: { target: "http://x", payload: { path: ./nope.csv } }\nscenarios:\n  - flow: []\n'))).toMatch(new RegExp(`no such file \\(${abs('nope.csv')}\\)`));
  });

  test('a processor that keeps timers or servers open from load time is checked without waiting for it', () => {
    const started = Date.now();
    expect(check(write('busy.yml', 'config: { target: "http://x", processor: ./busy.js }\nscenarios:\n  - flow: [ { function: f } ]\n'))).not.toThrow();
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test('a function step without any processor is refused', () => {
    expect(check(write('no-processor.yml', 'config: { target: "http://x" }\nscenarios:\n  - flow: [ { function: f } ]\n'))).toThrow(/names function "f" but the script has no config\.processor/);
  });

  test('payload files must exist (single or list)', () => {
    expect(check(write('pay.yml', 'config: { target: "http://x", payload: [ { path: ./rows.csv }, { path: ./nope.csv } ] }\nscenarios:\n  - flow: []\n'))).toThrow(/config\.payload\[1\]\.path \.\/nope\.csv: no such file/);
    expect(check(write('pay-ok.yml', 'config: { target: "http://x", payload: { path: ./rows.csv, fields: [a, b] } }\nscenarios:\n  - flow: []\n'))).not.toThrow();
  });

  test('every built-in scenario passes', () => {
    for (const name of ['connect', 'pubsub', 'presence', 'broadcast', 'rooms', 'recovery']) {
      expect(() => checkScriptFiles(loadScenario(name, SCENARIOS))).not.toThrow();
    }
  });
});

describe('engines Artillery would not find (runner.js: built in http, ws, socketio; others need config.engines and artillery-engine-<name>)', () => {
  const script = (config: Record<string, unknown>, scenarios: unknown[], extra: Record<string, unknown> = {}) =>
    ({ config: { target: 'http://x', ...config }, scenarios, ...extra }) as Parameters<typeof engineProblems>[0];
  const installed = (name: string) => name === 'playwright' || name === 'custom';

  test('the built-in engines, and an installed engine listed in config.engines, pass', () => {
    expect(engineProblems(script({}, [{ flow: [] }, { engine: 'ws', flow: [] }, { engine: 'socketio', flow: [] }]), installed)).toEqual([]);
    expect(engineProblems(script({ engines: { playwright: {} } }, [{ engine: 'playwright', flow: [] }]), installed)).toEqual([]);
  });

  test('an engine that is not installed is named with the scenario and the fix', () => {
    expect(engineProblems(script({}, [{ name: 'k', engine: 'kafka', flow: [] }]), installed)).toEqual([
      'scenario "k" uses engine "kafka", which is not installed (no artillery-engine-kafka); install it (npm install artillery-engine-kafka) or fix the name (built in: http, ws, socketio, playwright)',
    ]);
  });

  test('config.engine is every scenario\'s default; an installed engine missing from config.engines is named', () => {
    expect(engineProblems(script({ engine: 'custom' }, [{ flow: [] }, { flow: [] }]), installed)).toEqual([
      'scenario 1, scenario 2 uses engine "custom" but config.engines has no "custom" entry; add config.engines.custom: {} as Artillery requires',
    ]);
  });

  test('before/after sections run on http unless they say otherwise', () => {
    expect(engineProblems(script({ engine: 'kafka' }, [{ engine: 'ws', flow: [] }], { before: { flow: [] } }), installed)).toEqual([]);
    expect(engineProblems(script({}, [{ flow: [] }], { after: { engine: 'nope', flow: [] } }), installed)[0]).toMatch(/^after uses engine "nope"/);
  });

  test('resolution as Artillery does it: the bundled playwright engine is found, an absent one is not', () => {
    expect(artilleryEngineInstalled('playwright')).toBe(true);
    expect(artilleryEngineInstalled('kafka-not-installed')).toBe(false);
  });

  test('checkScriptFiles refuses a script whose engine is missing (bad input, not a lost generator)', () => {
    expect(check(write('kafka.yml', 'config: { target: "http://x" }\nscenarios:\n  - engine: kafka\n    flow: []\n'))).toThrow(/kafka\.yml: scenario 1 uses engine "kafka", which is not installed/);
  });
});

describe('weights Artillery can pick from (runner.js parseInt, weighted-pick.js weight × 100 slots)', () => {
  const script = (weights: unknown[]) => ({ config: { target: 'http://x' }, scenarios: weights.map((weight) => (weight === 'absent' ? { flow: [] } : { weight, flow: [] })) }) as Parameters<typeof weightProblem>[0];
  test('refused when every weight is 0 or less (plain Artillery crashes at its first vuser)', () => {
    expect(weightProblem(script([0]))).toMatch(/^every scenario has a weight of 0 or less \(0\), so Artillery can pick none; give at least one/);
    expect(weightProblem(script([0, -2, 'heavy']))).toMatch(/\(0, -2, 0\)/);
    expect(check(write('w0.yml', 'config: { target: "http://x" }\nscenarios:\n  - weight: 0\n    flow: []\n'))).toThrow(/w0\.yml: every scenario has a weight of 0 or less/);
  });
  test('one positive, absent (1) or templated weight is enough', () => {
    expect(weightProblem(script([0, 1]))).toBeUndefined();
    expect(weightProblem(script([0, 'absent']))).toBeUndefined();
    expect(weightProblem(script([0, '{{ w }}']))).toBeUndefined();
    expect(weightProblem(script(['3']))).toBeUndefined();
  });
});
