/**
 * Whose `WS_CONNECT_FAILED`, `COOKIE_HTTP_503`, … a run's errors are is decided by what runs: the rig's own processors
 * (load-generators/processors) name the target's answer with them, so a copy of a built-in scenario's script that keeps
 * its processor gets the built-in's reading, and a script of the user's own does not, whatever either is called. It was
 * decided by the scenario's name.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scriptErrors } from '../../scripts/core/verdict';
import { validateFlags } from '../../scripts/options';
import { runsRigProcessor } from '../../scripts/rig-processor';
import { prepareRunInput } from '../../scripts/run-input';

const root = path.resolve(__dirname, '..', '..');
const processors = path.join(root, 'load-generators', 'processors');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-processor-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const script = (name: string, processor: string, folder = dir) => {
  const file = path.join(folder, name);
  fs.writeFileSync(file, `config:\n  target: http://127.0.0.1:9\n  processor: ${JSON.stringify(processor)}\n  phases: [{ duration: 1, arrivalCount: 1 }]\nscenarios:\n  - name: connect\n    flow: [ { function: openSocket } ]\n`);
  return file;
};

describe('runsRigProcessor: the rig\'s own processor, by what Artillery loads', () => {
  test('a built-in scenario\'s processor, as its script names it', () => {
    expect(runsRigProcessor('../processors/connect.js', path.join(root, 'load-generators', 'scenarios'), root)).toBe(true);
  });

  test('a user\'s script naming the rig\'s processor (as Artillery resolves it: no extension too), or a copy of it', () => {
    expect(runsRigProcessor(path.join(processors, 'connect.js'), dir, root)).toBe(true);
    expect(runsRigProcessor(path.relative(dir, path.join(processors, 'pubsub')), dir, root)).toBe(true);
    const copies = path.join(dir, 'copied');
    fs.cpSync(processors, copies, { recursive: true });
    expect(runsRigProcessor('./copied/rooms.js', dir, root)).toBe(true);
  });

  test('a processor of the user\'s own (an edited copy too), none, or a missing file: not the rig\'s', () => {
    fs.writeFileSync(path.join(dir, 'connect.js'), `${fs.readFileSync(path.join(processors, 'connect.js'), 'utf8')}\n// edited\n`);
    expect(runsRigProcessor('./connect.js', dir, root)).toBe(false);
    expect(runsRigProcessor(undefined, dir, root)).toBe(false);
    expect(runsRigProcessor('./nowhere.js', dir, root)).toBe(false);
  });
});

describe("the run's error origins (prepareRunInput): decided by the processor, not the name", () => {
  test("--scenario connect, and a user's copy keeping its processor: the rig's codes are the target's answer", () => {
    expect(prepareRunInput(validateFlags({ scenario: 'connect' }), root, {}).errorOrigins.builtInScenario).toBe(true);
    const copy = prepareRunInput(validateFlags({ scenario: script('my-connect.yml', path.join(processors, 'connect.js')) }), root, {});
    expect(copy.errorOrigins.builtInScenario).toBe(true);
    expect(scriptErrors({ 'errors.WS_CONNECT_FAILED': 3 }, copy.errorOrigins)).toEqual({});
  });

  test("a script called connect.yml with a processor of its own: its WS_CONNECT_FAILED is its own code's", () => {
    const own = path.join(dir, 'own');
    fs.mkdirSync(own);
    fs.writeFileSync(path.join(own, 'proc.js'), "module.exports = { openSocket(c, e, next) { next(Object.assign(new Error('no'), { code: 'WS_CONNECT_FAILED' })); } };\n");
    const input = prepareRunInput(validateFlags({ scenario: script('connect.yml', './proc.js', own) }), root, {});
    expect(input.errorOrigins.builtInScenario).toBe(false);
    expect(scriptErrors({ 'errors.WS_CONNECT_FAILED': 3 }, input.errorOrigins)).toEqual({ WS_CONNECT_FAILED: 3 });
  });
});
