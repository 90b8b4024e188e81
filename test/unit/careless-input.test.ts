/**
 * The pure checks behind "bad input is refused before anything starts" and "N held at once": each would
 * let the careless case through without its fix.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildProgram } from '../../scripts/cli';
import { parseFlags, watchRepeatedValues } from '../../scripts/cli-flags';
import { runCli } from '../helpers/cli';
import { checkOutputFile, checkOutputNotInput, createRunFolder, pseudoFilesystemOf } from '../../scripts/adapters/run-folder';
import { parseDuration, planLoad, profileSeconds } from '../../scripts/core/plan';
import { redactText, redactUrl, storedCredentialsProblem } from '../../scripts/core/redact';
import { UnsafeOutputError, UsageError, unexpectedErrorLine } from '../../scripts/errors';
import { longFlags, npmEatenFlags, npmEatenRefusal } from '../../scripts/npm-flags';
import { durationNotes } from '../../scripts/fan-out';
import { DEFAULT_PLATEAU_SECONDS, MAX_DURATION_SECONDS, parseHeartbeatTimeout, refuseAwsOnlyFlags, validateFlags } from '../../scripts/options';
import { processScript } from '../../scripts/scenario';
import { parseGeneratorCapacity } from '../../scripts/platforms/aws/select';
import { generatorSpecs } from '../../scripts/run';

describe('a flag given an empty value (--ramp=, an unset CI variable)', () => {
  it('is one line naming the flag, for every duration, --max-error-rate and --out (was: an unexpected error, or the default or the working folder silently)', () => {
    for (const flag of ['ramp', 'hold'] as const) expect(() => validateFlags({ [flag]: '' })).toThrow(new RegExp(`^--${flag} "" is not a duration`));
    expect(() => validateFlags({ vusers: '5', plateau: ' ' })).toThrow(/^--plateau " " is not a duration/);
    expect(() => validateFlags({ maxErrorRate: '' })).toThrow(/^--max-error-rate "" must be a percentage from 0 to 100/);
    expect(validateFlags({ maxErrorRate: '.5%' }).maxErrorRate).toBeCloseTo(0.005);
    expect(() => validateFlags({ out: '' })).toThrow(/^--out needs a folder path/);
  });
  it('a phase duration of "" is refused as not a duration, as the flags are', () => {
    expect(() => profileSeconds([{ duration: '' as unknown as number, arrivalRate: 1 }])).toThrow(/is not a valid duration/);
  });
});

describe('--output -', () => {
  it('is refused with the flag that puts the summary on stdout (was: a file named "-")', () => {
    expect(() => checkOutputFile('-')).toThrow(/--output - would write a file named "-"; for the summary JSON on standard output pass --json/);
    expect(() => checkOutputFile('-', '--json')).toThrow(/--json - would write a file named "-"; pass a file name/);
  });
});

describe('--var values reach the script as written', () => {
  it('types numbers written as numbers print, and keeps leading zeros, exponents and unsafe integers as text (was: --var zip=02134 became 2134)', () => {
    const vars = validateFlags({ var: ['zip=02134', 'n=10', 'neg=-2', 'half=0.5', 'e=1e3', 'big=12345678901234567890', 'on=true', 'empty=', 'eq=a=b'] }).vars;
    expect(vars).toEqual({ zip: '02134', n: 10, neg: -2, half: 0.5, e: '1e3', big: '12345678901234567890', on: true, empty: '', eq: 'a=b' });
  });
  it('a value starting with [ or { is JSON, as plain `artillery run -v` passes it (was: the text, so a loop over it ran zero times)', () => {
    expect(validateFlags({ var: ['rooms=[["x","y"]]', 'opts={"a":1}', 'tag=x[1]'] }).vars).toEqual({ rooms: [['x', 'y']], opts: { a: 1 }, tag: 'x[1]' });
  });
  it('one starting with [ or { that is not JSON is refused in one line, naming the parser\'s complaint and the fix', () => {
    expect(() => validateFlags({ var: ['rooms=[a,b]'] })).toThrow(/^--var rooms=\[a,b\] starts with \[ so it is read as JSON, and it is not JSON \(Unexpected token .*\); write it as JSON, e\.g\. --var 'rooms=\["a","b"\]' \(quoted for the shell\)$/);
    expect(() => validateFlags({ var: ['o={a:1}'] })).toThrow(/^--var o=\{a:1\} starts with \{ so it is read as JSON.*--var 'o=\{"a":1\}'/);
  });
});

describe('durations no timer can hold', () => {
  it('accepts up to 2^31-1 ms and refuses past it, naming the flag', () => {
    expect(validateFlags({ hold: '24d' }).holdSeconds).toBe(24 * 86_400);
    expect(MAX_DURATION_SECONDS).toBe(2_147_483);
    expect(() => validateFlags({ hold: '25d' })).toThrow(/--hold 25d is longer than the 2147483 s/);
    expect(() => validateFlags({ ramp: String(MAX_DURATION_SECONDS + 1) })).toThrow(UsageError);
    // The derived hold (ramp + plateau) is checked too.
    expect(() => validateFlags({ vusers: '10', ramp: '24d', plateau: '1d' })).toThrow(/--ramp plus --plateau/);
  });
});

describe('durations of zero or less', () => {
  it('names the flag and says it must be longer than zero (not "not a duration")', () => {
    expect(() => validateFlags({ ramp: '0' })).toThrow(/--ramp "0" must be longer than zero/);
    expect(() => validateFlags({ hold: '-5s' })).toThrow(/--hold "-5s" must be longer than zero/);
    expect(() => validateFlags({ vusers: '4', plateau: '0s' })).toThrow(/--plateau "0s" must be longer than zero/);
    expect(() => validateFlags({ ramp: 'soon' })).toThrow(/--ramp "soon" is not a duration/);
  });
});

describe('a duration flag written with several units, as k6 and Go write it', () => {
  it('is the sum of its parts (was: refused, "--ramp \\"1h30m\\" is not a duration"); a script phase keeps Artillery\'s one unit', () => {
    expect(validateFlags({ vusers: '10', ramp: '1h30m' }).rampSeconds).toBe(5400);
    expect(validateFlags({ hold: '2m30s' }).holdSeconds).toBe(150);
    expect(validateFlags({ vusers: '10', plateau: '1m0.5s' }).holdSeconds).toBe(10 + 60.5);
    expect(() => validateFlags({ ramp: '0h0m' })).toThrow(/--ramp "0h0m" must be longer than zero/);
    expect(() => validateFlags({ ramp: '1h 30m' })).toThrow(/--ramp "1h 30m" is not a duration/);
    expect(validateFlags({ vusers: '10', ramp: '1H30M' }).rampSeconds).toBe(5400);
    // The whole is bounded, not each part: 25d1h is too long as 25d is (a part over the bound added 0: 1 h).
    expect(() => validateFlags({ hold: '25d1h' })).toThrow(/--hold 25d1h is longer than the \d+ s/);
    expect(() => validateFlags({ hold: '30d1s' })).toThrow(/--hold 30d1s is longer than/);
    expect(() => parseDuration('1h30m', 'phase 1 duration')).toThrow(/is not a valid duration/);
  });
});

describe('--vusers N without --hold holds all N at once', () => {
  it('holds each vuser for the ramp plus the default plateau', () => {
    const o = validateFlags({ vusers: '400', ramp: '10s' });
    expect(o.plateauSeconds).toBe(DEFAULT_PLATEAU_SECONDS);
    expect(o.holdSeconds).toBe(10 + DEFAULT_PLATEAU_SECONDS);
  });
  it('uses the default ramp (100 arrivals/s, at least 10 s) when --ramp is absent', () => {
    expect(validateFlags({ vusers: '96000', plateau: '60s' }).holdSeconds).toBe(960 + 60);
  });
  it('plans the peak at N', () => {
    const o = validateFlags({ vusers: '400', ramp: '10s', plateau: '5s' });
    const plan = planLoad({ phases: [{ duration: 10, arrivalCount: 400 }], limits: { openFiles: 1e6, ephemeralPorts: 1e6, memoryBytes: 1e12, bytesPerVuser: 1, socketsPerVuser: 1, sourceAddresses: 1, processes: 1 }, sessionSeconds: (o.holdSeconds as number) + 5 });
    expect(plan.peakConcurrent).toBe(400);
  });
  it('--hold keeps its meaning; --plateau without --vusers or with --hold is refused', () => {
    expect(validateFlags({ vusers: '400', hold: '5s' })).toMatchObject({ holdSeconds: 5 });
    expect(validateFlags({ vusers: '400', hold: '5s' }).plateauSeconds).toBeUndefined();
    expect(validateFlags({}).holdSeconds).toBeUndefined();
    expect(() => validateFlags({ plateau: '5s' })).toThrow(/--plateau only applies with --vusers/);
    expect(() => validateFlags({ vusers: '4', hold: '1s', plateau: '5s' })).toThrow(/drop --hold or --plateau/);
  });
});

describe('credentials in URLs', () => {
  it('redacts user and password, keeps everything else', () => {
    expect(redactUrl('http://user:pw@host:3000/a?b=1')).toBe('http://***:***@host:3000/a?b=***');
    expect(redactUrl('https://token@host')).toBe('https://***@host');
    expect(redactUrl('http://host:3000')).toBe('http://host:3000');
    expect(redactUrl('http://host:3000/a/')).toBe('http://host:3000/a/');
    expect(redactUrl('not a url')).toBe('not a url');
  });
  it('hides every query value (keys kept), a bare segment and a fragment: a token often travels there (was: shown and stored whole)', () => {
    expect(redactUrl('http://127.0.0.1:4101/?token=QSECRET123')).toBe('http://127.0.0.1:4101/?token=***');
    expect(redactUrl('ws://127.0.0.1:4101/feed?token=QSECRET123&debug&room=a')).toBe('ws://127.0.0.1:4101/feed?token=***&***&room=***');
    // A bare segment may be the token itself.
    expect(redactUrl('ws://127.0.0.1:4101/feed?QSECRET123')).toBe('ws://127.0.0.1:4101/feed?***');
    expect(redactUrl('http://bob:pa/ss99@127.0.0.1:4101/x?QSECRET123')).not.toContain('QSECRET123');
    expect(redactUrl('https://h/#access_token=QSECRET123')).toBe('https://h/#***');
    // A bare segment is hidden too: `?debug` and `?QSECRET123` look alike.
    expect(redactUrl('http://127.0.0.1:4101/?debug')).toBe('http://127.0.0.1:4101/?***');
    expect(storedCredentialsProblem('aws', 'http://h/?token=QSECRET123')).toMatch(/^target http:\/\/h\/\?token=\*\*\* carries credentials or query values, which on --platform aws/);
    expect(storedCredentialsProblem('local', 'http://h/?token=QSECRET123')).toBeUndefined();
  });
  it('a URL that does not parse is redacted as text: anything before the last @ of the authority, the query (was: echoed whole)', () => {
    expect(redactUrl('http://bob:pa/ss99@127.0.0.1:4101')).toBe('http://***:***@127.0.0.1:4101');
    expect(redactUrl('http://bob:p@ss@127.0.0.1:99999/x?token=abc')).toBe('http://***:***@127.0.0.1:99999/x?token=***');
    expect(redactUrl('bob:pw@127.0.0.1:4101')).toBe('***:***@127.0.0.1:4101');
    expect(redactText('--target "http://bob:pa/ss99@127.0.0.1:4101" is not a URL')).toBe('--target "http://***:***@127.0.0.1:4101" is not a URL');
    expect(redactText('GET ws://h:1/feed?token=abc failed')).toBe('GET ws://h:1/feed?token=*** failed');
    // In JSON text (--json, --output) the URL ends at the backslash escaping its closing quote.
    const json = redactText(JSON.stringify({ error: '--target "http://bob:pa/ss99@127.0.0.1:4101" is not a URL' }));
    expect(JSON.parse(json)).toEqual({ error: '--target "http://***:***@127.0.0.1:4101" is not a URL' });
  });
  it('redacts inside free text', () => {
    expect(redactText('--target http://u:secret@127.0.0.1:9 is unreachable')).toBe('--target http://***:***@127.0.0.1:9 is unreachable');
    expect(redactText('"target": "wss://a:b@h/x"')).toBe('"target": "wss://***:***@h/x"');
  });
});

describe('a flag of one value given twice', () => {
  const repeatedIn = (argv: string[]) => {
    const program = buildProgram().exitOverride();
    const check = watchRepeatedValues(program);
    program.parse(argv, { from: 'user' });
    return check();
  };
  it('two different values are named, in order, whatever the spelling (was: the last one ran silently)', () => {
    expect(repeatedIn(['--scenario', 'connect', '--scenario', 'pubsub'])).toBe('--scenario was given twice ("connect", then "pubsub"); it takes one value: pass it once');
    expect(repeatedIn(['-t', 'http://127.0.0.1:1', '--target=http://127.0.0.1:2'])).toMatch(/^--target was given twice \("http:\/\/127.0.0.1:1", then "http:\/\/127.0.0.1:2"\)/);
    expect(repeatedIn(['--vusers', '5', '--ramp', '1s', '--vusers', '6', '--vusers', '5'])).toBe('--vusers was given 3 times ("5", then "6"); it takes one value: pass it once');
  });
  it('the same value twice, repeatable flags and switches pass', () => {
    expect(repeatedIn(['--vusers', '5', '--vusers', '5', '--json', '--json'])).toBeUndefined();
    expect(repeatedIn(['--var', 'a=1', '--var', 'b=2', '--ensure', 'vusers.failed == 0', '--ensure', 'ws.connect_time.p99 < 300'])).toBeUndefined();
  });
  it('the parseArgs entry points (report, bench, soak) refuse it too, with their usage', () => {
    const options = { runs: { type: 'string' }, ensure: { type: 'string', multiple: true }, json: { type: 'boolean' } } as const;
    expect(() => parseFlags(['--runs', '3', '--runs=4'], options, 'usage: soak')).toThrow(new UsageError('--runs was given twice ("3", then "4"); it takes one value: pass it once; usage: soak'));
    expect(parseFlags(['--runs', '3', '--runs', '3', '--ensure', 'a', '--ensure', 'b', '--json', '--json'], options, 'usage: soak').values).toEqual({ runs: '3', ensure: ['a', 'b'], json: true });
  });
  it('the CLI refuses it before anything starts: one line, exit 2, and --output gets the bad-input summary', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rig-unit-twice-')), 'summary.json');
    const r = await runCli(['--scenario', 'connect', '--scenario', 'pubsub', '--output', out], { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('error: --scenario was given twice ("connect", then "pubsub"); it takes one value: pass it once');
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toMatchObject({ status: 'bad-input', exitCode: 2 });
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }, 70_000);
});

describe('two flags that set one thing', () => {
  it('--var with the same key twice and different values is refused (was: the last one ran silently); the same value twice passes', () => {
    expect(() => validateFlags({ var: ['rooms=10', 'rooms=20'] })).toThrow(new UsageError('--var rooms was given twice ("10", then "20"); pass it once'));
    expect(validateFlags({ var: ['rooms=10', 'rooms=10'] }).vars).toEqual({ rooms: 10 });
  });
  it('--hold or --plateau beside --var hold= is refused (was: --var hold won silently); --var hold alone with --vusers is the user\'s hold', () => {
    expect(() => validateFlags({ hold: '30s', var: ['hold=10'] })).toThrow(new UsageError('--hold 30s and --var hold=10 both set how long each vuser holds (the variable hold); pass one'));
    expect(() => validateFlags({ vusers: '20', plateau: '1m', var: ['hold=10'] })).toThrow(/^--plateau 1m and --var hold=10 both set/);
    expect(validateFlags({ vusers: '20', var: ['hold=10'] }).vars).toEqual({ hold: 10 });
    expect(() => validateFlags({ hold: '30s', var: ['hold={"a":1}'] })).toThrow('--hold 30s and --var hold={"a":1} both set');
  });
});

describe('flags npm took for itself', () => {
  const program = longFlags(buildProgram());
  it('names them under npm run, not otherwise, not when passed through', () => {
    expect(npmEatenFlags({ npm_lifecycle_event: 'loadtest', npm_config_vusers: 'true', npm_config_ramp: '10s' }, program, ['300'])).toEqual(['--vusers', '--ramp']);
    expect(npmEatenFlags({ npm_config_vusers: 'true' }, program, ['300'])).toEqual([]);
    expect(npmEatenFlags({ npm_lifecycle_event: 'loadtest', npm_config_vusers: '300' }, program, ['--vusers', '300'])).toEqual([]);
  });
  it("ignores node-gyp's npmrc `target` (a version), not a bare --target flag", () => {
    expect(npmEatenFlags({ npm_lifecycle_event: 'loadtest', npm_config_target: '22.1.0' }, program, [])).toEqual([]);
    expect(npmEatenFlags({ npm_lifecycle_event: 'loadtest', npm_config_target: 'true' }, program, [])).toEqual(['--target']);
  });
  it('a value npm took before "--" and the same flag with another value after it is refused (npm dropped the first silently)', () => {
    const env = { npm_lifecycle_event: 'loadtest', npm_config_scenario: 'pubsub' };
    expect(npmEatenRefusal(env, program, ['--scenario', 'connect'])).toBe(
      'error: --scenario was given twice: --scenario=pubsub before "--" (npm took it for itself) and --scenario connect after it; pass it once, after "--": npm run loadtest -- --scenario …',
    );
    expect(npmEatenRefusal(env, program, ['--scenario=connect'])).toMatch(/^error: --scenario was given twice/);
    // The same value, a switch npm saw as `true`, and node-gyp's npmrc target pass.
    expect(npmEatenRefusal(env, program, ['--scenario', 'pubsub'])).toBeUndefined();
    expect(npmEatenRefusal({ npm_lifecycle_event: 'loadtest', npm_config_json: 'true' }, program, ['--json'])).toBeUndefined();
    expect(npmEatenRefusal({ npm_lifecycle_event: 'loadtest', npm_config_target: '22.1.0' }, program, ['--target', 'http://127.0.0.1:3000'])).toBeUndefined();
    expect(npmEatenRefusal({ npm_config_scenario: 'pubsub' }, program, ['--scenario', 'connect'])).toBeUndefined();
  });
  it('every entry point checks its own flags and names its own script (commander or parseArgs options)', () => {
    expect(longFlags({ compare: { type: 'boolean' }, json: { type: 'boolean' } })).toEqual(['--compare', '--json']);
    const env = { npm_lifecycle_event: 'report', npm_config_compare: 'true' };
    expect(npmEatenRefusal(env, ['--compare', '--json'], ['runs/a', 'runs/b'])).toBe(
      'error: npm took --compare for itself because no "--" came before the flags; put "--" first: npm run report -- --compare …',
    );
    expect(npmEatenRefusal(env, ['--compare'], ['--compare', 'runs/a', 'runs/b'])).toBeUndefined();
  });
});

describe('run folders that can never be one', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-unit-folder-'));
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
  it('knows the pseudo-filesystems', () => {
    expect(pseudoFilesystemOf('/proc')).toBe('proc');
    expect(pseudoFilesystemOf('/sys')).toBe('sysfs');
    expect(pseudoFilesystemOf(scratch)).toBeUndefined();
  });
  it('refuses /proc at once (a recursive mkdir there never returns) and leaves nothing', () => {
    expect(() => createRunFolder('/proc/rig-unit/run')).toThrow(/proc pseudo-filesystem/);
  });
  it('creates missing parents one by one and reports exactly what it created', () => {
    const dir = path.join(scratch, 'a', 'b', 'run');
    expect(createRunFolder(dir)).toEqual([path.join(scratch, 'a'), path.join(scratch, 'a', 'b'), dir]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('small runs', () => {
  const script = { config: {}, scenarios: [{}] };
  const platform = { sourceAddress: (g: number, k: number) => `127.0.1.${10 + g * 2 + k}` };
  const limits = { openFiles: 1e6, ephemeralPorts: 1e6, memoryBytes: 1e12, bytesPerVuser: 1, socketsPerVuser: 1, sourceAddresses: 2, processes: 2 };
  it('--vusers 1 on a 2-core generator: one load process', () => {
    const specs = generatorSpecs(planLoad({ phases: [{ duration: 1, arrivalCount: 1 }], limits, sessionSeconds: 5 }), script, platform);
    expect(specs.map((s) => [s.id, s.processes.length])).toEqual([['g01', 1]]);
  });
  it("a user's script: no source address, its processes marked as the OS's choice (Artillery's engines bind none)", () => {
    const plan = planLoad({ phases: [{ duration: 1, arrivalCount: 2 }], limits, sessionSeconds: 5 });
    expect(generatorSpecs(plan, script, platform, false)[0]?.processes.map((p) => ({ sourceAddress: p.sourceAddress, osChoice: p.osChoice }))).toEqual([{ sourceAddress: undefined, osChoice: true }, { sourceAddress: undefined, osChoice: true }]);
    expect(generatorSpecs(plan, script, platform)[0]?.processes.map((p) => p.sourceAddress)).toEqual(['127.0.1.10', '127.0.1.11']);
  });
  it('--generators 4 --vusers 2: the two generators with a share, one process each', () => {
    const plan = planLoad({ phases: [{ duration: 1, arrivalCount: 2 }], generators: 4, limits, sessionSeconds: 5 });
    const specs = generatorSpecs(plan, script, platform);
    expect(specs.map((s) => [s.id, s.processes.length])).toEqual([['g01', 1], ['g02', 1]]);
  });
});

describe('credentials that would be stored', () => {
  it('are refused on AWS (slices live in S3) and allowed locally (agents get them through their environment)', () => {
    expect(storedCredentialsProblem('aws', 'http://u:pw@10.0.0.5:8080')).toMatch(/^target http:\/\/\*\*\*:\*\*\*@10\.0\.0\.5:8080 carries credentials/);
    expect(storedCredentialsProblem('aws', 'http://u:pw@10.0.0.5:8080')).not.toContain('pw@');
    expect(storedCredentialsProblem('aws', 'http://10.0.0.5:8080')).toBeUndefined();
    expect(storedCredentialsProblem('local', 'http://u:pw@127.0.0.1:80')).toBeUndefined();
  });
});

describe('one rule for each kind of input', () => {
  it('durations: flags and script phases read "1.5" as 1.5 s; load processes get whole seconds as numbers, the rest as "<n>ms" (what Artillery reads exactly)', () => {
    expect(validateFlags({ ramp: '1.5' }).rampSeconds).toBe(1.5);
    expect(parseDuration('1.5', 'phase 0.duration')).toBe(1.5);
    for (const v of ['90', '90s', '20m', '1500ms', 2.5]) expect(parseDuration(v, 'd')).toBe(validateFlags({ ramp: String(v) }).rampSeconds);
    const script = processScript({ config: {}, scenarios: [{}] }, [{ duration: '1.5', arrivalRate: 2 }, { pause: '20m' }, { duration: 30, arrivalCount: 3 }], undefined);
    expect(script.config.phases).toEqual([{ duration: '1500ms', arrivalRate: 2 }, { pause: 1200 }, { duration: 30, arrivalCount: 3 }]);
    expect(durationNotes([{ duration: '1.5', arrivalRate: 2 }, { duration: 2.5, arrivalRate: 1 }, { duration: '2', arrivalRate: 1 }], [{ duration: '1.5' }, { duration: 2.5 }, { duration: '2' }])).toEqual([
      'note: config.phases[0]: duration "1.5" is run as 1.5 s (plain artillery run reads "1.5" as 1.5 ms); write "1.5s" to say so in the script itself',
      'note: config.phases[1]: duration 2.5 is run as 2.5 s (plain artillery run refuses 2.5 ("Invalid duration for phase")); write "2.5s" to say so in the script itself',
    ]);
    expect(durationNotes([{ duration: '1.5', arrivalRate: 2 }], [{ duration: 60 }])).toEqual([]); // replaced by flags: not run
    // A profile's length counts string durations (the run's deadline was NaN for "20m").
    expect(profileSeconds([{ duration: '20m', arrivalRate: 1 }, { pause: '30s' }, { duration: 1.5, arrivalCount: 1 }])).toBe(1231.5);
  });
  it('whole numbers: --generator-capacity is read like --vusers', () => {
    expect(parseGeneratorCapacity('48000')).toBe(48000);
    expect(parseGeneratorCapacity(undefined)).toBeUndefined();
    expect(() => parseGeneratorCapacity('1.5')).toThrow('--generator-capacity "1.5" must be a whole number of at least 1, e.g. --generator-capacity 48000');
    expect(() => parseGeneratorCapacity('1000001')).toThrow('--generator-capacity 1000001 is more than the 1,000,000 this rig accepts; ask for fewer');
    expect(() => validateFlags({ vusers: '1.5' })).toThrow('--vusers "1.5" must be a whole number of at least 1, e.g. --vusers 300');
  });
  it('flags only AWS reads are refused on a local run, whichever way local was chosen', () => {
    expect(() => refuseAwsOnlyFlags({ teardown: true })).toThrow('--teardown only applies to --platform aws; drop it for a local run');
    expect(() => refuseAwsOnlyFlags({ keepGenerators: true })).toThrow('--keep-generators only applies to --platform aws; drop it for a local run');
    expect(() => refuseAwsOnlyFlags({ generatorCapacity: '100' })).toThrow(/^--generator-capacity only applies to --platform aws/);
    expect(() => refuseAwsOnlyFlags({ teardown: false, keepGenerators: false })).not.toThrow();
  });
});

describe('an unexpected error (a rig bug)', () => {
  it('is one line: its message and where its stack went, never the stack itself', () => {
    const err = new TypeError("Cannot read properties of undefined (reading 'x')\n    at f (/repo/scripts/run.ts:1:1)");
    const line = unexpectedErrorLine(err, 'runs/r1/rig-error.txt');
    expect(line).toBe("Cannot read properties of undefined (reading 'x') (an unexpected error in the rig: its stack is in runs/r1/rig-error.txt; please include it in a bug report)");
    expect(unexpectedErrorLine('boom')).toMatch(/^boom \(an unexpected error in the rig: rerun with RIG_DEBUG=1 to print its stack;/);
    expect(line).not.toMatch(/\n|at f/);
  });
});

describe('--output never writes over what the run reads', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-output-input-'));
  const file = (name: string) => {
    const f = path.join(dir, name);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, 'x');
    return f;
  };
  const script = file('my.yml');
  const processor = file('proc.js');
  const payload = file('data/users.csv');
  const inputs = [script, processor, payload];
  fs.symlinkSync(script, path.join(dir, 'link.yml'));
  const baseline = path.join(dir, 'runs', 'base');
  fs.mkdirSync(baseline, { recursive: true });

  it('refuses the script, its processor and payloads, however spelt (relative, ./, a symlink)', () => {
    expect(() => checkOutputNotInput(script, inputs, undefined)).toThrow(/--output \S+my\.yml is your script/);
    expect(() => checkOutputNotInput(path.join(dir, 'data', '..', 'proc.js'), inputs, undefined)).toThrow(/is a file your script reads \(\S+proc\.js\)/);
    expect(() => checkOutputNotInput(path.join(dir, 'link.yml'), inputs, undefined)).toThrow(UnsafeOutputError);
    expect(() => checkOutputNotInput(path.relative(process.cwd(), payload), inputs, undefined)).toThrow(/users\.csv/);
  });

  it('refuses a file inside the --baseline run folder; any other file is fine', () => {
    expect(() => checkOutputNotInput(path.join(baseline, 'report.json'), inputs, { baseline })).toThrow(/inside the --baseline run folder/);
    expect(() => checkOutputNotInput(path.join(dir, 'summary.json'), inputs, { baseline })).not.toThrow();
    expect(() => checkOutputNotInput(path.join(dir, 'runs', 'base2.json'), inputs, { baseline })).not.toThrow();
  });

  it("refuses a file in any run folder (run.json and generators/ at any depth above it) or in this run's --out: it would change that run's files", () => {
    const earlier = path.join(dir, 'runs', '20261126-120000-abcd');
    fs.mkdirSync(path.join(earlier, 'generators', 'g01'), { recursive: true });
    fs.writeFileSync(path.join(earlier, 'run.json'), '{}');
    // `--output runs/<id>/run.json` replaced that run's plan, and `npm run report` could no longer read it.
    expect(() => checkOutputNotInput(path.join(earlier, 'run.json'), inputs)).toThrow(new RegExp(`^--output \\S+run\\.json is inside the run folder ${earlier}; the summary JSON would change that run's files: pass a file outside it$`));
    expect(() => checkOutputNotInput(path.join(earlier, 'generators', 'g01', 'x.json'), inputs)).toThrow(UnsafeOutputError);
    const own = path.join(dir, 'runs', 'mine');
    fs.mkdirSync(own);
    expect(() => checkOutputNotInput(path.join(own, 'report.json'), inputs, { out: own })).toThrow(/inside this run's --out folder \S+mine, which keeps the summary as report\.json already/);
    expect(() => checkOutputNotInput(path.join(dir, 'runs', 'summary.json'), inputs, { out: own })).not.toThrow();
    // A run.json of the user's own (no generators/ beside it) is not a run folder.
    const project = path.join(dir, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'run.json'), '{}');
    expect(() => checkOutputNotInput(path.join(project, 'summary.json'), inputs)).not.toThrow();
  });
});

describe('RIG_HEARTBEAT_TIMEOUT_MS', () => {
  it('is milliseconds, at least 3000; seconds by mistake (30) or a word are refused, not run with every agent orphaned', () => {
    expect(parseHeartbeatTimeout(undefined)).toBeUndefined();
    expect(parseHeartbeatTimeout('')).toBeUndefined();
    expect(parseHeartbeatTimeout('4000')).toBe(4000);
    expect(() => parseHeartbeatTimeout('30')).toThrow(/RIG_HEARTBEAT_TIMEOUT_MS=30 must be a whole number of milliseconds, at least 3000/);
    expect(() => parseHeartbeatTimeout('30s')).toThrow(UsageError);
    expect(() => parseHeartbeatTimeout('-1')).toThrow(UsageError);
  });
});
