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

describe('generatorInstanceType: a name EC2 and aws-cdk-lib can use, else one line', () => {
  test.each(['c5.large', 'c5.24xlarge', 'm7i.metal-48xl', 'c6g.metal', 'c7i-flex.large', 't4g.nano', 'x2iedn.xlarge'])('%s is accepted', (type) => {
    expect(problemsOf({ generatorInstanceType: type })).toEqual([]);
  });

  test.each([
    ['c5.huge', /"huge" is not an EC2 size.*nano, micro, small, medium, large, xlarge, <N>xlarge, metal or metal-<N>xl.*-c generatorInstanceType=c5\.large/],
    ['c5.1xlarge', /"1xlarge" is not an EC2 size/],
    ['a.b', /not an EC2 instance type name.*-c generatorInstanceType=c5\.large/],
    ['c5', /not an EC2 instance type name/],
    ['u-6tb1.metal', /not an EC2 instance type name/],
    ['mac2-m2.metal', /Mac instance.*Dedicated Host.*-c generatorInstanceType=c5\.large/],
    ['mac1.metal', /Mac instance/],
  ])('%s is refused in one line naming the key', (type, why) => {
    const problems = problemsOf({ generatorInstanceType: type });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^context "generatorInstanceType" is "/);
    expect(problems[0]).toMatch(why);
  });
});

describe('operatorCidr: the canonical network form CloudFormation accepts', () => {
  test.each(['203.0.113.7/32', '10.0.0.0/8', '192.168.4.0/22'])('%s is accepted', (cidr) => {
    expect(problemsOf({ operatorCidr: cidr })).toEqual([]);
  });

  test.each([
    ['10.1.2.3/8', /host bits set; use 10\.0\.0\.0\/8 \(or 10\.1\.2\.3\/32 for that one address\)/],
    ['192.168.4.1/22', /host bits set; use 192\.168\.4\.0\/22/],
    ['010.001.002.003/32', /leading zeros; use 10\.1\.2\.3\/32/],
    ['203.0.113.7/032', /leading zeros; use 203\.0\.113\.7\/32/],
  ])('%s is refused naming the canonical form', (cidr, why) => {
    const problems = problemsOf({ operatorCidr: cidr });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^context "operatorCidr" is "/);
    expect(problems[0]).toMatch(why);
  });
});
