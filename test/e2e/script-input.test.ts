/**
 * A user's script and its inputs are checked before anything starts (issue 14's scenario-loading
 * class): each case exits 2 with one error line naming the file, the step or the flag and the fix, no
 * run folder is left and no target or generator was started (the error comes before the platform line).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers/cli';

const scratch = tempDir('rig-script-input-');
const write = (name: string, body: string) => {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, body);
  return file;
};
write('proc.js', 'module.exports = { hello(ctx, ee, done) { done(); } };\n');
const phases = '  phases: [ { duration: 1, arrivalCount: 1 } ]\n';
const target = '  target: "http://127.0.0.1:9"\n';

const cases: Array<{ name: string; args: string[]; mentions: RegExp }> = [
  {
    name: 'processor file missing',
    args: ['--scenario', write('no-proc.yml', `config:\n${target}${phases}  processor: ./gone.js\nscenarios:\n  - flow: [ { function: hello } ]\n`)],
    mentions: /no-proc\.yml: config\.processor \.\/gone\.js: no such file/,
  },
  {
    name: 'function step the processor does not export',
    args: ['--scenario', write('no-fn.yml', `config:\n${target}${phases}  processor: ./proc.js\nscenarios:\n  - name: main\n    flow:\n      - function: hello\n      - function: helo\n`)],
    mentions: /scenario "main" step 2 \(function\): function "helo" is not exported by .*proc\.js \(exports: hello\)/,
  },
  {
    name: 'payload file missing',
    args: ['--scenario', write('no-payload.yml', `config:\n${target}${phases}  payload: { path: ./users.csv, fields: [u] }\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /config\.payload\.path \.\/users\.csv: no such file/,
  },
  { name: '--var hold=abc on a scenario that uses hold as a number', args: ['--var', 'hold=abc'], mentions: /--var hold=abc: the connect scenario needs a number of at least 0 for hold; e\.g\. --var hold=1$/m },
  { name: '--ensure that does not parse', args: ['--ensure', 'vusers.failed =='], mentions: /--ensure "vusers\.failed ==" is not a valid ensure expression/ },
  {
    name: "script ensure condition that does not parse",
    args: ['--scenario', write('bad-ensure.yml', `config:\n${target}${phases}  plugins: { ensure: {} }\n  ensure: { conditions: [ { expression: "http.codes.200 >" } ] }\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /config\.ensure "http\.codes\.200 >" is not a valid ensure expression/,
  },
  {
    name: 'script without a target',
    args: ['--scenario', write('no-target.yml', `config:\n${phases}scenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /no-target\.yml has no config\.target; add one, pick an environment with -e NAME, pass --target URL/,
  },
  {
    name: 'an engine Artillery would not find (every load process would die at its first vuser)',
    args: ['--scenario', write('kafka.yml', `config:\n${target}${phases}scenarios:\n  - name: k\n    engine: kafka\n    flow: []\n`)],
    mentions: /kafka\.yml: scenario "k" uses engine "kafka", which is not installed \(no artillery-engine-kafka\); install it/,
  },
  {
    name: 'a fractional arrivalRate (Artillery asserts on its split)',
    args: ['--scenario', write('frac.yml', `config:\n${target}  phases: [ { duration: 2, arrivalRate: 1.5 } ]\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /frac\.yml: config\.phases\[0\]\.arrivalRate must be a whole number \(got 1\.5\).*arrivalCount: 3/,
  },
  {
    name: 'every scenario at weight 0',
    args: ['--scenario', write('w0.yml', `config:\n${target}${phases}scenarios:\n  - weight: 0\n    flow: [ { get: { url: / } } ]\n`)],
    mentions: /w0\.yml: every scenario has a weight of 0 or less \(0\)/,
  },
  {
    name: 'a processor path that is a folder',
    args: ['--scenario', write('dir-proc.yml', `config:\n${target}${phases}  processor: ./\nscenarios:\n  - flow: [ { function: hello } ]\n`)],
    mentions: /config\.processor \.\/: a folder, not a file/,
  },
  // Artillery's own script check (validate-script), run before anything starts: each was a load process that ended
  // before the start (exit 3, the reason only in its log), a flow that is not a list an agent's stack trace.
  {
    name: 'a scenario without a flow (Artillery\'s script check)',
    args: ['--scenario', write('noflow.yml', `config:\n${target}${phases}scenarios:\n  - name: noflow\n`)],
    mentions: /noflow\.yml: "scenarios\[0\]\.flow" is required \(Artillery's script check: `artillery run` stops on it with "Scenario validation error"\); fix the script/,
  },
  {
    name: 'a flow that is a string, not a list',
    args: ['--scenario', write('flow-string.yml', `config:\n${target}${phases}scenarios:\n  - flow: "get /p/x"\n`)],
    mentions: /flow-string\.yml: "scenarios\[0\]\.flow" must be an array/,
  },
  {
    name: 'a get step with uri instead of url',
    args: ['--scenario', write('uri.yml', `config:\n${target}${phases}scenarios:\n  - flow: [ { get: { uri: / } } ]\n`)],
    mentions: /uri\.yml: "scenarios\[0\]\.flow\[0\]\.get\.url" is required/,
  },
  {
    name: 'a step with two actions (think indented under the get)',
    args: ['--scenario', write('two-keys.yml', `config:\n${target}${phases}scenarios:\n  - flow:\n      - get: { url: / }\n        think: 1\n`)],
    mentions: /two-keys\.yml: "scenarios\[0\]\.flow\[0\]" must have 1 key/,
  },
  {
    name: 'a phase that is null (Artillery\'s schema takes it, then throws a TypeError)',
    args: ['--scenario', write('null-phase.yml', `config:\n${target}  phases: [ null ]\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /null-phase\.yml: config\.phases\[0\] is null, not a phase; each phase is a mapping/,
  },
  {
    name: 'a duration with a space after it (Artillery: "Invalid duration for phase: 2s ")',
    args: ['--scenario', write('space.yml', `config:\n${target}  phases: [ { duration: "2s ", arrivalRate: 1 } ]\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /config\.phases\[0\]\.duration: "2s " has a space before or after it, which artillery run refuses .*write "2s"/,
  },
  {
    name: 'the same with --ramp (the stretch does not hide it)',
    args: ['--ramp', '6s', '--scenario', write('space-ramp.yml', `config:\n${target}  phases: [ { duration: 1, arrivalRate: 1 }, { pause: "1s " } ]\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /config\.phases\[1\]\.pause: "1s " has a space before or after it/,
  },
  {
    name: 'a YAML script named .txt (artillery run: "Unknown file type")',
    args: ['--scenario', write('basic.txt', `config:\n${target}${phases}scenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /basic\.txt: unknown file type "\.txt"; name an Artillery script \.yml, \.yaml, \.json or \.js \(artillery run also takes \.ts\)/,
  },
  {
    name: 'a .txt name without a folder is a file too, not a built-in name (the CLI runs from the repository)',
    args: ['--scenario', 'basic.txt'],
    mentions: /--scenario \S*basic\.txt: no such file/,
  },
  {
    name: 'a TypeScript test script (export const config …)',
    args: ['--scenario', write('my.ts', `export const config = { target: "http://127.0.0.1:9", phases: [ { duration: 1, arrivalCount: 1 } ] };\nexport const scenarios = [ { flow: [ { get: { url: "/" } } ] } ];\n`)],
    mentions: /my\.ts: a test script in TypeScript .* the rig does not run one yet; write it as YAML, JSON or a CommonJS \.js module/,
  },
  {
    name: 'a .mjs test script (artillery run: "Unknown file type" too)',
    args: ['--scenario', write('my.mjs', `export const config = { target: "http://127.0.0.1:9" };\nexport const scenarios = [ { flow: [ { get: { url: "/" } } ] } ];\n`)],
    mentions: /my\.mjs: unknown file type "\.mjs" \(artillery run refuses \.mjs too: rename it \.js\); name an Artillery script \.yml, \.yaml, \.json or \.js/,
  },
  {
    name: 'a .js test script with a function in it (its load processes run a JSON copy)',
    args: ['--scenario', write('fn.js', `module.exports = { config: { target: "http://127.0.0.1:9", variables: { now: () => 1 } }, scenarios: [ { flow: [ { get: { url: "/" } } ] } ] };\n`)],
    mentions: /fn\.js: config\.variables\.now is a function, which the rig cannot send to its load processes .*put functions in config\.processor/,
  },
  // Plain artillery run stops on these with an AssertionError (NaN === NaN), runs a negative duration without end, or
  // skips the phase ("Unknown phase spec definition"): the rig names the file, the phase (index and name) and the fix.
  {
    name: 'an arrivalRate that is a word, in a named phase (plain: AssertionError NaN === NaN)',
    args: ['--scenario', write('word-rate.yml', `config:\n${target}  phases: [ { duration: 1, arrivalRate: 1 }, { name: warm, duration: 2, arrivalRate: fast } ]\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /^error: word-rate\.yml: config\.phases\[1\] \("warm"\)\.arrivalRate must be a finite number \(got "fast"\); write a number, e\.g\. arrivalRate: 10 \(vusers a second\)$/m,
  },
  {
    name: 'a negative duration (plain: runs the phase without end)',
    args: ['--scenario', write('neg-duration.yml', `config:\n${target}  phases: [ { duration: -5, arrivalRate: 1 } ]\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /^error: neg-duration\.yml: config\.phases\[0\]\.duration must be longer than zero \(got -5\); write seconds or a duration, e\.g\. duration: 60 or "10m"$/m,
  },
  {
    name: 'a phase with neither a duration nor arrivals (plain: "Unknown phase spec definition, skipping")',
    args: ['--scenario', write('empty-phase.yml', `config:\n${target}  phases: [ { duration: 1, arrivalRate: 1 }, { name: later } ]\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /^error: empty-phase\.yml: config\.phases\[1\] \("later"\) has none of arrivalRate, rampTo, arrivalCount or pause, so it would create no vusers; add one/m,
  },
  {
    name: 'arrivals without a duration',
    args: ['--scenario', write('no-duration.yml', `config:\n${target}  phases: [ { rampTo: 5 } ]\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /^error: no-duration\.yml: config\.phases\[0\]\.duration is required with rampTo; add one, e\.g\. duration: 60 \(seconds\) or "10m"$/m,
  },
  {
    name: 'a bad phase found while --ramp stretches the phases names the file too',
    args: ['--ramp', '6s', '--scenario', write('ramp-word.yml', `config:\n${target}  phases: [ { duration: soon, arrivalRate: 1 } ]\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /^error: ramp-word\.yml: config\.phases\[0\]\.duration: "soon" is not a valid duration/m,
  },
  {
    name: 'phases that create no vusers at all (arrivalCount: 0)',
    args: ['--scenario', write('zero-count.yml', `config:\n${target}  phases: [ { duration: 2, arrivalCount: 0 } ]\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /zero-count\.yml: the phases create no vusers \(every one is a pause or has 0 arrivals\), so the run would test nothing/,
  },
  {
    name: 'phases that create no vusers at all (arrivalRate: 0, a pause)',
    args: ['--scenario', write('zero-rate.yml', `config:\n${target}  phases: [ { duration: 2, arrivalRate: 0 }, { pause: 1 } ]\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /the phases create no vusers/,
  },
  {
    name: '-e naming an environment the script lacks',
    args: ['-e', 'prod', '--scenario', write('envs.yml', `config:\n${target}${phases}  environments: { staging: { target: "http://127.0.0.1:8" } }\nscenarios:\n  - flow: [ { get: { url: / } } ]\n`)],
    mentions: /-e prod: envs\.yml has no config\.environments\.prod; use one of staging/,
  },
];

describe("the script and its inputs are checked before anything starts", () => {
  it.each(cases)('$name → exit 2, one line, nothing started', async (c) => {
    const out = path.join(scratch, `run-${c.name.replace(/\W+/g, '-')}`);
    const r = await runCli([...c.args, '--platform', 'local', '--out', out], { timeoutMs: 30_000 });
    expect(r.code).toBe(2);
    const errorLines = r.stderr.split('\n').filter((l) => /^error/.test(l));
    expect(errorLines).toHaveLength(1);
    expect(errorLines[0]).toMatch(c.mentions);
    const progress = r.stderr.split('\n').filter((l) => !/^error/.test(l)).join('\n');
    expect(progress).not.toMatch(/platform: local|launching|reference target/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(fs.existsSync(out)).toBe(false);
  });
});
