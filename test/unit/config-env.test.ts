/**
 * Artillery resolves `{{ $env.NAME }}` / `{{ $processEnvironment.NAME }}` in a script's config before it reads the
 * phases, the processor or the payloads (util.ts resolveConfigTemplates): `artillery run` with DUR=2 RATE=2 runs
 * `duration: "{{ $env.DUR }}", arrivalRate: "{{ $processEnvironment.RATE }}"` as 2 s at 2/s. The rig refused it
 * ("arrivalRate must be a finite number") and a templated processor or payload path ("no such file").
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveConfigEnv } from '../../scripts/config-env';
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
