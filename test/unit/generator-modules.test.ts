/**
 * A user's engine or plugin installed here but not on the AWS generators is refused before anything starts (was:
 * the fleet scaled and every load process died at its first vuser, exit 3). What a generator has is read from
 * the repository's package-lock.json, as the generator stack builds its npm tree.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Lockfile } from '../../lib/agent-lockfile';
import { UsageError } from '../../scripts/errors';
import { assertGeneratorsHaveModules, generatorModuleFinder } from '../../scripts/generator-modules';
import { bundledInArtillery, requiredModules } from '../../scripts/script-check';

const lock = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package-lock.json'), 'utf8')) as Lockfile;
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
