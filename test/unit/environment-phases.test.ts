/**
 * A bad phase that `-e NAME` brought in: the environment's phases are merged into config.phases element by element
 * (lodash merge, as `artillery run -e`), so the refusal says they were merged in, or the user finds nothing wrong
 * under config.phases.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { validateFlags } from '../../scripts/options';
import { prepareRunInput } from '../../scripts/run-input';

const root = path.resolve(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-env-phases-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const script = path.join(dir, 'envs.yml');
fs.writeFileSync(script, [
  'config:',
  '  target: http://127.0.0.1:9',
  '  phases: [{ duration: 10, arrivalRate: 1 }]',
  '  environments:',
  '    bad: { phases: [{ duration: -5 }] }',
  '    fast: { phases: [{ duration: 5 }] }',
  '    other: { target: http://127.0.0.1:8 }',
  'scenarios:',
  '  - flow: [ { get: { url: / } } ]',
  '',
].join('\n'));

const own = path.join(dir, 'own.yml');
fs.writeFileSync(own, [
  'config:',
  '  target: http://127.0.0.1:9',
  '  phases: [{ duration: 10, arrivalRate: 1 }, { duration: 10, arrivalRate: -1 }]',
  '  environments:',
  '    short: { phases: [{ duration: 5 }] }',
  'scenarios:',
  '  - flow: [ { get: { url: / } } ]',
  '',
].join('\n'));

const refusal = (environment?: string, file = script): string => {
  try {
    prepareRunInput(validateFlags({ scenario: file, ...(environment ? { environment } : {}) }), root, {});
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

describe("a bad phase from -e NAME's config.environments.NAME.phases", () => {
  test('is named as merged in from that environment', () => {
    expect(refusal('bad')).toMatch(/^envs\.yml with config\.environments\.bad\.phases merged in \(-e bad\): config\.phases\[0\]/);
  });

  test('an environment without phases leaves the script\'s own phases, and a good one runs', () => {
    expect(refusal('other')).toBe('');
    expect(refusal('fast')).toBe('');
    expect(refusal()).toBe('');
  });

  test("a bad phase past the environment's own list is the script's, named without it", () => {
    expect(refusal('short', own)).toMatch(/^own\.yml: config\.phases\[1\]/);
  });
});

describe('siblings: a template phase value from the environment, and an empty config.phases', () => {
  const templated = path.join(dir, 'templated.yml');
  fs.writeFileSync(templated, 'config:\n  target: http://127.0.0.1:9\n  phases: [{ duration: 10, arrivalRate: 1 }]\n  environments:\n    ci: { phases: [{ arrivalRate: "{{ rate }}" }] }\nscenarios:\n  - flow: [ { get: { url: / } } ]\n');
  test("a template from config.environments.NAME.phases is named as merged in (was: config.phases[0] alone)", () => {
    expect(refusal('ci', templated)).toMatch(/^templated\.yml with config\.environments\.ci\.phases merged in \(-e ci\): config\.phases\[0\]\.arrivalRate is "\{\{ rate \}\}", which is not known before the run; pass --var rate=VALUE/);
    expect(refusal(undefined, templated)).toBe('');
  }, 10_000);

  test('an empty config.phases names the script (was: "the scenario\'s config.phases")', () => {
    const empty = path.join(dir, 'empty.yml');
    fs.writeFileSync(empty, 'config:\n  target: http://127.0.0.1:9\n  phases: []\nscenarios:\n  - flow: [ { get: { url: / } } ]\n');
    expect(refusal(undefined, empty)).toMatch(/^empty\.yml: config\.phases is an empty list, so no vuser would arrive; add a phase/);
  }, 10_000);
});
