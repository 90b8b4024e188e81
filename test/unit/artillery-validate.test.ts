import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { artilleryScriptProblem } from '../../scripts/artillery-validate';

const SCENARIOS = path.join(__dirname, '..', '..', 'load-generators', 'scenarios');

describe("Artillery's own script check, before anything starts", () => {
  test('every built-in scenario passes it', () => {
    const files = fs.readdirSync(SCENARIOS).filter((f) => f.endsWith('.yml'));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) expect({ f, problem: artilleryScriptProblem(yaml.load(fs.readFileSync(path.join(SCENARIOS, f), 'utf8')) as Record<string, unknown>) }).toEqual({ f, problem: undefined });
  });

  test("its first problem, in Artillery's words; a script without a target is judged on the rest (the rig names a missing target itself)", () => {
    const script = (scenarios: unknown, config: Record<string, unknown> = { target: 'http://127.0.0.1:9' }) => ({ config, scenarios });
    expect(artilleryScriptProblem(script([{ flow: [{ get: { url: '/' } }] }]))).toBeUndefined();
    expect(artilleryScriptProblem(script([{ flow: [{ get: { url: '/' } }] }], {}))).toBeUndefined();
    expect(artilleryScriptProblem(script([{ name: 'noflow' }]))).toBe('"scenarios[0].flow" is required');
    expect(artilleryScriptProblem(script([{ flow: [{ get: { url: '/' } }, { post: { json: { a: 1 } } }] }]))).toBe('"scenarios[0].flow[1].post.url" is required');
    expect(artilleryScriptProblem(script([{ flow: [] }], { target: 'http://x', processor: 123 }))).toBe('"config.processor" must be a string');
  });
});
