/**
 * A user's engine or plugin installed here but not on the AWS generators is refused before anything starts (was:
 * the fleet scaled and every load process died at its first vuser, exit 3). What a generator has is read from
 * the repository's package-lock.json, as the generator stack builds its npm tree.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Lockfile } from '../../lib/agent-lockfile';
import { UsageError } from '../../scripts/errors';
import { assertEnvOnGenerators, assertGeneratorsHaveModules, assertScriptShips, generatorModuleFinder, generatorPackageFinder, packageOf } from '../../scripts/generator-modules';
import { notShipped } from '../../scripts/platforms/aws/bundle';
import { loadScenario } from '../../scripts/scenario';
import { bundledInArtillery, checkScriptFiles, namedFiles, requiredModules } from '../../scripts/script-check';

const ROOT = path.join(__dirname, '..', '..');
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as Lockfile;
const onGenerators = generatorModuleFinder(lock, bundledInArtillery);
const script = (config: Record<string, unknown>, scenarios: unknown[] = [{ flow: [] }]) => ({ config, scenarios });

test("a generator has Artillery's bundled plugins and engines and its own tree, not a package only this checkout has", () => {
  for (const m of ['artillery-plugin-expect', 'artillery-plugin-ensure', 'artillery-plugin-metrics-by-endpoint', 'artillery-engine-playwright']) expect([m, onGenerators(m)]).toEqual([m, true]);
  // In the repository's lockfile (a dev tool here) but not in the agent's tree.
  expect(onGenerators('jest')).toBe(false);
  expect(onGenerators('artillery-engine-kafka')).toBe(false);
});

test('requiredModules: engines beyond http/ws/socketio (scenario, config, before/after) and every plugin with its scope', () => {
  const s = { ...script({ engine: 'kafka', plugins: { expect: {}, foo: { scope: '@acme/artillery-plugin-' } } }, [{ engine: 'ws', flow: [] }, { flow: [] }]), before: { engine: 'grpc', flow: [] } };
  expect(requiredModules(s)).toEqual([
    { where: 'engine "grpc"', module: 'artillery-engine-grpc' },
    { where: 'engine "kafka"', module: 'artillery-engine-kafka' },
    { where: 'config.plugins.expect', module: 'artillery-plugin-expect' },
    { where: 'config.plugins.foo', module: '@acme/artillery-plugin-foo' },
  ]);
});

test("requiredModules: a before/after hook without an engine runs http, not config.engine (Artillery's handleScriptHook)", () => {
  const s = { ...script({ engine: 'kafka' }, [{ engine: 'http', flow: [] }]), before: { flow: [] }, after: { flow: [] } };
  expect(requiredModules(s)).toEqual([]);
});

test('refused when a module found here is missing on the generators; bundled ones and ones found nowhere pass', () => {
  const here = () => true;
  const needs = script({ engines: { kafka: {} }, plugins: { mine: {}, expect: {} } }, [{ engine: 'kafka', flow: [] }]);
  expect(() => assertGeneratorsHaveModules(needs, here, onGenerators)).toThrow(UsageError);
  expect(() => assertGeneratorsHaveModules(needs, here, onGenerators)).toThrow(
    /^engine "kafka" \(artillery-engine-kafka\), config\.plugins\.mine \(artillery-plugin-mine\): installed here but not on the AWS generators, which install only artillery, socket\.io-client, .*run this script with --platform local$/,
  );
  expect(() => assertGeneratorsHaveModules(script({ plugins: { expect: {} } }), here, onGenerators)).not.toThrow();
  // Not installed here either: the local checks own it (an engine is refused, a plugin noted), not this one.
  expect(() => assertGeneratorsHaveModules(needs, () => false, onGenerators)).not.toThrow();
});

describe("what a user's script takes to AWS generators: its folder (without node_modules) and the agent's packages", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-ship-'));
  const project = path.join(dir, 'project');
  const put = (rel: string, body: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), body);
  };
  put('project/node_modules/leftpad/index.js', 'module.exports = (s) => s;');
  put('project/node_modules/lodash/index.js', 'module.exports = {};');
  put('shared/util.js', 'exports.x = 1;');
  put('project/lib/own.js', 'exports.y = 2;');
  put('project/users.csv', 'a\n1\n');
  put('project/proc.js', "require('leftpad'); require('lodash'); require('../shared/util'); require('./lib/own'); require('node:path');\nmodule.exports = { f(c, e, d) { d(); } };\n");
  put('project/proc.mjs', "import 'leftpad';\nimport '../shared/util.js';\nexport function f(c, e, d) { d(); }\n");
  const scriptWith = (processor: string, payload = './users.csv') => {
    put('project/s.yml', `config: { target: "http://x", processor: ${processor}, payload: { path: ${payload} } }\nscenarios:\n  - flow: [ { function: f } ]\n`);
    const scenario = loadScenario(path.join(project, 's.yml'), path.join(ROOT, 'load-generators', 'scenarios'));
    return { file: scenario.file, dir: scenario.dir, named: namedFiles(scenario), loads: checkScriptFiles(scenario).loads };
  };
  const check = (files: ReturnType<typeof scriptWith>) => () => assertScriptShips(files, notShipped(ROOT, files.dir), generatorPackageFinder(lock), dir);

  test('a package only installed here (leftpad) and a file outside the folder are refused, each named; one on the generators (lodash) and files inside pass', () => {
    expect(check(scriptWith('./proc.js'))).toThrow(UsageError);
    const message = (() => {
      try {
        check(scriptWith('./proc.js'))();
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })();
    expect(message).toContain("project/proc.js loads ../shared/util (shared/util.js), outside the script's folder project");
    expect(message).toContain('project/proc.js loads the package leftpad, installed here but not on the AWS generators');
    expect(message).not.toMatch(/lodash|own\.js|users\.csv/);
  });

  test('an ES-module processor: its imports are read the same way', () => {
    expect(check(scriptWith('./proc.mjs'))).toThrow(/proc\.mjs loads \.\.\/shared\/util\.js .*outside.*; project\/proc\.mjs loads the package leftpad/);
  });

  test("a TypeScript processor: what esbuild bundled from the user's files is read the same way", () => {
    put('project/proc.ts', "import pad from 'leftpad';\nimport { x } from '../shared/util';\nexport function f(c: unknown, e: unknown, d: () => void): void { pad(String(x)); d(); }\n");
    expect(check(scriptWith('./proc.ts'))).toThrow(/proc\.ts loads \.\.\/shared\/util \(shared\/util\.js\), outside.*; project\/proc\.ts loads the package leftpad/);
  });

  test('a payload outside the folder is refused; the built-in scenarios (in load-generators/) ship whole', () => {
    put('project/clean.js', 'module.exports = { f(c, e, d) { d(); } };\n');
    expect(check(scriptWith('./clean.js', '../shared/util.js'))).toThrow(/^config\.payload\.path \.\.\/shared\/util\.js is outside the script's folder project/);
    expect(() => check(scriptWith('./clean.js'))()).not.toThrow();
    expect(notShipped(ROOT, path.join(ROOT, 'load-generators', 'scenarios'))(path.join(ROOT, 'load-generators', 'processors', 'connect.js'))).toBeUndefined();
    expect(notShipped(ROOT, project)(path.join(project, 'node_modules', 'leftpad', 'index.js'))).toBe('left out');
    expect(notShipped(ROOT, project)(path.join(dir, 'users.csv'))).toBe('outside');
  });

  // Artillery's HTTP engine reads a formData fromFile from the script's folder at every request: one outside it, or
  // left out, worked here and failed every upload on the generators (ENOENT) with no word before the run.
  test('a formData fromFile outside the folder or left out is refused, in a loop and in before too; one inside, or templated, passes', () => {
    put('project/clean.js', 'module.exports = { f(c, e, d) { d(); } };\n');
    put('project/avatar.png', 'png');
    put('project/.secret/key.pem', 'pem');
    const upload = (from: string) => `{ post: { url: /up, formData: { file: { fromFile: "${from}" } } } }`;
    put('project/u.yml', `config: { target: "http://x", processor: ./clean.js }\nbefore:\n  flow: [ ${upload('./.secret/key.pem')} ]\nscenarios:\n  - flow: [ { loop: [ ${upload('../shared/util.js')}, ${upload('./avatar.png')}, ${upload('{{ pick }}')} ], count: 2 } ]\n`);
    const scenario = loadScenario(path.join(project, 'u.yml'), path.join(ROOT, 'load-generators', 'scenarios'));
    const files = { file: scenario.file, dir: scenario.dir, named: namedFiles(scenario), loads: checkScriptFiles(scenario).loads };
    expect(files.named.map((n) => n.where)).toEqual([
      'config.processor ./clean.js',
      'scenarios[0].flow[0].loop[0].post.formData.file.fromFile ../shared/util.js',
      'scenarios[0].flow[0].loop[1].post.formData.file.fromFile ./avatar.png',
      'before.flow[0].post.formData.file.fromFile ./.secret/key.pem',
    ]);
    expect(check(files)).toThrow(
      /^scenarios\[0\]\.flow\[0\]\.loop\[0\]\.post\.formData\.file\.fromFile \.\.\/shared\/util\.js is outside the script's folder project.*; before\.flow\[0\]\.post\.formData\.file\.fromFile \.\/\.secret\/key\.pem is left out of what ships/,
    );
  });

  test('a payload in a hidden folder is named as left out, not as outside', () => {
    put('project/.data/rows.csv', 'a\n1\n');
    put('project/clean.js', 'module.exports = { f(c, e, d) { d(); } };\n');
    expect(check(scriptWith('./clean.js', './.data/rows.csv'))).toThrow(/^config\.payload\.path \.\/\.data\/rows\.csv is left out of what ships to the AWS generators \(node_modules, hidden files and folders/);
  });

  test('packageOf reads scoped and nested packages', () => {
    expect(packageOf('/a/node_modules/@faker-js/faker/dist/index.js')).toBe('@faker-js/faker');
    expect(packageOf('/a/node_modules/x/node_modules/y/lib/z.js')).toBe('y');
    expect(packageOf('/a/lib/z.js')).toBeUndefined();
  });
});

describe("environment variables a script's templates read: an AWS generator has only the rig's and the scenario secrets", () => {
  const withFlow = (config: Record<string, unknown>, flow: unknown[]) => ({ config, scenarios: [{ flow }] });

  test('{{ $env.API_KEY }} in a request is refused, naming the secrets path and the RIG_SECRET_ name to read (was: rendered empty on every generator)', () => {
    const s = withFlow({ target: '{{ $env.TARGET }}' }, [{ get: { url: '/', headers: { authorization: 'Bearer {{ $env.API_KEY }}' } } }, { log: '{{ $processEnvironment.STAGE }}' }]);
    expect(() => assertEnvOnGenerators(s, 'my.yml')).toThrow(
      /^my\.yml reads \{\{ \$env\.API_KEY \}\}, \{\{ \$env\.STAGE \}\}, which the AWS generators do not have .*--name \/loadtest-rig\/secrets\/api_key .*\{\{ \$env\.RIG_SECRET_API_KEY \}\}.*--platform local$/,
    );
  });

  test('config.target (resolved here before the run) and RIG_* variables pass', () => {
    expect(() => assertEnvOnGenerators(withFlow({ target: 'http://{{ $env.HOST }}' }, [{ get: { url: '/', headers: { a: '{{ $env.RIG_SECRET_API_KEY }}', b: '{{ $env.RIG_GENERATOR_ID }}' } } }]), 'my.yml')).not.toThrow();
  });
});
