/**
 * Artillery's own script check (its lib/util/validate-script: a Joi schema of config, scenarios, flows and steps),
 * run before anything starts. `artillery run` applies it to every script before its first vuser and stops with
 * "Scenario validation error: …"; under the rig that line ended each load process instead, and the run as a lost
 * generator (exit 3) with the reason only in a load process's log, or an agent's stack trace for a flow that is
 * not a list. Artillery's own function rather than a copy of its schema: the same rules, whatever its version.
 */
import * as path from 'node:path';

type Validate = (script: unknown) => string | undefined;

/**
 * The first problem Artillery's check finds in `script` (its message, e.g. `"scenarios[0].flow" is required`),
 * or undefined when it passes. A script without `config.target` is checked as if it had one: the rig gives the
 * target by `--target` or refuses a missing one itself, with the ways to give it.
 */
export function artilleryScriptProblem(script: { readonly config?: Record<string, unknown> } & Record<string, unknown>): string | undefined {
  // Node's own require, even under a test runner that replaces `module` (Jest): validate-script is an ES module,
  // loaded with require(esm) (Node ≥ 22.12).
  const nodeModule = (process as unknown as { getBuiltinModule(id: string): typeof import('node:module') }).getBuiltinModule('node:module');
  const load = nodeModule.createRequire(__filename);
  const file = path.join(path.dirname(load.resolve('artillery/package.json')), 'dist', 'lib', 'util', 'validate-script.js');
  const validate = (load(file) as { default: Validate }).default;
  const config = script.config ?? {};
  return validate(config.target === undefined ? { ...script, config: { ...config, target: 'http://target.invalid' } } : script);
}
