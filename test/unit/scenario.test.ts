import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { validateFlags } from '../../scripts/options';
import { applyOptions, phasesNote, loadScenario, processScript, thinkVariables, unreadVariableNotes } from '../../scripts/scenario';

const SCENARIOS = path.join(__dirname, '..', '..', 'load-generators', 'scenarios');

describe('applyOptions', () => {
  const script = {
    config: {
      target: 'http://x',
      phases: [{ duration: 1, arrivalCount: 2 }],
      variables: { hold: 10, room: 'a' },
      ensure: { p99: 100 },
      plugins: { ensure: {}, 'metrics-by-endpoint': {} },
      environments: { e: { target: 'http://y' } },
    },
    scenarios: [{ flow: [] }],
  };

  test('strips every ensure form and the merged environments from what the load processes run', () => {
    const out = applyOptions(script, validateFlags({}));
    expect(out.config.ensure).toBeUndefined();
    expect(out.config.plugins).toEqual({ 'metrics-by-endpoint': {} });
    expect(out.config.environments).toBeUndefined();
    expect(script.config.plugins).toHaveProperty('ensure'); // the original is untouched
  });

  test('--var for a variable the scenario uses as a number must be a number', () => {
    expect(() => applyOptions(script, validateFlags({ var: ['hold=abc'] }))).toThrow(/--var hold=abc: the scenario uses hold as a number \(default 10\); pass a number, e.g\. --var hold=10/);
    expect(() => applyOptions(script, validateFlags({ var: ['hold=30s'] }))).toThrow(/--var hold=30s/);
    expect(() => applyOptions(script, validateFlags({ var: ['hold=-3'] }))).toThrow(/must not be negative/);
    expect(applyOptions(script, validateFlags({ var: ['hold=3', 'room=b'] })).config.variables).toEqual({ hold: 3, room: 'b' });
  });

  test('the built-in scenarios declare their numeric variables, so --var hold=abc is refused for them too', () => {
    const connect = loadScenario('connect', SCENARIOS);
    expect(() => applyOptions(connect.script, validateFlags({ var: ['hold=abc'] }))).toThrow(/--var hold=abc: the scenario uses hold as a think time in seconds \(default 10\)/);
  });

  test('a variable read by a think step is a duration: numeric, not negative, within the timer limit, even without a default', () => {
    const thinking = { config: { target: 'http://x', phases: [{ duration: 1, arrivalCount: 1 }] }, scenarios: [{ flow: [{ loop: [{ think: '{{ gap }}' }], count: 2 }] }] };
    expect(thinkVariables(thinking)).toEqual(new Set(['gap']));
    expect(() => applyOptions(thinking, validateFlags({ var: ['gap=soon'] }))).toThrow(/--var gap=soon: the scenario uses gap as a think time in seconds; pass a number/);
    expect(() => applyOptions(thinking, validateFlags({ var: ['gap=2592000'] }))).toThrow(/--var gap=2592000: a think time of more than 2147483 s/);
    expect(applyOptions(thinking, validateFlags({ var: ['gap=2'] })).config.variables).toEqual({ gap: 2 });
  });
});

describe('--ramp alone stretches the script\'s phases, whatever form their durations take', () => {
  const withPhases = (phases: unknown[]) => ({ config: { target: 'http://127.0.0.1:9', phases }, scenarios: [{ flow: [] }] }) as never;
  test('durations with units ("2s", "3 seconds", pause "1s") stretch as numbers do (they were left as written)', () => {
    expect(applyOptions(withPhases([{ duration: '2s', arrivalRate: 2 }]), validateFlags({ ramp: '6s' })).config.phases).toEqual([{ duration: 6, arrivalRate: 2 }]);
    expect(applyOptions(withPhases([{ duration: 2, arrivalRate: 2 }]), validateFlags({ ramp: '6s' })).config.phases).toEqual([{ duration: 6, arrivalRate: 2 }]);
    const mixed = [{ duration: '2s', arrivalRate: 1 }, { pause: '1s' }, { duration: '3 seconds', arrivalCount: 3 }];
    expect(applyOptions(withPhases(mixed), validateFlags({ ramp: '12s' })).config.phases).toEqual([
      { duration: 4, arrivalRate: 1 },
      { pause: 2 },
      { duration: 6, arrivalCount: 3 },
    ]);
  });
  test('a duration the rig cannot read is refused, not left as written', () => {
    expect(() => applyOptions(withPhases([{ duration: 'soon', arrivalRate: 1 }]), validateFlags({ ramp: '6s' }))).toThrow(/config\.phases\[0\]\.duration: "soon" is not a valid duration/);
  });
});

describe('flags that decide a script\'s own phases say so before the run (--vusers replaced them silently)', () => {
  const script = { config: { target: 'http://127.0.0.1:9', phases: [{ duration: 5, arrivalRate: 4 }, { pause: 1 }, { duration: '6s', arrivalCount: 24 }] }, scenarios: [{ flow: [{ get: { url: '/' } }] }] };
  test('--vusers replaces them with one ramp: what the script wrote and what runs instead', () => {
    expect(phasesNote(script, validateFlags({ vusers: '10', ramp: '2s' }), 'my.yml')).toBe('note: --vusers 10 replaces the 3 phases of my.yml (12 s, ~44 vusers) with one even ramp: 10 vusers over 2 s');
    expect(phasesNote(script, validateFlags({ vusers: '3000' }), 'my.yml')).toMatch(/one even ramp: 3,000 vusers over 30 s$/);
  });
  test('--ramp alone stretches them, each keeping its rate and count: the vusers before and after', () => {
    expect(phasesNote(script, validateFlags({ ramp: '24s' }), 'my.yml')).toBe(
      'note: --ramp 24s stretches the 3 phases of my.yml from 12 s to 24 s, each keeping its arrival rate and count: ~44 → ~64 vusers; --vusers N with --ramp sets the total instead',
    );
  });
  test('phases run as written: no note', () => {
    expect(phasesNote(script, validateFlags({}), 'my.yml')).toBeUndefined();
    expect(phasesNote(script, validateFlags({ hold: '5s' }), 'my.yml')).toBeUndefined();
  });
});

describe('a script without config.phases runs one vuser, as artillery run does (it was refused, exit 2)', () => {
  const bare = { config: { target: 'http://127.0.0.1:9' }, scenarios: [{ flow: [{ get: { url: '/' } }] }] };
  test("Artillery's default phase, said before the run; --vusers replaces it and needs no note", () => {
    expect(applyOptions(bare, validateFlags({})).config.phases).toEqual([{ duration: 1, arrivalCount: 1 }]);
    expect(phasesNote(bare, validateFlags({}), 'my.yml')).toBe('note: my.yml has no config.phases, so it runs one vuser, as artillery run does; pass --vusers N for more');
    expect(applyOptions(bare, validateFlags({ vusers: '5' })).config.phases).toEqual([{ name: 'ramp', duration: 10, arrivalCount: 5 }]);
    expect(phasesNote(bare, validateFlags({ vusers: '5' }), 'my.yml')).toBeUndefined();
    // --ramp alone stretches that one phase.
    expect(applyOptions(bare, validateFlags({ ramp: '5s' })).config.phases).toEqual([{ duration: 5, arrivalCount: 1 }]);
  });
  test('an empty list of phases is still refused: no vuser would arrive', () => {
    expect(() => applyOptions({ ...bare, config: { ...bare.config, phases: [] } }, validateFlags({}))).toThrow(/config\.phases is an empty list, so no vuser would arrive/);
  });
});

describe('loadScenario: the scenarios list', () => {
  test('missing, empty or not a list: each said as it is, with the fix', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-scenarios-'));
    const load = (tail: string) => {
      const file = path.join(dir, 's.yml');
      fs.writeFileSync(file, `config:\n  target: http://x\n${tail}`);
      return () => loadScenario(file, SCENARIOS);
    };
    expect(load('')).toThrow(/s\.yml has no "scenarios" list; add at least one scenario with a flow$/);
    expect(load('scenarios: []\n')).toThrow(/s\.yml has an empty "scenarios" list; add at least one scenario with a flow$/);
    expect(load('scenarios: { flow: [] }\n')).toThrow(/s\.yml has a "scenarios" that is not a list; add at least one scenario with a flow$/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('loadScenario with an environment', () => {
  /** Loads `config:` + the given lines + one empty scenario, with -e `environment`. */
  const loadWith = (configLines: string, environment: string) => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rig-env-')), 's.yml');
    fs.writeFileSync(file, `config:\n${configLines}scenarios:\n  - flow: []\n`);
    return loadScenario(file, SCENARIOS, environment);
  };

  test('merges the entry into config like lodash.merge (nested objects merged, arrays by index)', () => {
    const s = loadWith(
      '  target: http://a\n  http: { timeout: 5, pool: 2 }\n  phases: [{ duration: 1, arrivalCount: 1 }, { duration: 2, arrivalRate: 1 }]\n  environments:\n    e:\n      http: { timeout: 9 }\n      phases: [{ arrivalCount: 5 }]\n',
      'e',
    );
    expect(s.script.config.http).toEqual({ timeout: 9, pool: 2 });
    expect(s.script.config.phases).toEqual([{ duration: 1, arrivalCount: 5 }, { duration: 2, arrivalRate: 1 }]);
    expect(s.envTarget).toBe(false);
  });

  test('{{ $environment }} is resolved in config and set for the vusers, as `artillery run -e` does', () => {
    const s = loadWith('  target: http://a\n  payload: { path: "{{ $environment }}-users.csv" }\n  environments:\n    qa: { variables: { room: r } }\n  phases: [{ duration: 1, arrivalCount: 1 }]\n', 'qa');
    expect(s.script.config.payload).toEqual({ path: 'qa-users.csv' });
    expect(s.script.config.variables).toEqual({ room: 'r', $environment: 'qa' });
  });
});

describe('processScript', () => {
  const base = { config: { target: 'http://x', payload: [{ path: 'a.csv', order: 'sequence' }, { path: 'b.csv' }] }, scenarios: [] };
  test('marks only sequenced payloads with the process share; random ones stay whole', () => {
    const out = processScript(base, [{ duration: 1, arrivalCount: 3 }], { start: 4, count: 3 });
    expect(out.config.payload).toEqual([{ path: 'a.csv', order: 'sequence', rigShare: { start: 4, count: 3 } }, { path: 'b.csv' }]);
    expect(out.config.phases).toEqual([{ duration: 1, arrivalCount: 3 }]);
  });
  test('a single payload object stays an object; no share leaves it as written', () => {
    const one = { ...base, config: { ...base.config, payload: { path: 'a.csv', order: 'sequence' } } };
    expect(processScript(one, [], { start: 0, count: 2 }).config.payload).toEqual({ path: 'a.csv', order: 'sequence', rigShare: { start: 0, count: 2 } });
    expect(processScript(one, [], undefined).config.payload).toEqual({ path: 'a.csv', order: 'sequence' });
  });
});

describe('loadScenario with a misspelt built-in name', () => {
  test('names the built-in within two edits (case aside, as a path too); a name near none lists them only', () => {
    expect(() => loadScenario('pubusb', SCENARIOS)).toThrow(/"pubusb" is not a built-in scenario; did you mean pubsub\? use one of/);
    expect(() => loadScenario('Connect', SCENARIOS)).toThrow(/did you mean connect\?/);
    expect(() => loadScenario('./presense.yml', SCENARIOS)).toThrow(/presense\.yml: no such file; did you mean presence\?/);
    expect(() => loadScenario('zzz', SCENARIOS)).toThrow(/"zzz" is not a built-in scenario; use one of/);
  });
});

describe('loadScenario with a folder for --scenario', () => {
  test('says it is a folder (not "not valid YAML")', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-scenario-dir-'));
    expect(() => loadScenario(dir, SCENARIOS)).toThrow(/--scenario .* is a folder, not a script; pass the path of an Artillery \.yml\/\.json\/\.js script in it/);
  });
});

describe('unreadVariableNotes: flags that set a variable the script never reads are said before the run', () => {
  const script = (flow: unknown[], extra: Record<string, unknown> = {}) =>
    ({ config: { target: 'http://x', phases: [{ duration: 1, arrivalCount: 1 }], variables: { hold: 5, typo: 1 }, ...extra }, scenarios: [{ flow }] }) as Parameters<typeof unreadVariableNotes>[0];
  test('a --var the flows never mention, and --hold on a script without {{ hold }}', () => {
    const notes = unreadVariableNotes(script([{ get: { url: '/' } }]), validateFlags({ var: ['typo=2'], hold: '5s' }), 's.yml');
    expect(notes).toEqual([
      'note: --var typo: s.yml never mentions {{ typo }}, so it changes nothing',
      'note: --hold sets the variable hold, which s.yml never mentions ({{ hold }}), so its vusers last as long as its own flow',
    ]);
  });
  test("--vusers' own hold is named as such", () => {
    expect(unreadVariableNotes(script([{ get: { url: '/' } }]), validateFlags({ vusers: '10', ramp: '10s' }), 's.yml')).toEqual([
      "note: --vusers' hold (40 s, so all are connected at once) sets the variable hold, which s.yml never mentions ({{ hold }}), so its vusers last as long as its own flow",
    ]);
  });
  test('read as {{ name }}, in an ifTrue expression or by a think step: no note; with a processor the note says it may read it', () => {
    expect(unreadVariableNotes(script([{ think: '{{ hold }}' }, { get: { url: '/', ifTrue: 'typo == 2' } }]), validateFlags({ var: ['typo=2'], hold: '5s' }), 's.yml')).toEqual([]);
    expect(unreadVariableNotes(script([{ function: 'f' }], { processor: './p.js' }), validateFlags({ var: ['typo=2'] }), 's.yml')).toEqual([
      'note: --var typo: s.yml never mentions {{ typo }}, so it changes nothing unless its processor reads context.vars.typo',
    ]);
  });
});
