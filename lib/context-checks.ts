/**
 * Pure checks of single context values (lib/config.ts composes them into one RigConfig): each returns why a value
 * is wrong, in words that name the fix, or undefined when it is right.
 */

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
