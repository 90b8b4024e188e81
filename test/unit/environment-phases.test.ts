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
