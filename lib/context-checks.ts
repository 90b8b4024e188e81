/**
 * Pure checks of single context values (lib/config.ts composes them into one RigConfig): each returns why a value
 * is wrong, in words that name the fix, or undefined when it is right.
 */

import { RegionInfo } from 'aws-cdk-lib/region-info';
import { distance } from 'fastest-levenshtein';

/** The nearest of `candidates` to `typed` within two edits, case aside (equal but for case is distance 0). */
export function nearest(typed: string, candidates: readonly string[]): string | undefined {
  const lower = typed.toLowerCase();
  return candidates
    .map((c) => ({ c, d: distance(c.toLowerCase(), lower) }))
    .filter((x) => x.d <= 2)
    .sort((a, b) => a.d - b.d)[0]?.c;
}

/** Prefixes of the context keys CDK itself sets or reads (feature flags, CLI settings): never a misspelt rig key. */
const CDK_KEY_PREFIXES = ['@aws-cdk/', 'aws:cdk:', 'cdk-', 'aws-cdk:'];

/**
 * The rig key that context key `key` is most likely a misspelling of (within two edits, case aside), or undefined:
 * for one of `rigKeys` itself, a key of CDK's own, or a key far from every rig key (the user's own context for
 * their own constructs, left alone).
 */
export function misspeltRigKey(key: string, rigKeys: readonly string[]): string | undefined {
  if (rigKeys.includes(key) || CDK_KEY_PREFIXES.some((p) => key.startsWith(p))) return undefined;
  return nearest(key, rigKeys);
}

/**
 * EC2's instance sizes (EC2 User Guide, "Amazon EC2 instance type naming conventions": nano … xlarge, <N>xlarge,
 * metal, metal-<N>xl; the same set as aws-cdk-lib's InstanceSize and cfn-lint's list of instance types).
 */
const EC2_SIZE = /^(nano|micro|small|medium|large|xlarge|([2-9]|[1-9]\d+)xlarge|metal|metal-([2-9]|[1-9]\d+)xl)$/;
const EC2_SIZES_TEXT = 'nano, micro, small, medium, large, xlarge, <N>xlarge, metal or metal-<N>xl';
// The name form aws-cdk-lib's InstanceType.architecture reads (family letters, generation, attribute letters such as
// g, n, i, -flex; a dot; a size): it throws MalformedInstanceTypeIdentifier on any other, a raw stack at synth.
const CDK_INSTANCE_TYPE = /^([a-z]+\d{1,2}[a-z-]*)\.([a-z0-9-]+)$/;

/** Why `type` cannot be the rig's generator type (an instance an Auto Scaling group launches with Amazon Linux 2023), or undefined. */
export function instanceTypeProblem(type: string): string | undefined {
  // EC2 Mac instances run only on EC2 Dedicated Hosts and boot only macOS AMIs (EC2 User Guide, "Amazon EC2 Mac
  // instances"). The rig's launch templates use default tenancy (no host resource group or license configuration,
  // the only way an Auto Scaling group places instances on Dedicated Hosts) and Amazon Linux 2023, so EC2 would
  // refuse every launch. Mac names (mac1, mac2-m2, mac-m4, …) all begin with "mac".
  if (type.startsWith('mac')) {
    return 'a Mac instance type: Mac instances run only macOS on EC2 Dedicated Hosts, which the rig\'s Amazon Linux launch templates cannot use; pick a Linux type';
  }
  const m = CDK_INSTANCE_TYPE.exec(type);
  if (!m) {
    return 'not an EC2 instance type name the rig can use: family (letters, generation number, attribute letters), a dot, a size, as in c5.large, c7gn.xlarge, m7i.metal-24xl (aws-cdk-lib cannot read the architecture of u-*, u7i-* or p6-b* names)';
  }
  const size = m[2] ?? '';
  if (!EC2_SIZE.test(size)) return `"${size}" is not an EC2 size (sizes: ${EC2_SIZES_TEXT})`;
  return undefined;
}

const IPV4_CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,3})$/;

/**
 * Why `cidr` is not an IPv4 CIDR the target may admit, or undefined. CloudFormation (and cfn-lint, E3002) takes a
 * CIDR only in its canonical network form: no leading zeros, no host bits set; the problem names that form.
 */
export function ipv4CidrProblem(cidr: string): string | undefined {
  const m = IPV4_CIDR.exec(cidr);
  const [a = 0, b = 0, c = 0, d = 0, prefix = 0] = m ? m.slice(1).map(Number) : [];
  if (!m || [a, b, c, d].some((o) => o > 255) || prefix > 32) return 'not an IPv4 CIDR; use one such as 203.0.113.7/32, or "none" (generators only)';
  if (prefix === 0) return 'a CIDR must be narrower than /0 (the target must not be open to the internet); use your-ip/32';
  const address = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
  const network = prefix === 32 ? address : (address & ~(0xffffffff >>> prefix)) >>> 0;
  const canonical = `${[24, 16, 8, 0].map((s) => (network >>> s) & 255).join('.')}/${prefix}`;
  if (/(^|[./])0\d/.test(cidr)) return `leading zeros; use ${canonical}`;
  if (network !== address) return `host bits set; use ${canonical} (or ${[a, b, c, d].join('.')}/32 for that one address)`;
  return undefined;
}

/** One region the generators run in, and its share of the load. */
export interface GeneratorRegion {
  /** AWS region name, e.g. eu-west-2. */
  readonly region: string;
  /** Relative share of every run's vusers (a positive whole number). */
  readonly weight: number;
}

/** Most generator regions (AWS's Distributed Load Testing solution runs up to five). */
export const MAX_GENERATOR_REGIONS = 5;

/**
 * Parses `generatorRegions`: `"none"` (one region, the deploy region), or `region[:weight],…` — e.g.
 * `eu-west-2:3,us-east-1:1` — as a string or a JSON array of such strings; the first region is the target's.
 * Each region must be one aws-cdk-lib knows (RegionInfo.regions). On a bad value, `wrong` gets one line naming the
 * first bad entry and the fix, and the result is [].
 */
export function parseGeneratorRegions(v: unknown, wrong: (why: string) => void): GeneratorRegion[] {
  const allowed = `allowed: "none", or region[:weight] entries separated by commas, the target's region first, at most ${MAX_GENERATOR_REGIONS}, weights whole numbers 1-1000, e.g. -c generatorRegions=eu-west-2:3,us-east-1:1`;
  const entries = Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.split(',') : undefined;
  if (entries === undefined) {
    wrong(`not a string; ${allowed}`);
    return [];
  }
  const trimmed = entries.map((e) => e.trim());
  if ((trimmed.length === 1 && trimmed[0] === '') || (trimmed.length === 1 && trimmed[0] === 'none')) return [];
  const known = RegionInfo.regions.map((r) => r.name);
  const out: GeneratorRegion[] = [];
  for (const [i, entry] of trimmed.entries()) {
    const why = regionEntryProblem(entry, i, known, out);
    if (why) {
      wrong(`${why}; ${allowed}`);
      return [];
    }
    const [region = '', weight] = entry.split(':');
    out.push({ region, weight: weight === undefined ? 1 : Number(weight) });
  }
  if (out.length > MAX_GENERATOR_REGIONS) {
    wrong(`${out.length} regions, at most ${MAX_GENERATOR_REGIONS}; ${allowed}`);
    return [];
  }
  return out;
}

/** Why entry `i` of generatorRegions is bad (naming it), given the regions before it, or undefined. */
function regionEntryProblem(entry: string, i: number, known: readonly string[], before: readonly GeneratorRegion[]): string | undefined {
  if (entry === '') return `entry ${i + 1} is empty (a stray comma?)`;
  const m = /^([a-z0-9-]+)(?::(\d+))?$/.exec(entry);
  if (!m) return `entry ${JSON.stringify(entry)} is not region[:weight] (no spaces; entries are separated by commas)`;
  const region = m[1] ?? '';
  if (!known.includes(region)) {
    const near = nearest(region, known);
    return `entry ${JSON.stringify(entry)}: unknown region "${region}"${near ? `; did you mean ${near}?` : ` (not one aws-cdk-lib knows, e.g. eu-west-2)`}`;
  }
  const weight = m[2] === undefined ? 1 : Number(m[2]);
  if (weight < 1 || weight > 1000) return `entry ${JSON.stringify(entry)}: weight ${weight} is not a whole number from 1 to 1000`;
  if (before.some((r) => r.region === region)) return `entry ${JSON.stringify(entry)} lists ${region} again (each region once)`;
  return undefined;
}

// The image reference grammar of Docker and OCI registries (github.com/distribution/reference, reference.go).
const REGISTRY_HOST = /^(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::\d+)?$/;
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^\w[\w.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

/**
 * Why `ref` is not a container image reference `[registry[:port]/]repository[:tag][@sha256:digest]`, or undefined.
 * As Docker reads it, the first path component is the registry when it has a dot or a colon, is `localhost`, or
 * has a capital letter; the repository path is lowercase components separated by `/`.
 */
export function imageReferenceProblem(ref: string): string | undefined {
  const fix = 'use [registry[:port]/]repository[:tag][@sha256:digest] with a lowercase repository path, e.g. public.ecr.aws/me/app:1.2';
  if (/\s/.test(ref)) return `contains whitespace; ${fix}`;
  const [nameAndTag = '', digest, ...moreDigests] = ref.split('@');
  const colon = nameAndTag.lastIndexOf(':');
  const hasTag = colon > nameAndTag.lastIndexOf('/');
  const name = hasTag ? nameAndTag.slice(0, colon) : nameAndTag;
  const parts = name.split('/');
  const first = parts[0] ?? '';
  const registry = parts.length > 1 && (/[.:]/.test(first) || first === 'localhost' || first !== first.toLowerCase()) ? parts.shift() : undefined;
  const path = parts.join('/');
  const wellFormed = moreDigests.length === 0 && (digest === undefined || DIGEST.test(digest)) && (!hasTag || TAG.test(nameAndTag.slice(colon + 1)))
    && (registry === undefined || REGISTRY_HOST.test(registry)) && name.length <= 255;
  if (wellFormed && parts.every((p) => PATH_COMPONENT.test(p.toLowerCase())) && path !== path.toLowerCase()) return `repository path "${path}" must be lowercase; ${fix}`;
  if (!wellFormed || !parts.every((p) => PATH_COMPONENT.test(p))) return `not an image reference; ${fix}`;
  return undefined;
}
