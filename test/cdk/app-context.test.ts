/**
 * bin/app.ts's composition (composeApp): every context key the app is given is checked, and no context value can
 * end the synth in a raw stack trace.
 */
import { App } from 'aws-cdk-lib';
import { composeApp } from '../../bin/rig';

process.env.JSII_DEPRECATED = 'quiet';

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** What composeApp writes and the code it exits with (undefined: it composed the rig). */
function compose(context: Record<string, unknown>, build?: Parameters<typeof composeApp>[2]): { lines: string[]; code?: number } {
  const lines: string[] = [];
  const io = { error: (line: string) => void lines.push(line), exit: (code: number): never => { throw new Exit(code); } };
  try {
    composeApp(new App({ context }), io, build);
    return { lines };
  } catch (e) {
    if (e instanceof Exit) return { lines, code: e.code };
    throw e;
  }
}

describe('composeApp', () => {
  test('a misspelt key in the app context is refused (exit 2, one line), with the other bad keys', () => {
    const r = compose({ maxGenerator: 50, targetKind: 'ecs', myOwnConstructSetting: 'x' }, () => undefined);
    expect(r.code).toBe(2);
    expect(r.lines).toHaveLength(2);
    expect(r.lines.join('\n')).toMatch(/^error: unknown context key "maxGenerator"; did you mean "maxGenerators"\?/m);
  });
});

describe('no raw stack for a context value', () => {
  test.each(['a.b', 'mac2-m2.metal', 'c5.huge'])('generatorInstanceType=%s: one line, exit 2, before any stack is built', (type) => {
    const r = compose({ generatorInstanceType: type });
    expect(r.code).toBe(2);
    expect(r.lines).toEqual([expect.stringMatching(/^error: context "generatorInstanceType" is /)]);
  });

  test('an error building the stacks from a valid-looking context is one line, exit 1 (cdk synth --debug for the stack)', () => {
    const r = compose({}, () => {
      throw new Error('Malformed instance type identifier\n    at InstanceType.architecture (instance-types.js:1:1)');
    });
    expect(r.code).toBe(1);
    expect(r.lines).toEqual(['error: the stacks could not be built from this context: Malformed instance type identifier (cdk synth --debug shows where)']);
  });
});
