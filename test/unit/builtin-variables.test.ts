/**
 * The built-in scenarios' variables: a --var they do not read, or a value their processors would clamp or replace
 * by the default, is refused before the run (was run silently: `--var rooms=0` ran one room, `--var room=5` on pubsub
 * changed nothing). The table is checked against what the scenarios and their processors actually read.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { BUILT_IN_VARIABLES, checkBuiltInVars, noHoldStepNote } from '../../scripts/builtin-variables';
import { BUILT_IN_SCENARIOS, validateFlags } from '../../scripts/options';
import { prepareRunInput } from '../../scripts/run-input';
import { UsageError } from '../../scripts/errors';

const ROOT = path.join(__dirname, '..', '..', 'load-generators');
/** Set by the rig for every vuser, not by the user. */
const RIG_SET = new Set(['target', 'cookie', 'clockOffset']);

/** Every file a processor loads from its own folder, itself included. */
function processorFiles(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const m of fs.readFileSync(file, 'utf8').matchAll(/require\('\.\/([\w-]+)'\)/g)) processorFiles(path.join(path.dirname(file), `${m[1]}.js`), seen);
  return seen;
}

/** The variables a built-in scenario reads: in its YAML (config.variables, {{ name }}) and through numVar/strVar/context.vars in its processors. */
function namesRead(scenario: string): Set<string> {
  const file = path.join(ROOT, 'scenarios', `${scenario}.yml`);
  const text = fs.readFileSync(file, 'utf8');
  const script = yaml.load(text) as { config: { variables?: Record<string, unknown>; processor: string } };
  const names = new Set(Object.keys(script.config.variables ?? {}));
  for (const m of text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)) names.add(m[1]!);
  for (const f of processorFiles(path.resolve(path.dirname(file), script.config.processor))) {
    const src = fs.readFileSync(f, 'utf8');
    for (const m of src.matchAll(/(?:numVar|strVar|boolVar)\(context, '(\w+)'/g)) names.add(m[1]!);
    for (const m of src.matchAll(/context\.vars\.(\w+)/g)) names.add(m[1]!);
  }
  for (const n of RIG_SET) names.delete(n);
  return names;
}

describe('the table of built-in variables', () => {
  test.each([...BUILT_IN_SCENARIOS])('%s: lists exactly the variables the scenario and its processors read', (scenario) => {
    expect(Object.keys(BUILT_IN_VARIABLES[scenario] ?? {}).sort()).toEqual([...namesRead(scenario)].sort());
  });
});

describe('checkBuiltInVars', () => {
  test('a variable the scenario does not read is refused, listing the ones it does', () => {
    expect(() => checkBuiltInVars('pubsub', { room: 5 })).toThrow('--var room: the pubsub scenario has no variable room, so it would change nothing; its variables are hold, rooms, roomPrefix, publishRate, publishSeconds, socketPath (docs/scenarios.md)');
    expect(() => checkBuiltInVars('connect', { rooms: 5 })).toThrow(UsageError);
  });

  test('values the processors would clamp, floor or replace by the default are refused', () => {
    expect(() => checkBuiltInVars('pubsub', { rooms: 0 })).toThrow(/needs a whole number of at least 1 for rooms/);
    expect(() => checkBuiltInVars('rooms', { rooms: 2.5 })).toThrow(/whole number/);
    expect(() => checkBuiltInVars('broadcast', { interval: 0 })).toThrow(/a number of at least 0.001 for interval/);
    expect(() => checkBuiltInVars('pubsub', { publishSeconds: 'soon' })).toThrow(/--var publishSeconds=soon/);
    expect(() => checkBuiltInVars('recovery', { away: -1 })).toThrow(/at least 0 for away/);
  });

  test('--hold on a scenario without a hold step (rooms) is refused; --vusers\' own hold is not --hold', () => {
    expect(() => checkBuiltInVars('rooms', {}, true)).toThrow(/--hold: the rooms scenario has no hold step, so it would change nothing; .*--var linger=20/);
    expect(() => checkBuiltInVars('rooms', {}, false)).not.toThrow();
    expect(() => checkBuiltInVars('pubsub', {}, true)).not.toThrow();
  });

  test('good values pass, text variables take any text, and user scripts are not judged here', () => {
    expect(() => checkBuiltInVars('pubsub', { rooms: 4, publishRate: 0.5, roomPrefix: 'load-', socketPath: '/ws' })).not.toThrow();
    expect(() => checkBuiltInVars('broadcast', { echo: false, payloadSize: 0, room: 42 })).not.toThrow();
    expect(() => checkBuiltInVars('my.yml', { anything: 1 })).not.toThrow();
  });
});

describe('careless values (probe): one line saying what is wrong, exit 2 before anything starts', () => {
  const root = path.join(__dirname, '..', '..');
  /** The line prepareRunInput refuses with, as the CLI prints it (its UsageError). */
  const refusal = (scenario: string, ...vars: string[]): string => {
    try {
      prepareRunInput(validateFlags({ scenario, var: vars }), root, {});
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).not.toContain('\n');
      return (err as Error).message;
    }
    throw new Error(`--var ${vars.join(' ')} on ${scenario} was accepted`);
  };

  test('socketPath needs its leading / (was blamed on the target as 127.0.0.1:4101socket.io)', () => {
    expect(refusal('connect', 'socketPath=socket.io')).toBe('--var socketPath=socket.io: socketPath is a path and starts with /; e.g. --var socketPath=/socket.io');
    expect(() => prepareRunInput(validateFlags({ scenario: 'connect', var: ['socketPath=/base/socket.io'] }), root, {})).not.toThrow();
  });

  test('switches take true/false or 1/0 (echo=0 left echo on; echo=maybe and targetMetrics=abc were accepted)', () => {
    expect(refusal('broadcast', 'echo=maybe')).toBe('--var echo=maybe: echo is a switch; pass true or false (or 1 or 0), e.g. --var echo=false');
    expect(refusal('presence', 'targetMetrics=abc')).toMatch(/^--var targetMetrics=abc: targetMetrics is a switch/);
    for (const v of ['echo=0', 'echo=1', 'echo=false', 'echo=true']) expect(() => checkBuiltInVars('broadcast', validateFlags({ var: [v] }).vars as Record<string, string | number | boolean>)).not.toThrow();
  });

  test('an empty value is refused (--var room= ran as room broadcast)', () => {
    expect(refusal('broadcast', 'room=')).toBe("--var room=: an empty value; pass one (e.g. --var room=x), or leave --var room out for the broadcast scenario's default");
    expect(refusal('pubsub', 'rooms=')).toMatch(/^--var rooms=: an empty value/);
  });

  test('numbers: too large (with the bound and why), or not written in digits (all said "pass a number")', () => {
    expect(refusal('pubsub', 'rooms=1e9')).toBe('--var rooms=1e9: too large; the pubsub scenario takes at most 10,000 for rooms (the one publisher POSTs to every room on every tick, from one load process)');
    expect(refusal('pubsub', 'publishRate=1e6')).toMatch(/^--var publishRate=1e6: too large; the pubsub scenario takes at most 1,000 for publishRate \(the publisher's timer/);
    expect(refusal('connect', 'hold=1e12')).toMatch(/^--var hold=1e12: too large; the connect scenario takes at most 2,147,483 for hold \(Node's timer limit/);
    expect(refusal('pubsub', 'rooms=99999999999999999999')).toMatch(/^--var rooms=99999999999999999999: too large; .* at most 10,000/);
    expect(refusal('rooms', 'rooms=99999999999999999999')).toBe('--var rooms=99999999999999999999: too large to be read exactly; pass at most 9007199254740991 (2^53 − 1)');
    expect(refusal('rooms', 'rooms=1e3')).toMatch(/^--var rooms=1e3: write the number in digits \(1000\)/);
  });

  test('payloadSize: above the reference target\'s 1 MiB publish limit is refused for it, not for your own target', () => {
    expect(refusal('broadcast', 'payloadSize=2000000')).toMatch(/^--var payloadSize=2000000: too large for the reference target, whose POST \/publish takes at most 1 MiB \(413 above\); pass at most 1047552/);
    expect(() => prepareRunInput(validateFlags({ scenario: 'broadcast', var: ['payloadSize=1047552'] }), root, {})).not.toThrow();
    expect(() => checkBuiltInVars('broadcast', { payloadSize: 2_000_000 }, false, false)).not.toThrow();
  });
});

describe('--vusers on a scenario without a hold step', () => {
  test("rooms: said before the run that N are not all held at once, with each vuser's stay (prepareRunInput's notes)", () => {
    const root = path.join(__dirname, '..', '..');
    const notes = prepareRunInput(validateFlags({ scenario: 'rooms', vusers: '1000', var: ['linger=5'] }), root, {}).notes;
    expect(notes).toContain('note: the rooms scenario has no hold step, so --vusers 1,000 does not hold them all at once: each vuser stays for (messages − 1) × gap, then linger ((10 − 1) × 2 s + 5 s = 23 s), and leaves; raise --var linger to keep more connected together');
    expect(prepareRunInput(validateFlags({ scenario: 'pubsub', vusers: '1000' }), root, {}).notes.filter((n) => n.includes('hold step'))).toEqual([]);
    expect(noHoldStepNote('rooms', undefined, {})).toBeUndefined();
  });
});
