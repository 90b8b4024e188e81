/**
 * The context checks a tester found missing: each value here synthesized (or crashed synth) before, and is now
 * refused by parseRigConfig with one line naming the key, what is wrong and the fix.
 */
import { RawContext, RigConfigError, parseRigConfig } from '../../lib/config';

/** The problem lines parseRigConfig reports for `raw` (and the `other` context), or [] when it accepts it. */
function problemsOf(raw: RawContext, other: Record<string, unknown> = {}): readonly string[] {
  try {
    parseRigConfig(raw, other);
    return [];
  } catch (e) {
    if (e instanceof RigConfigError) return e.problems;
    throw e;
  }
}

describe('context keys close to a rig key are refused, others are left to the user', () => {
  test.each([
    ['generatorInstanceTyp', 'generatorInstanceType'],
    ['targetKnd', 'targetKind'],
    ['maxGenerator', 'maxGenerators'],
    ['TargetKind', 'targetKind'],
    ['OPERATORCIDR', 'operatorCidr'],
  ])('%s → did you mean %s?', (typed, meant) => {
    expect(problemsOf({}, { [typed]: 'x1' })).toEqual([expect.stringMatching(new RegExp(`^unknown context key "${typed}"; did you mean "${meant}"\\? .*use -c ${meant}=x1\\)$`))]);
  });

  test('reported together with the other bad keys', () => {
    expect(problemsOf({ targetKind: 'ecs' }, { maxGenerator: 50 })).toHaveLength(2);
  });

  test("far from every rig key, and CDK's own keys, are left alone", () => {
    expect(problemsOf({}, Object.fromEntries(['myTeamTag', 'region', 'aws:cdk:enable-path-metadata', '@aws-cdk/core:defaultCrossStackReferences', 'cdk-version', 'aws-cdk:enableDiffNoFail'].map((k) => [k, 'x'])))).toEqual([]);
  });
});
