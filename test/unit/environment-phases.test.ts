/**
 * A bad phase that `-e NAME` brought in: the environment's phases are merged into config.phases element by element
 * (lodash merge, as `artillery run -e`), so the refusal names the place the bad value is written
 * (`config.environments.NAME.phases[i]`), or the user finds nothing wrong under config.phases. It said only "with
 * config.environments.NAME.phases merged in", read the phase's index back out of the message, and Artillery's own
 * check (`"config.phases" must be an array`) did not say the environment had set it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { validateFlags } from '../../scripts/options';
import { prepareRunInput } from '../../scripts/run-input';
import { PlanError, normalizePhase } from '../../scripts/core/phases';
import { splitPhases } from '../../scripts/core/split';
import { durationNotes, maxVusersNotes } from '../../scripts/fan-out';
import { chosenEnvironment } from '../../scripts/phase-origin';

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
  test("is named where it is written: the environment's phase, its field and the fix", () => {
    expect(refusal('bad')).toBe('envs.yml: config.environments.bad.phases[0].duration must be longer than zero (got -5); write seconds or a duration, e.g. duration: 60 or "10m"');
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
  test("a template from config.environments.NAME.phases is named there (was: config.phases[0] alone)", () => {
    expect(refusal('ci', templated)).toMatch(/^templated\.yml: config\.environments\.ci\.phases\[0\]\.arrivalRate is "\{\{ rate \}\}", which is not known before the run; pass --var rate=VALUE/);
    expect(refusal(undefined, templated)).toBe('');
  }, 10_000);

  test('an empty config.phases names the script (was: "the scenario\'s config.phases")', () => {
    const empty = path.join(dir, 'empty.yml');
    fs.writeFileSync(empty, 'config:\n  target: http://127.0.0.1:9\n  phases: []\nscenarios:\n  - flow: [ { get: { url: / } } ]\n');
    expect(refusal(undefined, empty)).toMatch(/^empty\.yml: config\.phases is an empty list, so no vuser would arrive; add a phase/);
  }, 10_000);
});

describe('which of the merged phase holds the bad value', () => {
  const mixed = path.join(dir, 'mixed.yml');
  fs.writeFileSync(mixed, [
    'config:',
    '  target: http://127.0.0.1:9',
    '  phases: [{ name: warm, duration: 10, arrivalRate: "fast" }, { pause: 5 }]',
    '  environments:',
    '    named: { phases: [{ arrivalRate: 2, duration: -1 }] }',
    '    own: { phases: [{ duration: 3 }] }',
    '    mix: { phases: [{ arrivalRate: 2 }, { arrivalRate: 2 }] }',
    '    num: { phases: [5] }',
    '    five: { phases: 5 }',
    'scenarios:',
    '  - flow: [ { get: { url: / } } ]',
    '',
  ].join('\n'));

  test("the environment's field, with the phase's name; the script's own field stays config.phases[i]", () => {
    expect(refusal('named', mixed)).toMatch(/^mixed\.yml: config\.environments\.named\.phases\[0\] \("warm"\)\.duration must be longer than zero/);
    expect(refusal('own', mixed)).toMatch(/^mixed\.yml: config\.phases\[0\] \("warm"\)\.arrivalRate must be a finite number \(got "fast"\); write a number/);
  });

  test('fields of both refused together: both named; a value that is no phase: the environment\'s', () => {
    expect(refusal('mix', mixed)).toBe('mixed.yml: config.phases[1] with config.environments.mix.phases[1] merged in (-e mix): pause cannot be combined with arrivalRate; a pause only waits: put the arrivals in a phase of their own before or after it');
    expect(refusal('num', mixed)).toBe('mixed.yml: config.environments.num.phases[0] is 5, not a phase; each phase is a mapping such as { duration: 60, arrivalRate: 5 }');
  });

  test('the whole list refused: said merged in; Artillery\'s own check of config.phases names the environment\'s key', () => {
    const quiet = path.join(dir, 'quiet.yml');
    fs.writeFileSync(quiet, 'config:\n  target: http://127.0.0.1:9\n  phases: [{ duration: 1, arrivalRate: 1 }, { pause: 1 }]\n  environments:\n    none: { phases: [{ arrivalRate: 0 }] }\nscenarios:\n  - flow: [ { get: { url: / } } ]\n');
    expect(refusal('none', quiet)).toMatch(/^quiet\.yml with config\.environments\.none\.phases merged in \(-e none\): the phases create no vusers/);
    expect(refusal('five', mixed)).toBe(
      `scenario file ${mixed}: "config.phases" must be an array (written as config.environments.five.phases, which -e five merges into config.phases) (Artillery's script check: \`artillery run\` stops on it with "Scenario validation error"); fix config.environments.five and run again`,
    );
  });
});

test('a PlanError of a phase carries its place (index, field, how its message names it), not only its words', () => {
  const refused = (p: unknown, i: number) => {
    try {
      normalizePhase(p as never, i);
    } catch (e) {
      return e as PlanError;
    }
    throw new Error('not refused');
  };
  expect(refused({ name: 'warm', duration: 1, arrivalRate: 'x' }, 1).phase).toEqual({ index: 1, field: 'arrivalRate', where: 'config.phases[1] ("warm")' });
  expect(refused({ duration: '2s ', arrivalRate: 1 }, 3).phase).toEqual({ index: 3, field: 'duration', where: 'config.phases[3]' });
  expect(refused({ duration: 1 }, 0).phase).toEqual({ index: 0, where: 'config.phases[0]' });
  expect(refused(7, 2)).toMatchObject({ kind: 'invalid', phase: { index: 2, where: 'config.phases[2]' } });
});

test("the note: lines about a phase name the environment's phase when -e NAME set the field they are about", () => {
  const config = { phases: [{ name: 'warm', duration: '1.5', arrivalRate: 4, maxVusers: 50 }], environments: { ci: { phases: [{ duration: '1.5' }] } } };
  const env = chosenEnvironment(config, 'ci');
  expect(durationNotes(config.phases, config.phases, env)).toEqual([expect.stringMatching(/^note: config\.environments\.ci\.phases\[0\] \("warm"\): duration "1\.5" is run as 1\.5 s/)]);
  expect(maxVusersNotes(config.phases, [splitPhases(config.phases, 2)], env)).toEqual([expect.stringMatching(/^note: config\.phases\[0\] \("warm"\): maxVusers 50 is split 25\/25/)]);
});
