/**
 * A script's own failed-vuser budget (`ensure.maxErrorRate`, with the ensure plugin on): plain `artillery run` passes a
 * run within it, the rig failed it at its default --max-error-rate 0% and said nothing before the run. Now the script's
 * budget is the default, said in a note; --max-error-rate, when given, still decides.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { validateFlags } from '../../scripts/options';
import { prepareRunInput } from '../../scripts/run-input';
import { SCRIPT_BUDGET, decideResult } from '../../scripts/report/result';

const root = path.resolve(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-error-budget-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const scriptWith = (name: string, config: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `config:\n  target: http://127.0.0.1:9\n  phases: [{ duration: 1, arrivalRate: 1 }]\n${config}scenarios:\n  - flow: [ { get: { url: / } } ]\n`);
  return file;
};

describe("a script's ensure.maxErrorRate", () => {
  const budget = scriptWith('budget.yml', '  plugins: { ensure: {} }\n  ensure: { maxErrorRate: 60 }\n');

  test('is the failed-vuser budget when --max-error-rate is not given, and a note says so before the run', () => {
    const input = prepareRunInput(validateFlags({ scenario: budget }), root, {});
    expect(input.options.maxErrorRate).toBe(0.6);
    expect(input.options.maxErrorRateFromScript).toBe(true);
    expect(input.notes).toContain("note: failed vusers are judged by your script's ensure.maxErrorRate (60%) instead of the rig's default --max-error-rate 0%; pass --max-error-rate to set another");
  });

  test('--max-error-rate, when given, wins (no note)', () => {
    const input = prepareRunInput(validateFlags({ scenario: budget, maxErrorRate: '5' }), root, {});
    expect(input.options.maxErrorRate).toBe(0.05);
    expect(input.options.maxErrorRateFromScript).toBeUndefined();
    expect(input.notes.filter((n) => n.includes('maxErrorRate'))).toEqual([]);
  });

  test('without the ensure plugin (Artillery would not evaluate it) the rig keeps its default', () => {
    const input = prepareRunInput(validateFlags({ scenario: scriptWith('off.yml', '  ensure: { maxErrorRate: 60 }\n') }), root, {});
    expect(input.options.maxErrorRate).toBe(0);
  });
});

describe('the result names the budget that judged the failed vusers', () => {
  const run = (failed: number) => ({ status: 'completed' as const, failedRatio: failed / 10, thresholds: [], rig: { lostGenerators: [] }, aggregate: { counters: { 'vusers.created': 10, 'vusers.failed': failed }, rates: {}, summaries: {} } });

  test("a breach of the script's own budget is worded as the script's, not as a --max-error-rate the user never gave", () => {
    const r = decideResult(run(7) as never, 0.6, SCRIPT_BUDGET);
    expect(r.exitCode).toBe(1);
    expect(r.reasons).toContain("7 of 10 vusers failed (70%) > your script's ensure.maxErrorRate 60%");
  });

  test('within it, the held reason names it too; the flag keeps its own name', () => {
    expect(decideResult(run(5) as never, 0.6, SCRIPT_BUDGET).reasons).toContain("5 of 10 vusers failed (50%) ≤ your script's ensure.maxErrorRate 60%");
    expect(decideResult(run(7) as never, 0.6).reasons).toContain('7 of 10 vusers failed (70%) > --max-error-rate 60%');
  });
});
