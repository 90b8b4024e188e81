/**
 * Artillery resolves `{{ $env.NAME }}` / `{{ $processEnvironment.NAME }}` in a script's config before it reads the
 * phases, the processor or the payloads (util.ts resolveConfigTemplates): `artillery run` with DUR=2 RATE=2 runs
 * `duration: "{{ $env.DUR }}", arrivalRate: "{{ $processEnvironment.RATE }}"` as 2 s at 2/s. The rig refused it
 * ("arrivalRate must be a finite number") and a templated processor or payload path ("no such file").
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveConfigEnv, resolveKnownTemplates, resolveScriptPlace, withScriptPlaceVariables } from '../../scripts/config-env';
import { UsageError } from '../../scripts/errors';
import { validateFlags } from '../../scripts/options';
import { prepareRunInput } from '../../scripts/run-input';

const root = path.resolve(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-config-env-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'proc.js'), 'module.exports = { hello(c, e, d) { d(); } };\n');
fs.writeFileSync(path.join(dir, 'users.csv'), 'name\nada\nbob\n');
const script = path.join(dir, 'env.yml');
fs.writeFileSync(
  script,
  [
    'config:',
    '  target: http://127.0.0.1:9',
    '  processor: "./{{ $env.PROC }}"',
    '  payload: { path: "{{ $processEnvironment.PAYFILE }}", fields: [name] }',
    '  variables: { apiKey: "{{ $env.API_KEY }}" }',
    '  phases:',
    '    - { duration: "{{ $env.DUR }}", arrivalRate: "{{ $processEnvironment.RATE }}", name: "warm {{ $env.DUR }}s" }',
    'scenarios:',
    '  - flow: [ { function: hello }, { get: { url: "/{{ name }}" } } ]',
    '',
  ].join('\n'),
);

describe('environment templates in phases, processor and payload paths', () => {
  test('resolved from this machine\'s environment before the checks, as Artillery does; the rest of the config keeps its templates', () => {
    const env = { PROC: 'proc.js', PAYFILE: 'users.csv', DUR: '2', RATE: '2' };
    const input = prepareRunInput(validateFlags({ scenario: script }), root, env);
    expect(input.script.config.phases).toEqual([{ duration: '2', arrivalRate: 2, name: 'warm 2s' }]);
    expect(input.script.config.processor).toBe('./proc.js');
    expect(input.script.config.payload).toEqual({ path: 'users.csv', fields: ['name'] });
    // A value the vusers read stays Artillery's to resolve (and the AWS check still sees it).
    expect(input.script.config.variables).toEqual({ apiKey: '{{ $env.API_KEY }}' });
  });

  test('an unset variable is bad input naming where it is read; other templates are left as they were', () => {
    expect(() => prepareRunInput(validateFlags({ scenario: script }), root, { PROC: 'proc.js', PAYFILE: 'users.csv', DUR: '2' })).toThrow(
      new UsageError(`env.yml: config.phases[0].arrivalRate reads the environment variable RATE ({{ $processEnvironment.RATE }}), which is not set; export it and run again`),
    );
    expect(resolveConfigEnv({ phases: [{ duration: '{{ dur }}' }], processor: './p.js' }, {}, 's.yml')).toEqual({ phases: [{ duration: '{{ dur }}' }], processor: './p.js' });
    expect(resolveConfigEnv({ payload: [{ path: '{{ $env.A }}.csv' }, { path: 'b.csv' }] }, { A: 'a' }, 's.yml')).toEqual({ payload: [{ path: 'a.csv' }, { path: 'b.csv' }] });
  });
});

describe('--var, $dirname and $scenarioFile in config templates (artillery run -v resolves them before the run)', () => {
  const varScript = path.join(dir, 'vars.yml');
  fs.writeFileSync(
    varScript,
    [
      'config:',
      '  target: "http://127.0.0.1:{{ port }}"',
      '  processor: "{{ $dirname }}/proc.js"',
      '  payload: { path: "{{ $dirname }}/users.csv", fields: [name] }',
      '  variables: { greet: "hi {{ who }}", at: "{{ $scenarioFile }}", later: "{{ token }}" }',
      '  phases: [ { duration: 1, arrivalCount: "{{ n }}" } ]',
      'scenarios:',
      '  - flow: [ { function: hello }, { get: { url: "/{{ greet }}" } } ]',
      '',
    ].join('\n'),
  );

  test('resolved in every config value, numbers kept; other templates left for Artillery; no "never mentions" note for them', () => {
    const input = prepareRunInput(validateFlags({ scenario: varScript, var: ['port=4100', 'n=3', 'who=zed'] }), root, {});
    expect(input.options.target).toBe('http://127.0.0.1:4100');
    expect(input.script.config.phases).toEqual([{ duration: 1, arrivalCount: 3 }]);
    // Paths the rig checks and ships are relative to the script's folder; elsewhere the agent resolves $dirname.
    expect(input.script.config.processor).toBe('./proc.js');
    expect(input.script.config.payload).toEqual({ path: './users.csv', fields: ['name'] });
    expect(input.script.config.variables).toMatchObject({ greet: 'hi zed', at: '{{ $dirname }}/vars.yml', later: '{{ token }}', port: 4100, n: 3, who: 'zed' });
    expect(input.notes.join('\n')).not.toMatch(/never mentions/);
  });

  test('a phase template no flag sets is bad input naming the --var to pass', () => {
    expect(() => prepareRunInput(validateFlags({ scenario: varScript, var: ['port=4100'] }), root, {})).toThrow(
      new UsageError(`vars.yml: config.phases[0].arrivalCount is "{{ n }}", which is not known before the run; pass --var n=VALUE (as artillery run -v '{"n": …}' sets it), use {{ $env.NAME }} with NAME exported, or write the value`),
    );
  });

  test('--vusers replaces the phases, so their templates are not refused (a regression: --vusers 10 was refused); --hold is known as hold', () => {
    const input = prepareRunInput(validateFlags({ scenario: varScript, var: ['port=4100'], vusers: '10' }), root, {});
    expect(input.script.config.phases).toEqual([expect.objectContaining({ arrivalCount: 10 })]);
    const holdScript = path.join(dir, 'hold.yml');
    fs.writeFileSync(holdScript, 'config:\n  target: "http://127.0.0.1:9"\n  phases: [ { duration: "{{ hold }}", arrivalRate: 1 } ]\nscenarios:\n  - flow: [ { think: 1 } ]\n');
    expect(prepareRunInput(validateFlags({ scenario: holdScript, hold: '5s' }), root, {}).script.config.phases).toEqual([{ duration: 5, arrivalRate: 1 }]);
  });

  test('{{{ $dirname }}} (three braces, as renderVariables reads them) is the script\'s folder too, here and in the agent', () => {
    expect(resolveScriptPlace({ processor: '{{{ $dirname }}}/proc.js', variables: { at: '{{{$scenarioFile}}}' } }, 's.yml')).toEqual({ processor: './proc.js', variables: { at: '{{ $dirname }}/s.yml' } });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { resolveScriptPaths } = require('../../load-generators/lib/agent-slice') as { resolveScriptPaths: (s: { config: Record<string, unknown> }, dir: string) => void };
    const onGenerator = { config: { variables: { a: '{{{ $dirname }}}/x', b: '{{ $dirname }}/y' } } };
    resolveScriptPaths(onGenerator, '/srv/script');
    expect(onGenerator.config.variables).toEqual({ a: '/srv/script/x', b: '/srv/script/y' });
  });

  test('the vusers\' $dirname and $scenarioFile are the script\'s on the generator (runner.ts gives them to every vuser); a variable of the script\'s own of that name wins', () => {
    const placed = withScriptPlaceVariables({ variables: { a: 1 } }, 'my.yml');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { resolveScriptPaths } = require('../../load-generators/lib/agent-slice') as { resolveScriptPaths: (s: { config: Record<string, unknown> }, dir: string) => void };
    const onGenerator = { config: placed as Record<string, unknown> };
    resolveScriptPaths(onGenerator, '/srv/script');
    expect(onGenerator.config.variables).toEqual({ $dirname: '/srv/script', $scenarioFile: '/srv/script/my.yml', a: 1 });
    expect(withScriptPlaceVariables({ variables: { $dirname: 'mine' } }, 'my.yml').variables).toEqual({ $dirname: 'mine', $scenarioFile: '{{ $dirname }}/my.yml' });
  }, 10_000);

  test('as renderVariables: one template alone keeps its type, in text an object is JSON, a path reads into it', () => {
    const used = new Set<string>();
    expect(resolveKnownTemplates({ a: '{{ n }}', b: 'x{{ o }}', c: '{{ o.k }}/{{ other }}', d: ['{{{ n }}}'] }, { n: 3, o: { k: 'v' } }, used)).toEqual({ a: 3, b: 'x{"k":"v"}', c: 'v/{{ other }}', d: [3] });
    expect([...used].sort()).toEqual(['n', 'o']);
  });

  // Plain `artillery run -v '{"a":1,"b":"{{ a }}"}'` on this script requested /v?a=1&b=1&k=5; the rig refused
  // `--var b={{ a }}` as JSON that does not parse, and with it taken as text its vusers saw b and k undefined.
  test("--var b={{ a }} is b = 1 beside --var a=1, and a key of config.variables is resolved too, as artillery run -v does", () => {
    const script = path.join(dir, 'var-of-var.yml');
    fs.writeFileSync(script, 'config:\n  target: "http://127.0.0.1:9"\n  phases: [ { duration: 1, arrivalCount: 1 } ]\n  variables:\n    "{{ a }}key": 5\nscenarios:\n  - flow: [ { get: { url: "/v?a={{ a }}&b={{ b }}&k={{ 1key }}" } } ]\n');
    const input = prepareRunInput(validateFlags({ scenario: script, var: ['a=1', 'b={{ a }}'] }), root, {});
    expect(input.script.config.variables).toEqual({ '1key': 5, a: 1, b: 1 });
    expect(input.notes.join('\n')).not.toMatch(/never mentions/);
    // Two braces are never JSON: `{{ a }}` is text, as -v gives it; `{a:1}` is still refused as JSON that does not parse.
    expect(validateFlags({ var: ['b={{ a }}'] }).vars).toEqual({ b: '{{ a }}' });
    expect(() => validateFlags({ var: ['o={a:1}'] })).toThrow(/starts with \{ so it is read as JSON/);
  });
});
