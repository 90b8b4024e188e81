/**
 * What a script needs that an AWS generator would not have, each refused before anything starts (exit 2, naming the
 * fix) instead of every load process dying at its first vuser (a lost generator, exit 3) after the fleet scaled:
 * - an engine or plugin installed here but not on the generators, which install only the rig's agent packages
 *   (lib/agent-lockfile.ts AGENT_PACKAGES, with their whole tree from package-lock.json) and Artillery's bundled
 *   plugins (an `artillery-engine-kafka`, an `artillery-plugin-foo`, a plugin of this machine's ARTILLERY_PLUGIN_PATH);
 * - a file the script names or its processor loads from outside what ships (the script's folder), a package the
 *   processor loads that is not in the agent's tree;
 * - an environment variable its templates read (`{{ $env.API_KEY }}`), which only this machine's shell has.
 * Pure: what is here, what ships and what the generators hold come in as functions.
 */
import * as path from 'node:path';
import { AGENT_PACKAGES, Lockfile, agentTree } from '../lib/agent-lockfile';
import { UsageError } from './errors';
import type { ArtilleryScript } from './scenario';
import { ModuleLoad, requiredModules } from './script-check';
import { LEFT_OUT } from './platforms/aws/bundle';

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

/** Whether a package is at the top of the agent's npm tree, where a processor's `require`/`import` finds it on a generator. */
export function generatorPackageFinder(lock: Lockfile): (pkg: string) => boolean {
  const tree = agentTree(lock, AGENT_PACKAGES).packageLock.packages;
  return (pkg) => tree[`node_modules/${pkg}`] !== undefined;
}

/** The package a file inside node_modules belongs to (`@scope/name` or `name`), or undefined. */
export function packageOf(file: string): string | undefined {
  return /.*[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file)?.[1]?.replace(/\\/g, '/');
}

/** What a user's script takes to the generators: the files it names and the modules its processor loaded. */
export interface ScriptFiles {
  /** The script itself. */
  readonly file: string;
  /** The script's folder: relative paths resolve from it here and on a generator. */
  readonly dir: string;
  readonly named: ReadonlyArray<{ readonly where: string; readonly file: string }>;
  readonly loads: readonly ModuleLoad[];
}

/**
 * Throws when an AWS run would not find on its generators a file or package its script needs here, which killed
 * every load process at its first vuser (a lost generator, exit 3) after the fleet scaled. A generator gets the
 * script's folder (`notShipped`: scripts/platforms/aws/bundle.ts, without node_modules and hidden files) and the agent's npm tree
 * (`onGenerators`). Checked: the processor and payloads the script names, each file the processor loaded, and each
 * package a file of the user's loaded. Pure.
 */
export function assertScriptShips(files: ScriptFiles, notShipped: (file: string) => 'outside' | 'left out' | undefined, onGenerators: (pkg: string) => boolean, cwd: string): void {
  const rel = (f: string) => path.relative(cwd, f) || f;
  const why = (file: string) => {
    const reason = notShipped(file);
    if (reason === 'outside') return `outside the script's folder ${rel(files.dir)}, and only that folder ships to the AWS generators; move it into that folder`;
    return reason ? `left out of what ships to the AWS generators (${LEFT_OUT}); rename or move it` : undefined;
  };
  const problems: string[] = [];
  for (const n of files.named) {
    const w = why(n.file);
    if (w) problems.push(`${n.where} is ${w}`);
  }
  const packages = new Map<string, string>();
  for (const l of files.loads) {
    const pkg = packageOf(l.file);
    const w = pkg === undefined ? why(l.file) : undefined;
    if (w) problems.push(`${rel(l.from)} loads ${l.specifier} (${rel(l.file)}), ${w}`);
    else if (pkg !== undefined && !onGenerators(pkg) && !packages.has(pkg)) {
      packages.set(pkg, rel(l.from));
    }
  }
  for (const [pkg, from] of packages) {
    problems.push(
      `${from} loads the package ${pkg}, installed here but not on the AWS generators (they install only ${AGENT_PACKAGES.join(', ')} and what those need); bundle it into your processor (npx esbuild ${from} --bundle --platform=node --outfile=processor.bundle.js, then config.processor: ./processor.bundle.js) or run with --platform local`,
    );
  }
  if (problems.length) throw new UsageError(problems.join('; '));
}

/** `{{ $env.NAME }}` / `{{ $processEnvironment.NAME }}` anywhere in a template (inside an expression too). */
const ENV_READ = /\$(?:env|processEnvironment)\.([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * Throws when the script reads environment variables through Artillery's templates that an AWS generator does not
 * have. A load process there gets the agent's environment, the rig's RIG_* variables and the scenario secrets as
 * RIG_SECRET_* (load-generators/lib/secrets.js), never this machine's shell: `{{ $env.API_KEY }}` would render
 * empty in every request, silently. `config.target` is left out: its templates are resolved here before the run
 * (scripts/target-choice.ts). Pure.
 */
export function assertEnvOnGenerators(script: ArtilleryScript, name: string): void {
  const { target: _target, ...config } = script.config;
  const text = JSON.stringify({ ...script, config });
  const names = [...new Set([...text.matchAll(ENV_READ)].map((m) => m[1] as string))].filter((n) => !n.startsWith('RIG_'));
  if (!names.length) return;
  const first = names[0] as string;
  throw new UsageError(
    `${name} reads ${names.map((n) => `{{ $env.${n} }}`).join(', ')}, which the AWS generators do not have (their load processes get only the scenario secrets, as RIG_SECRET_* variables): store each under the secrets path (aws ssm put-parameter --type SecureString --name /loadtest-rig/secrets/${first.toLowerCase()} --value …) and read it as {{ $env.RIG_SECRET_${first.toUpperCase().replace(/[^A-Z0-9]/g, '_')} }} (export that name for local runs), or run with --platform local`,
  );
}
