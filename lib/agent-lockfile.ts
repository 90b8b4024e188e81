/**
 * The generators' exact npm tree: a package.json and package-lock.json holding only the agent's packages and
 * everything they need, cut out of the repository's own package-lock.json — the same versions, resolved URLs and
 * integrity hashes the repository was tested with — so every boot runs `npm ci` on the same tree instead of
 * resolving sub-dependencies afresh. Pure: the caller reads and writes the files.
 *
 * Why not a prebuilt node_modules bundle: Artillery's tree is ~200 MB with platform-specific optional parts; a
 * lockfile is a few hundred KB, `npm ci` verifies every tarball's integrity, and picks the generator's own
 * platform's optional packages.
 */

/** The npm packages a generator installs (with everything they need): Artillery, the Socket.IO client, the agent's. */
export const AGENT_PACKAGES = ['artillery', 'socket.io-client', '@artilleryio/sketches-js', '@aws-sdk/client-s3', '@aws-sdk/client-ssm'] as const;

/** One `packages` entry of a lockfile v2/v3. */
export interface LockEntry {
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
  readonly dev?: boolean;
  readonly devOptional?: boolean;
  readonly optional?: boolean;
  readonly link?: boolean;
  readonly [key: string]: unknown;
}

/** The parts of a lockfile this reads. */
export interface Lockfile {
  readonly lockfileVersion: number;
  readonly packages: Readonly<Record<string, LockEntry>>;
}

/** The two files of the agent's tree. */
export interface AgentTree {
  readonly packageJson: { name: string; version: string; private: true; description: string; dependencies: Record<string, string> };
  readonly packageLock: { name: string; version: string; lockfileVersion: number; requires: true; packages: Record<string, LockEntry> };
}

/** Where Node resolves `dep` required from the package at `from` (its own node_modules first, then each parent's). */
export function resolveFrom(packages: Lockfile['packages'], from: string, dep: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${dep}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf('node_modules/');
    base = cut <= 0 ? '' : base.slice(0, cut - 1);
  }
}

/**
 * Cuts the agent's tree out of the repository's lockfile.
 * @throws Error naming a package (or a required dependency of one) the lockfile does not hold.
 */
export function agentTree(lock: Lockfile, names: readonly string[], name = 'loadtest-rig-agent'): AgentTree {
  if (lock.lockfileVersion < 2) throw new Error(`package-lock.json is lockfileVersion ${lock.lockfileVersion}; the agent tree needs v2 or v3 (npm 7+). Fix: npm install --lockfile-version 3`);
  const { packages } = lock;
  const out: Record<string, LockEntry> = {};
  const dependencies: Record<string, string> = {};
  const queue: string[] = [];
  for (const n of names) {
    const at = `node_modules/${n}`;
    const version = packages[at]?.version;
    if (!version) throw new Error(`package-lock.json has no "${n}". Fix: npm install --save-exact ${n}`);
    dependencies[n] = version;
    queue.push(at);
  }
  while (queue.length) {
    const at = queue.shift() as string;
    if (out[at]) continue;
    const entry = packages[at] as LockEntry;
    // In the agent's tree every package is a production dependency: drop the root's dev markers.
    const { dev: _dev, devOptional, ...kept } = entry;
    out[at] = devOptional && !entry.optional ? { ...kept, optional: true } : kept;
    const wanted: Array<[string, boolean]> = [
      ...Object.keys(entry.dependencies ?? {}).map((d): [string, boolean] => [d, false]),
      ...Object.keys(entry.optionalDependencies ?? {}).map((d): [string, boolean] => [d, true]),
      ...Object.keys(entry.peerDependencies ?? {}).map((d): [string, boolean] => [d, entry.peerDependenciesMeta?.[d]?.optional === true]),
    ];
    for (const [dep, optional] of wanted) {
      const found = resolveFrom(packages, at, dep);
      if (found) queue.push(found);
      else if (!optional) throw new Error(`package-lock.json: ${at} needs ${dep}, which the lockfile does not hold. Fix: npm install`);
    }
  }
  const sorted = Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k] as LockEntry]));
  return {
    packageJson: { name, version: '0.0.0', private: true, description: 'loadtest-rig agent dependencies (generated from the repository package-lock.json)', dependencies },
    packageLock: { name, version: '0.0.0', lockfileVersion: 3, requires: true, packages: { '': { name, version: '0.0.0', dependencies }, ...sorted } },
  };
}
