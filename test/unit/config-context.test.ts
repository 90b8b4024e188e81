/**
 * The context checks a tester found missing: each value here synthesized (or crashed synth) before, and is now
 * refused by parseRigConfig with one line naming the key, what is wrong and the fix.
 */
import { ContextKey, RawContext, RigConfigError, parseRigConfig } from '../../lib/config';

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

/** Asserts that parseRigConfig refuses `raw` in exactly one line, about `key`, that matches `why`. */
function expectRefused(raw: RawContext, key: ContextKey, why: RegExp): void {
  const problems = problemsOf(raw);
  expect(problems).toHaveLength(1);
  expect(problems[0]).toMatch(new RegExp(`^context "${key}" is `));
  expect(problems[0]).toMatch(why);
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
    expectRefused({ generatorInstanceType: type }, 'generatorInstanceType', why);
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
    expectRefused({ operatorCidr: cidr }, 'operatorCidr', why);
  });
});

describe('generatorRegions: regions aws-cdk-lib knows, each bad entry named', () => {
  test.each([
    ['eu-wset-2:3,us-east-1', /entry "eu-wset-2:3": unknown region "eu-wset-2"; did you mean eu-west-2\?/],
    ['eu-west-2,mars-north-1', /entry "mars-north-1": unknown region "mars-north-1" \(not one aws-cdk-lib knows/],
    [',', /entry 1 is empty/],
    ['eu-west-2,,us-east-1', /entry 2 is empty/],
    ['eu-west-2,', /entry 2 is empty/],
    ['eu-west-2,us-east-1,eu-west-2:2', /entry "eu-west-2:2" lists eu-west-2 again/],
    ['eu-west-2: 3', /entry "eu-west-2: 3" is not region\[:weight\]/],
    ['eu-west-2;us-east-1', /entry "eu-west-2;us-east-1" is not region\[:weight\]/],
    ['eu-west-2:0', /entry "eu-west-2:0": weight 0 is not a whole number from 1 to 1000/],
    ['eu-west-2:1.5', /entry "eu-west-2:1\.5" is not region\[:weight\]/],
    ['us-east-1,us-east-2,us-west-1,us-west-2,eu-west-1,eu-west-2', /6 regions, at most 5; allowed: /],
  ])('%s', (regions, why) => {
    expectRefused({ generatorRegions: regions }, 'generatorRegions', why);
  });

  test('a JSON array is checked entry by entry too', () => {
    expect(problemsOf({ generatorRegions: ['eu-west-2', 'us-est-1'] })).toEqual([expect.stringMatching(/entry "us-est-1": unknown region "us-est-1"; did you mean us-east-1\?/)]);
  });
});

describe('a key set for a targetKind it does not apply to is refused, not silently dropped', () => {
  test.each<[string, RawContext, ContextKey, string]>([
    ['none', { operatorCidr: '203.0.113.7/32' }, 'operatorCidr', 'ec2 | fargate'],
    ['none', { redis: true }, 'redis', 'ec2 | fargate'],
    ['none', { minCapacity: 2 }, 'minCapacity', 'ec2 | fargate'],
    ['none', { maxCapacity: '8' }, 'maxCapacity', 'ec2 | fargate'],
    ['none', { scaleOutCpuPercent: 60 }, 'scaleOutCpuPercent', 'ec2 | fargate'],
    ['none', { breachDurationMinutes: 5 }, 'breachDurationMinutes', 'ec2 | fargate'],
    ['fargate', { targetSessionManager: true }, 'targetSessionManager', 'ec2'],
    ['none', { targetSessionManager: 'true' }, 'targetSessionManager', 'ec2'],
    ['fargate', { targetInstanceType: 't3.large' }, 'targetInstanceType', 'ec2'],
    ['none', { targetInstanceType: 't3.large' }, 'targetInstanceType', 'ec2'],
    ['ec2', { targetImage: 'me/app:1' }, 'targetImage', 'fargate'],
    ['none', { targetImage: 'me/app:1' }, 'targetImage', 'fargate'],
  ])('targetKind=%s with %j → %s refused', (targetKind, raw, key, kinds) => {
    const problems = problemsOf({ targetKind, ...raw });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^context "${key}" is .* only applies to targetKind=${kinds.replace('|', '\\|')}; with targetKind=${targetKind} it would be ignored: remove it`));
  });

  test.each(['ec2', 'fargate', 'none'])('targetKind=%s with every other key at its default or off is accepted', (targetKind) => {
    expect(problemsOf({ targetKind, redis: 'auto', targetSessionManager: false, operatorCidr: 'none', targetImage: 'none', maxCapacity: '4', targetInstanceType: 't3.small' })).toEqual([]);
    expect(problemsOf({ targetKind, redis: false })).toEqual([]);
  });
});

describe('targetImage: a Docker/OCI image reference', () => {
  const digest = `sha256:${'a1'.repeat(32)}`;
  test.each([
    'nginx', 'nginx:1.27-alpine', 'public.ecr.aws/me/app:1', 'localhost:5000/team/app:v2', 'ghcr.io/org/my_app__x/app-name:latest',
    `123456789012.dkr.ecr.eu-west-2.amazonaws.com/app@${digest}`, `me/app:1@${digest}`, 'registry.example.com:443/a.b/c',
  ])('%s is accepted', (image) => {
    expect(problemsOf({ targetKind: 'fargate', targetImage: image })).toEqual([]);
  });

  test.each([
    ['my image:latest', /contains whitespace/],
    ['UPPER/Case:Tag', /repository path "Case" must be lowercase/],
    ['me/App', /repository path "me\/App" must be lowercase/],
    ['me/app:', /not an image reference/],
    ['me/app@sha256:abc', /not an image reference/],
    ['me//app', /not an image reference/],
    ['me/app:-bad', /not an image reference/],
  ])('%s is refused', (image, why) => {
    expectRefused({ targetKind: 'fargate', targetImage: image }, 'targetImage', why);
    expect(problemsOf({ targetKind: 'fargate', targetImage: image })[0]).toMatch(/\[registry\[:port\]\/\]repository\[:tag\]\[@sha256:digest\].*e\.g\. public\.ecr\.aws/);
  });
});
