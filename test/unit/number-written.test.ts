/**
 * "A number written another way than in digits" (`1e9`, `1_000` is not one, `99999999999999999999`) is one rule,
 * scripts/builtin-variables.ts `numberWritten`, read by both checks of `--var` values: a built-in scenario's
 * (checkBuiltInVars) and a user's script's numbers and think times (applyOptions). Before, scenario.ts had its own
 * copy of the regular expression.
 */
import { checkBuiltInVars, numberWritten } from '../../scripts/builtin-variables';
import { applyOptions } from '../../scripts/scenario';
import { validateFlags } from '../../scripts/options';

const written = ['1e9', ' 2.5E+3 ', '.5', '-7.', '99999999999999999999'];
const notNumbers = ['abc', '1_000', '0x10', '1e', 'Infinity', ''];

test('numberWritten reads the values JavaScript reads as numbers, and nothing else', () => {
  expect(written.map(numberWritten)).toEqual([1e9, 2500, 0.5, -7, 1e20]);
  expect(notNumbers.map(numberWritten)).toEqual(notNumbers.map(() => undefined));
});

test("a user's script: the refusal asks for digits exactly where numberWritten reads a number", () => {
  const script = { config: { variables: { size: 10 }, phases: [{ duration: 1, arrivalRate: 1 }] }, scenarios: [{ flow: [] }] };
  const refusal = (value: string) => {
    try {
      applyOptions(script, { ...validateFlags({ scenario: 'x.yml' }), vars: { size: value } });
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  };
  for (const v of [...written, ...notNumbers.filter((x) => x !== '')]) {
    expect(refusal(v)).toContain(numberWritten(v) !== undefined ? 'write it in digits' : 'pass a number');
  }
});

test('a built-in scenario: the same values are asked for in digits', () => {
  for (const v of written.slice(0, 4)) expect(() => checkBuiltInVars('pubsub', { publishSeconds: v })).toThrow(/write the number in digits/);
});
