import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { validateFlags } from '../../scripts/options';
import { prepareRunInput } from '../../scripts/run-input';
import { loadScenario } from '../../scripts/scenario';
import { chooseTarget } from '../../scripts/target-choice';
import { checkTargetUrl } from '../../scripts/target-url';

const SCENARIOS = path.join(__dirname, '..', '..', 'load-generators', 'scenarios');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-target-'));
function script(name: string, config: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `config:\n${config}\n  phases: [{ duration: 1, arrivalCount: 1 }]\nscenarios:\n  - flow: [{ get: { url: / } }]\n`);
  return file;
}
const own = script('own.yml', '  target: "http://api.example.test:8080/v1"');
const envs = script('envs.yml', '  target: "http://127.0.0.1:9"\n  environments:\n    staging:\n      target: "wss://staging.example.test/socket"\n      variables: { room: s }\n    nothing:\n      variables: { room: n }');
const templated = script('templated.yml', '  target: "http://{{ $env.API_HOST }}:{{ $processEnvironment.API_PORT }}"');
const none = script('none.yml', '  http: { timeout: 5 }');
const upper = script('upper.yml', '  target: "HTTP://127.0.0.1:7000/api/"');

const choose = (flags: Parameters<typeof validateFlags>[0], env: Record<string, string> = {}) => {
  const options = validateFlags(flags);
  return chooseTarget(options, loadScenario(options.scenario, SCENARIOS, options.environment), env);
};

describe('chooseTarget', () => {
  test("a user script runs against its own config.target, path kept, and says so", () => {
    const c = choose({ scenario: own });
    expect(c.source).toBe('script');
    expect(c.options.target).toBe('http://api.example.test:8080/v1');
    expect(c.line).toBe('target: http://api.example.test:8080/v1 (config.target of own.yml; --target URL overrides it)');
  });

  test('credentials in the target are used but never printed', () => {
    const c = choose({ scenario: own, target: 'http://user:s3cret@127.0.0.1:7000' });
    expect(c.options.target).toBe('http://user:s3cret@127.0.0.1:7000');
    expect(c.line).not.toContain('s3cret');
  });

  test('--target wins, ws:// with its path accepted for a user script, exactly as written (the endpoint the ws engine connects to)', () => {
    const c = choose({ scenario: own, target: 'ws://127.0.0.1:7000/ws/' });
    expect(c.options.target).toBe('ws://127.0.0.1:7000/ws/');
    expect(c.line).toBe('target: ws://127.0.0.1:7000/ws/ (--target)');
    // http(s): Artillery appends each `/path` as text, so a trailing slash would make `//items`.
    expect(choose({ scenario: own, target: 'http://127.0.0.1:7000/api/' }).options.target).toBe('http://127.0.0.1:7000/api');
  });

  test('-e selects config.environments as Artillery does (target and variables)', () => {
    const options = validateFlags({ scenario: envs, environment: 'staging' });
    const scenario = loadScenario(envs, SCENARIOS, 'staging');
    expect(scenario.script.config.variables).toEqual({ room: 's', $environment: 'staging' });
    const c = chooseTarget(options, scenario, {});
    expect(c.options.target).toBe('wss://staging.example.test/socket');
    expect(c.line).toMatch(/config\.environments\.staging\.target of envs\.yml/);
    // An environment without a target keeps the script's own.
    expect(choose({ scenario: envs, environment: 'nothing' }).options.target).toBe('http://127.0.0.1:9');
  });

  test('an environment the script does not define is refused, listing the defined ones', () => {
    expect(() => choose({ scenario: envs, environment: 'prod' })).toThrow(/-e prod: envs\.yml has no config\.environments\.prod; use one of staging, nothing/);
  });

  test('$env / $processEnvironment templates resolve from the environment; an unset one is refused', () => {
    expect(choose({ scenario: templated }, { API_HOST: 'h.test', API_PORT: '81' }).options.target).toBe('http://h.test:81');
    expect(() => choose({ scenario: templated }, { API_HOST: 'h.test' })).toThrow(/needs the environment variable API_PORT/);
  });

  test('a user script without a target is refused with the ways to give one', () => {
    expect(() => choose({ scenario: none })).toThrow(/none\.yml has no config\.target; add one, pick an environment with -e NAME, pass --target URL, or --target reference/);
  });

  test('built-in scenarios and --target reference use the reference target the platform provides', () => {
    expect(choose({ scenario: 'connect' })).toMatchObject({ source: 'reference', options: { target: undefined } });
    const ref = choose({ scenario: own, target: 'reference' });
    expect(ref.source).toBe('reference');
    expect(ref.options.target).toBeUndefined();
  });

  // RFC 3986 §3.1: a scheme is case-insensitive; Artillery's HTTP engine still fails every request to HTTP://…
  test('an upper-case scheme is run in lower case, and the target line says so before the run', () => {
    const flag = choose({ scenario: own, target: ' HTTPS://User:pw@127.0.0.1:7000 ' });
    expect(flag.options.target).toBe('https://User:pw@127.0.0.1:7000');
    expect(flag.line).toBe('target: https://***:***@127.0.0.1:7000 (--target; scheme written as https:// (Artillery fails every request to HTTPS://))');
    const fromScript = choose({ scenario: upper });
    expect(fromScript.options.target).toBe('http://127.0.0.1:7000/api');
    expect(fromScript.line).toBe('target: http://127.0.0.1:7000/api (config.target of upper.yml; scheme written as http:// (Artillery fails every request to HTTP://); --target URL overrides it)');
    // A lower-case scheme adds nothing.
    expect(choose({ scenario: own }).line).not.toMatch(/scheme/);
  });

  test('a built-in scenario refuses a target with a query string or a fragment (its paths are appended as text); a user script keeps it', () => {
    expect(() => choose({ scenario: 'connect', target: 'http://127.0.0.1:3000/?token=abc' })).toThrow(
      /^--target has a query string, which the built-in scenarios cannot use: .*Give the base URL \(http:\/\/127\.0\.0\.1:3000\); a token/,
    );
    expect(() => choose({ scenario: 'connect', target: 'http://127.0.0.1:3000/?token=abc' })).not.toThrow(/abc/);
    expect(() => choose({ scenario: 'pubsub', target: 'http://127.0.0.1:3000/rt#x' })).toThrow(/has a fragment, .*\(http:\/\/127\.0\.0\.1:3000\/rt\)/);
    expect(choose({ scenario: 'connect', target: 'http://127.0.0.1:3000/prefix' }).options.target).toBe('http://127.0.0.1:3000/prefix');
    // Socket.IO and ws scripts of your own may carry a query (io() sends it with the handshake), as under plain Artillery.
    expect(choose({ scenario: own, target: 'ws://127.0.0.1:3000/feed?token=abc' }).options.target).toBe('ws://127.0.0.1:3000/feed?token=abc');
  });

  test('a built-in scenario refuses a ws:// target (it fetches its cookie over HTTP)', () => {
    expect(() => choose({ scenario: 'connect', target: 'ws://127.0.0.1:1' })).toThrow(/must be http:\/\/ or https:\/\/ for the built-in scenarios/);
  });
});

/**
 * `{{ $dirname }}`, `{{ $scenarioFile }}` and `{{ $environment }}` without -e: plain `artillery run` 2.0.34 fills them in
 * config.target (util.ts resolveConfigTemplates: `artillery run sub/t.yml` requests http://host/x/sub/…,
 * http://host/x//abs/sub/t.yml/…, http://host/x/undefined/…). No server is meant by a file path or "undefined" in a
 * URL: the rig refuses each, saying what Artillery would put there and how to fix it (was: "which the rig cannot
 * resolve before the run", which is not why).
 */
describe('a target made from the script\'s place, or an -e name not given', () => {
  const root = path.resolve(__dirname, '..', '..');
  const refusal = (flags: Parameters<typeof validateFlags>[0]) => {
    try {
      prepareRunInput(validateFlags(flags), root, {}, 'run-1');
    } catch (err) {
      return (err as Error).message;
    }
    return 'accepted';
  };
  const placed = (name: string, target: string, more = '') => script(name, `  target: "${target}"${more}`);

  test.each([
    ['{{ $dirname }}', 'http://127.0.0.1:9/x/{{ $dirname }}', /^config\.target of d\.yml uses \{\{ \$dirname \}\}: plain artillery run fills it with the script's folder as its path was typed \(sub for artillery run sub\/d\.yml, \. from inside that folder\), which puts a file path into the target URL; a target is a server's address: write the URL out \(a part that changes as \{\{ NAME \}\} with --var NAME=VALUE\), or pass --target URL$/],
    ['{{{ $dirname }}} (three braces)', 'http://{{{ $dirname }}}', /^config\.target of d\.yml uses \{\{ \$dirname \}\}: /],
  ])('%s', (_name, target, message) => {
    expect(refusal({ scenario: placed('d.yml', target) })).toMatch(message);
  });

  test('{{ $scenarioFile }}: named as written (the rig made it {{ $dirname }}/<script> in config), with the path Artillery would use', () => {
    const file = placed('f.yml', 'http://127.0.0.1:9/{{ $scenarioFile }}');
    expect(refusal({ scenario: file })).toBe(
      `config.target of f.yml uses {{ $scenarioFile }}: plain artillery run fills it with the script's own path (${file}), which puts a file path into the target URL; a target is a server's address: write the URL out (a part that changes as {{ NAME }} with --var NAME=VALUE), or pass --target URL`,
    );
  });

  test('{{ $environment }} without -e: the environments to pick from, or none; with -e it is the name, as before', () => {
    const withEnvs = placed('e.yml', 'http://{{ $environment }}.example.test', '\n  environments:\n    staging: { variables: { a: 1 } }\n    prod: { variables: { a: 2 } }');
    expect(refusal({ scenario: withEnvs })).toBe('config.target of e.yml uses {{ $environment }} but no -e NAME was given: plain artillery run fills it with the text "undefined", a target the script never names; pass -e NAME (e.yml defines staging, prod), or --target URL');
    expect(refusal({ scenario: placed('n.yml', 'http://127.0.0.1:9/{{ $environment }}') })).toMatch(/^config\.target of n\.yml uses \{\{ \$environment \}\} but no -e NAME was given: .*; n\.yml defines no config\.environments to pick with -e NAME: write the URL out/);
    expect(prepareRunInput(validateFlags({ scenario: withEnvs, environment: 'prod' }), root, {}, 'run-1').options.target).toBe('http://prod.example.test');
  });

  test('--target with them is refused the same way (artillery run -t fills them too)', () => {
    expect(refusal({ scenario: own, target: 'http://127.0.0.1:9/{{ $dirname }}' })).toMatch(/^--target uses \{\{ \$dirname \}\}: plain artillery run fills it/);
    expect(refusal({ scenario: own, target: 'http://127.0.0.1:9/{{ $environment }}' })).toMatch(/^--target uses \{\{ \$environment \}\} but no -e NAME was given/);
  });

  test('elsewhere in config they are resolved as before ($dirname in a variable is the script\'s folder on the generators)', () => {
    const input = prepareRunInput(validateFlags({ scenario: placed('v.yml', 'http://127.0.0.1:9', '\n  variables: { at: "{{ $scenarioFile }}" }') }), root, {}, 'run-1');
    expect(input.options.target).toBe('http://127.0.0.1:9');
    expect(input.script.config.variables).toMatchObject({ at: '{{ $dirname }}/v.yml' });
  });
});

describe('a mistyped target URL: one line naming what is wrong, never its password or query', () => {
  const refusal = (value: string) => {
    try {
      checkTargetUrl(value, '--target', true);
    } catch (err) {
      return (err as Error).message;
    }
    return 'accepted';
  };
  test('a password with a / makes it no URL: the line hides the credentials (was: echoed whole, into --output too)', () => {
    expect(refusal('http://bob:pa/ss99@127.0.0.1:4101')).toBe('--target "http://***:***@127.0.0.1:4101" is not a URL; e.g. http://127.0.0.1:3000 or ws://127.0.0.1:3000/path');
    expect(() => validateFlags({ target: 'http://bob:pa/ss99@127.0.0.1:4101' })).toThrow(/^--target "http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:4101" is not a URL/);
  });
  test('no scheme, a port out of range, port 0: named, with the fix', () => {
    expect(refusal('127.0.0.1:4101')).toMatch(/^--target "127\.0\.0\.1:4101" has no scheme; write it as http:\/\/127\.0\.0\.1:4101 /);
    expect(refusal('localhost:4101')).toMatch(/^--target "localhost:4101" has no scheme; write it as http:\/\/localhost:4101 /);
    expect(refusal('bob:pw@127.0.0.1:4101')).toMatch(/^--target "\*\*\*:\*\*\*@127\.0\.0\.1:4101" has no scheme/);
    expect(refusal('http://127.0.0.1:99999')).toMatch(/^--target "http:\/\/127\.0\.0\.1:99999" is not a URL: port 99999 is out of range \(1-65535\); /);
    expect(refusal('http://127.0.0.1:0')).toBe("--target http://127.0.0.1:0 has port 0, which no server listens on; give the target's port (1-65535)");
    expect(refusal('not a url')).toMatch(/^--target "not a url" is not a URL; /);
  });
});
