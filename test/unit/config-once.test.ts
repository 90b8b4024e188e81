/**
 * What one plain `artillery run` resolves once in a script's config, before its workers start (util.ts
 * resolveConfigTemplates): `{{ $testId }}` (the run's id, drawn before the config is resolved) and the function calls
 * `{{ $randomString() }}` / `{{ $randomNumber(a, b) }}`. The rig refused `{{ $testId }}` in `config.target` ("cannot
 * resolve before the run") and refused a function call there too, and each load process (its own `artillery run`)
 * drew its own value of a function call elsewhere in config: one run had one `room` per load process. `--target URL`
 * with templates (resolved by `artillery run -t` too) was printed and probed with its braces.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveConfigFunctions } from '../../scripts/config-env';
import { UsageError } from '../../scripts/errors';
import { validateFlags } from '../../scripts/options';
import { prepareRunInput } from '../../scripts/run-input';

const root = path.resolve(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-config-once-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
function script(name: string, config: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `config:\n${config}\n  phases: [{ duration: 1, arrivalCount: 1 }]\nscenarios:\n  - flow: [{ get: { url: "/{{ room }}" } }]\n`);
  return file;
}

describe('{{ $testId }} in config: the run\'s one id, as artillery run resolves it', () => {
  const tagged = script('tagged.yml', '  target: "http://127.0.0.1:9/t-{{ $testId }}"\n  variables: { room: "r-{{ $testId }}" }');

  test('in config.target (it was refused) and config.variables: the id the run hands every load process', () => {
    const input = prepareRunInput(validateFlags({ scenario: tagged }), root, {}, '20261127-004306-0d51');
    expect(input.options.target).toBe('http://127.0.0.1:9/t-20261127-004306-0d51');
    expect(input.targetLine).toBe('target: http://127.0.0.1:9/t-20261127-004306-0d51 (config.target of tagged.yml; --target URL overrides it)');
    expect(input.script.config.variables).toMatchObject({ room: 'r-20261127-004306-0d51' });
  });

  test('from -e NAME\'s target too', () => {
    const envs = script('envs.yml', '  target: http://127.0.0.1:9\n  environments:\n    ci: { target: "ws://127.0.0.1:9/{{ $testId }}/feed" }');
    expect(prepareRunInput(validateFlags({ scenario: envs, environment: 'ci' }), root, { ARTILLERY_TEST_RUN_ID: 'ci-42' }, 'unused').options.target).toBe('ws://127.0.0.1:9/ci-42/feed');
  });

  test('--target URL too, with --var values, as artillery run -t resolves it (the flag was probed and printed with its braces)', () => {
    const input = prepareRunInput(validateFlags({ scenario: tagged, target: 'http://127.0.0.1:{{ port }}/f-{{ $testId }}', var: ['port=8080'] }), root, {}, 'id-7');
    expect(input.options.target).toBe('http://127.0.0.1:8080/f-id-7');
    expect(input.targetLine).toBe('target: http://127.0.0.1:8080/f-id-7 (--target)');
    expect(input.notes.filter((n) => n.includes('--var port'))).toEqual([]);
    expect(() => prepareRunInput(validateFlags({ scenario: tagged, target: 'http://127.0.0.1:9/{{ tenant }}' }), root, {}, 'x')).toThrow(/^--target uses \{\{ tenant \}\}, which the rig cannot resolve before the run/);
  });

  test("--target with {{ $environment }} under -e NAME, as artillery run -e NAME -t resolves it (it was refused)", () => {
    const envs = script('envs-t.yml', '  target: http://127.0.0.1:9\n  environments:\n    staging: { variables: { x: 1 } }');
    expect(prepareRunInput(validateFlags({ scenario: envs, environment: 'staging', target: 'http://127.0.0.1:9/{{ $environment }}' }), root, {}, 'x').options.target).toBe('http://127.0.0.1:9/staging');
  });

  test('a template the rig cannot know before the run is still refused in the target, naming it', () => {
    const unknown = script('unknown.yml', '  target: "http://127.0.0.1:9/{{ tenant }}"');
    expect(() => prepareRunInput(validateFlags({ scenario: unknown }), root, {}, 'x')).toThrow(UsageError);
    expect(() => prepareRunInput(validateFlags({ scenario: unknown }), root, {}, 'x')).toThrow(/config\.target of unknown\.yml uses \{\{ tenant \}\}/);
  });
});

describe('{{ $randomString() }} and {{ $randomNumber(a, b) }} in config: one value per run', () => {
  test('drawn once before the run, in the target and config.variables, so every load process gets the same', () => {
    const drawn = script('drawn.yml', '  target: "http://127.0.0.1:9/r-{{ $randomString(5) }}"\n  variables: { room: "room-{{ $randomNumber(1000, 9999) }}", n: "{{ $randomNumber(3, 3) }}" }');
    const input = prepareRunInput(validateFlags({ scenario: drawn }), root, {}, 'x');
    expect(input.options.target).toMatch(/^http:\/\/127\.0\.0\.1:9\/r-[A-Za-z0-9]{5}$/);
    const vars = input.script.config.variables as Record<string, unknown>;
    expect(vars.room).toMatch(/^room-\d{4}$/);
    // As Artillery's template: the call's text replaced, so a number comes back as text.
    expect(vars.n).toBe('3');
  });

  test('as Artillery defines them: $randomString() is 10 characters, arguments read as its parser reads them; other names left as written', () => {
    expect(resolveConfigFunctions('{{ $randomString() }}')).toMatch(/^[A-Za-z0-9]{10}$/);
    expect(resolveConfigFunctions({ a: ['x{{$randomNumber( 7 , 7 )}}y'] })).toEqual({ a: ['x7y'] });
    expect(resolveConfigFunctions('{{ $uuid() }} {{ name }}')).toBe('{{ $uuid() }} {{ name }}');
  });

  test('in a --var value too: drawn once for the run, as artillery run -v copies its values into config.variables before resolving', () => {
    const plain = script('plain.yml', '  target: http://127.0.0.1:9');
    const input = prepareRunInput(validateFlags({ scenario: plain, var: ['room=r-{{ $randomNumber(100, 999) }}'] }), root, {}, 'x');
    expect((input.script.config.variables as Record<string, unknown>).room).toMatch(/^r-\d{3}$/);
    // Drawn before one --var reads another: the same number in both.
    const both = prepareRunInput(validateFlags({ scenario: plain, var: ['a={{ $randomNumber(1, 999999) }}', 'b=x{{ a }}'] }), root, {}, 'x').script.config.variables as Record<string, unknown>;
    expect(both.b).toBe(`x${String(both.a)}`);
  });

  test('a phase value drawn that way is known before the run (it was refused as a template no --var sets)', () => {
    const phased = path.join(dir, 'phased.yml');
    fs.writeFileSync(phased, 'config:\n  target: http://127.0.0.1:9\n  phases: [{ duration: 1, arrivalCount: "{{ $randomNumber(2, 2) }}" }]\nscenarios:\n  - flow: [{ get: { url: "/" } }]\n');
    expect(prepareRunInput(validateFlags({ scenario: phased }), root, {}, 'x').script.config.phases).toEqual([{ duration: 1, arrivalCount: 2 }]);
  });
});
