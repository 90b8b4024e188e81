/**
 * Engines and plugins a script needs that this machine has but the AWS generators will not. A generator installs
 * only the rig's agent packages (lib/agent-lockfile.ts AGENT_PACKAGES, with their whole tree from package-lock.json)
 * and Artillery's bundled plugins; an `artillery-engine-kafka` or `artillery-plugin-foo` installed here, or a plugin
 * found through this machine's ARTILLERY_PLUGIN_PATH, is not there, and every load process would die at its first
 * vuser (a lost generator, exit 3) after the fleet scaled. Refused before anything starts instead. Pure.
 */
import { AGENT_PACKAGES, Lockfile, agentTree } from '../lib/agent-lockfile';
import { UsageError } from './errors';
import type { ArtilleryScript } from './scenario';
import { requiredModules } from './script-check';

/** Whether a module is on a generator: in the agent's npm tree (where Artillery resolves it), or bundled in Artillery. */
export function generatorModuleFinder(lock: Lockfile, bundled: (module: string) => boolean): (module: string) => boolean {
  const tree = agentTree(lock, AGENT_PACKAGES).packageLock.packages;
  return (module) => bundled(module) || tree[`node_modules/${module}`] !== undefined || tree[`node_modules/artillery/node_modules/${module}`] !== undefined;
}

/**
 * Throws when the script needs a module found here (`foundHere`) that the generators lack (`onGenerators`).
 * A module found nowhere is left to the local checks (an engine is refused, a plugin is noted).
 */
export function assertGeneratorsHaveModules(script: ArtilleryScript, foundHere: (module: string) => boolean, onGenerators: (module: string) => boolean): void {
  const missing = requiredModules(script).filter((r) => foundHere(r.module) && !onGenerators(r.module));
  if (!missing.length) return;
  throw new UsageError(
    `${missing.map((m) => `${m.where} (${m.module})`).join(', ')}: installed here but not on the AWS generators, which install only ${AGENT_PACKAGES.join(', ')} (with what they need) and Artillery's bundled plugins, so every load process would die at its first vuser; run this script with --platform local`,
  );
}
