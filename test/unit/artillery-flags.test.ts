/**
 * `artillery run` habits on `npm run loadtest`: -t and -k are accepted as Artillery means them; the other flags
 * of `artillery run` are refused naming the rig's way (they were commander's bare "unknown option"), and a script
 * given as a bare argument is told to use --scenario (was "too many arguments").
 */
import { buildProgram } from '../../scripts/cli';
import { artilleryFlagHint, missingValueHint, positionalHint } from '../../scripts/artillery-flags';
import { validateFlags } from '../../scripts/options';
import { applyOptions, checkInsecure } from '../../scripts/scenario';
import { UsageError } from '../../scripts/errors';
import { preflightSpec } from '../../scripts/preflight';
import { runCli } from '../helpers/cli';

const own = buildProgram().options.flatMap((o) => [o.long, o.short]).filter((f): f is string => f !== undefined);

describe('artillery run flags', () => {
  test('each of its flags the rig has under another name gets the rig\'s way', () => {
    expect(artilleryFlagHint(['--scenario', 'my.yml', '-o', 'r.json'], own)).toMatch(/-o is artillery run's --output; here --output FILE writes the summary JSON/);
    expect(artilleryFlagHint(['--variables', '{"a":1}'], own)).toMatch(/--var KEY=VALUE here/);
    expect(artilleryFlagHint(['--dotenv=.env'], own)).toMatch(/export the variables before the run/);
    expect(artilleryFlagHint(['-s'], own)).toBe('-s/--solo is --vusers 1 here');
    expect(artilleryFlagHint(['--count', '4'], own)).toBe('--count is --generators M here');
    expect(artilleryFlagHint(['--record', '--key', 'x'], own)).toMatch(/Artillery Cloud flags/);
  });

  test("the rig's own flags, -e, -t and -k included, and anything after -- are not hints", () => {
    expect(own).toEqual(expect.arrayContaining(['-e', '-t', '-k', '--output', '--insecure']));
    expect(artilleryFlagHint(['-t', 'http://127.0.0.1:1', '-k', '-e', 'x', '--output', 'o.json', '--', '-o'], own)).toBeUndefined();
    const program = buildProgram('/home/me');
    program.parse(['-t', 'http://127.0.0.1:1', '-k'], { from: 'user' });
    expect(program.opts()).toMatchObject({ target: 'http://127.0.0.1:1', insecure: true });
  });

  test('a bare script argument is told to use --scenario; "run" is named as not needed', () => {
    expect(positionalHint(['my.yml'])).toBe('pass your script as --scenario my.yml (a script is not taken as a bare argument)');
    expect(positionalHint(['run', 'my.yml'])).toBe('pass your script as --scenario my.yml ("run" is not needed, and a script is not taken as a bare argument)');
    expect(positionalHint(['what'])).toMatch(/unexpected argument what; every input is a flag/);
  });

  test('a flag that takes a value followed by another flag is named, not its next word (was: "unexpected argument runs/a")', async () => {
    const options = buildProgram().options;
    expect(missingValueHint(['-e', '--out', 'runs/a'], options)).toBe('-e/--environment needs a value, but the flag --out follows it; write -e <name> before --out');
    expect(missingValueHint(['--target', '-k'], options)).toBe('-t/--target needs a value, but the flag -k follows it; write --target <url> before -k');
    expect(missingValueHint(['--out=x', '--var', 'a=-1', '-e', 'staging', '--json'], options)).toBeUndefined();
    const r = await runCli(['--scenario', 'my.yml', '-e', '--out', 'runs/a'], { timeoutMs: 60_000 });
    expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({ code: 2, stderr: 'error: -e/--environment needs a value, but the flag --out follows it; write -e <name> before --out' });
  }, 60_000);

  test('through the real CLI: one line, exit 2, and the bad-input summary', async () => {
    const r = await runCli(['-o', 'report.json', '--json'], { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("error: -o is artillery run's --output; here --output FILE writes the summary JSON, and the run folder holds the full report.json");
    expect(r.json).toMatchObject({ status: 'bad-input', exitCode: 2 });
    const bare = await runCli(['run', 'my.yml'], { timeoutMs: 60_000 });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/error: pass your script as --scenario my\.yml/);
  }, 120_000);
});

describe('-k/--insecure', () => {
  const script = { config: { target: 'https://127.0.0.1:1', phases: [{ duration: 1, arrivalCount: 1 }] }, scenarios: [{ flow: [] }] };
  test("sets config.tls.rejectUnauthorized: false, keeping the script's other tls settings, as artillery run -k does", () => {
    expect(applyOptions(script, validateFlags({ insecure: true })).config.tls).toEqual({ rejectUnauthorized: false });
    const own = { ...script, config: { ...script.config, tls: { rejectUnauthorized: true, servername: 'api.test' } } };
    expect(applyOptions(own, validateFlags({ insecure: true })).config.tls).toEqual({ rejectUnauthorized: false, servername: 'api.test' });
    expect(checkInsecure(own, validateFlags({ insecure: true }), false, 'my.yml')).toMatch(/my\.yml sets config\.tls\.rejectUnauthorized: true; -k turns certificate checks off/);
    expect(applyOptions(script, validateFlags({})).config.tls).toBeUndefined();
  });
  test("a ws script's config.ws (or connect step) rejectUnauthorized: true wins over -k, as in Artillery's ws engine: the probe's untrusted-certificate fix names that key", () => {
    const ws = (extra: Record<string, unknown>, first: Record<string, unknown>) => ({ config: { ...script.config, target: 'wss://127.0.0.1:1', ...extra }, scenarios: [{ engine: 'ws', flow: [first] }] });
    const k = validateFlags({ insecure: true });
    expect(preflightSpec(applyOptions(ws({ ws: { rejectUnauthorized: true } }, { send: 'x' }), k), 'wss://127.0.0.1:1', false).untrustedCertFix).toMatch(/its config\.ws\.rejectUnauthorized: true applies over config\.tls/);
    expect(preflightSpec(applyOptions(ws({}, { connect: { target: 'wss://127.0.0.1:1', rejectUnauthorized: true } }), k), 'wss://127.0.0.1:1', false).untrustedCertFix).toMatch(/its scenarios\[0\]\.flow\[0\]\.connect\.rejectUnauthorized: true/);
    // Without the ws key, or for socketio (config.tls applied last), -k reaches the connections.
    expect(preflightSpec(applyOptions(ws({}, { send: 'x' }), k), 'wss://127.0.0.1:1', false).untrustedCertFix).toBeUndefined();
    // A `connect: { function }` step's connection is opened with config.ws (getWsInstance), not the step's own keys.
    const viaFunction = preflightSpec(applyOptions(ws({ ws: { rejectUnauthorized: true } }, { connect: { function: 'pick' } }), k), 'wss://127.0.0.1:1', false);
    expect(viaFunction.untrustedCertFix).toMatch(/its config\.ws\.rejectUnauthorized: true applies over config\.tls/);
    expect(viaFunction.insecureTls).toBeUndefined();
    expect(preflightSpec(applyOptions({ ...script, config: { ...script.config, socketio: { rejectUnauthorized: true } }, scenarios: [{ engine: 'socketio', flow: [] }] }, k), 'https://127.0.0.1:1', false)).toMatchObject({ insecureTls: true });
  }, 10_000);

  test('is refused for the built-in scenarios, whose own client checks the certificate', () => {
    expect(() => checkInsecure(script, validateFlags({ insecure: true }), true, 'connect')).toThrow(UsageError);
    expect(() => checkInsecure(script, validateFlags({ insecure: true }), true, 'connect')).toThrow(/-k\/--insecure applies to your own scripts/);
  });
});
