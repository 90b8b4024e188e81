import { assertEnsureParses, ensureEnabled, ensureIgnoredNote, evaluateEnsure, flagEnsureChecks, scriptEnsureChecks } from '../../scripts/report/thresholds';
import { UsageError } from '../../scripts/errors';

const aggregate = {
  counters: { 'vusers.created': 10, 'vusers.completed': 9, 'vusers.failed': 1, 'http.codes.200': 40 },
  rates: { 'http.request_rate': 11 },
  summaries: { 'http.response_time': { min: 1, max: 90, count: 40, mean: 5, p50: 3, median: 3, p75: 4, p90: 8, p95: 20, p99: 80, p999: 90 } },
};
const plugin = { ensure: {} };

describe('scriptEnsureChecks: every form artillery-plugin-ensure reads, in its order', () => {
  test('thresholds, conditions (strict or not), legacy keys and maxErrorRate', () => {
    const checks = scriptEnsureChecks({
      plugins: plugin,
      ensure: {
        maxErrorRate: 5,
        p99: '200',
        thresholds: [{ 'http.response_time.p95': 50 }],
        conditions: [{ expression: 'vusers.failed == 0' }, { expression: 'http.request_rate > 100', strict: false }],
      },
    });
    expect(checks.map((c) => [c.expression, c.evaluate, c.strict])).toEqual([
      ['http.response_time.p95 < 50', 'http.response_time.p95 < 50', true],
      ['vusers.failed == 0', 'vusers.failed == 0', true],
      ['http.request_rate > 100', 'http.request_rate > 100', false],
      ['p99 < 200', 'http.response_time.p99 < 200', true],
      ['maxErrorRate < 5', '((vusers.created - vusers.completed)/vusers.created * 100) <= 5', true],
    ]);
  });

  test('config.plugins.ensure holds the checks when config.ensure is absent; config.ensure wins when both are set', () => {
    expect(scriptEnsureChecks({ plugins: { ensure: { conditions: [{ expression: 'a == 1' }] } } }).map((c) => c.expression)).toEqual(['a == 1']);
    const both = scriptEnsureChecks({ ensure: { conditions: [{ expression: 'b == 1' }] }, plugins: { ensure: { conditions: [{ expression: 'a == 1' }] } } });
    expect(both.map((c) => c.expression)).toEqual(['b == 1']);
  });

  test('as in Artillery 2.0.34, config.ensure alone is not evaluated (the plugin is not loaded) and the run says so', () => {
    const config = { ensure: { conditions: [{ expression: 'vusers.failed == 0' }] } };
    expect(ensureEnabled(config)).toBe(false);
    expect(scriptEnsureChecks(config)).toEqual([]);
    expect(ensureIgnoredNote(config)).toMatch(/plugins: \{ ensure: \{\} \}/);
    expect(ensureIgnoredNote({ ...config, plugins: plugin })).toBeUndefined();
  });

  test('ARTILLERY_DISABLE_ENSURE turns the checks off, as in Artillery', () => {
    expect(scriptEnsureChecks({ plugins: plugin, ensure: { p99: 1 } }, { ARTILLERY_DISABLE_ENSURE: '1' })).toEqual([]);
  });
});

describe('evaluateEnsure: once, on the merged aggregate', () => {
  test("script checks use Artillery's semantics: a metric the run never produced fails `< N`", () => {
    const [missing] = evaluateEnsure(scriptEnsureChecks({ plugins: plugin, ensure: { conditions: [{ expression: 'errors.ETIMEDOUT < 1' }] } }), aggregate);
    expect(missing?.ok).toBe(false);
    // The rig's --ensure keeps its documented semantics: a missing metric counts as 0.
    expect(evaluateEnsure(flagEnsureChecks(['errors.ETIMEDOUT < 1']), aggregate)[0]?.ok).toBe(true);
  });

  test('legacy and maxErrorRate forms evaluate like the plugin (legacy keys in the order written)', () => {
    const results = evaluateEnsure(scriptEnsureChecks({ plugins: plugin, ensure: { p99: 100, p95: 10, maxErrorRate: 10 } }), aggregate);
    expect(results.map((r) => [r.expression, r.ok])).toEqual([
      ['p99 < 100', true],
      ['p95 < 10', false],
      ['maxErrorRate < 10', true],
    ]);
    const strictRate = evaluateEnsure(scriptEnsureChecks({ plugins: plugin, ensure: { maxErrorRate: 5 } }), aggregate);
    expect(strictRate[0]?.ok).toBe(false); // 1 of 10 vusers did not complete: 10% > 5%
  });

  test('a failed strict: false condition is reported as optional (it does not fail the run)', () => {
    const [r] = evaluateEnsure(scriptEnsureChecks({ plugins: plugin, ensure: { conditions: [{ expression: 'vusers.failed == 0', strict: false }] } }), aggregate);
    expect(r).toEqual({ expression: 'vusers.failed == 0', ok: false, optional: true });
  });

  test('plain strings (older runs) are --ensure flags', () => {
    expect(evaluateEnsure(['vusers.created == 10'], aggregate)).toEqual([{ expression: 'vusers.created == 10', ok: true }]);
  });
});

describe('assertEnsureParses: syntax errors are bad input before the run', () => {
  test.each(['vusers.failed ==', 'http.response_time.p99 < < 3', '((vusers.created'])('%s is refused naming the expression', (expr) => {
    expect(() => assertEnsureParses(flagEnsureChecks([expr]))).toThrow(UsageError);
    expect(() => assertEnsureParses(flagEnsureChecks([expr]))).toThrow(new RegExp(`--ensure ${JSON.stringify(expr).replace(/[()*.]/g, '\\$&')} is not a valid ensure expression`));
  });

  test('valid expressions with dotted, slashed and numbered metric names pass', () => {
    expect(() =>
      assertEnsureParses([
        ...flagEnsureChecks(['http.codes.200 > 1 and plugins.metrics-by-endpoint./login.codes.200 > 0', 'not (vusers.failed > 0)']),
        ...scriptEnsureChecks({ plugins: plugin, ensure: { p99: 3, maxErrorRate: 1 } }),
      ]),
    ).not.toThrow();
  });

  test("a script condition that does not parse names config.ensure", () => {
    expect(() => assertEnsureParses(scriptEnsureChecks({ plugins: plugin, ensure: { conditions: [{ expression: 'a <' }] } }))).toThrow(/config\.ensure "a <"/);
  });
});

describe('the run result with a strict: false check', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { decideResult } = require('../../scripts/report/result') as typeof import('../../scripts/report/result');
  const input = (thresholds: ReturnType<typeof evaluateEnsure>) => ({ status: 'completed' as const, failedRatio: 0, thresholds, aggregate, rig: { lostGenerators: [] } });

  test('a failed optional check is shown but passes (exit 0, as Artillery); a strict one fails (exit 1)', () => {
    const optional = evaluateEnsure(scriptEnsureChecks({ plugins: plugin, ensure: { conditions: [{ expression: 'vusers.failed == 0', strict: false }] } }), aggregate);
    const r = decideResult(input(optional), 1);
    expect(r.exitCode).toBe(0);
    expect(r.reasons).toContain('threshold `vusers.failed == 0` breached: vusers.failed = 1 (optional: strict: false)');
    const strict = evaluateEnsure(scriptEnsureChecks({ plugins: plugin, ensure: { conditions: [{ expression: 'vusers.failed == 0' }] } }), aggregate);
    expect(decideResult(input(strict), 1).exitCode).toBe(1);
  });
});

describe('how a threshold reads (terminal summary, report.html, comparison page: one rule)', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { thresholdStatus } = require('../../scripts/report/threshold-status') as typeof import('../../scripts/report/threshold-status');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { thresholdsSection } = require('../../scripts/report/html/sections') as typeof import('../../scripts/report/html/sections');
  test('held: ok; breached: BREACHED; a breached strict: false condition: breached (optional), as Artillery marks it', () => {
    expect(thresholdStatus({ ok: true })).toEqual({ text: 'ok', tone: 'pass' });
    expect(thresholdStatus({ ok: false, error: 'no such metric' })).toEqual({ text: 'BREACHED (no such metric)', tone: 'fail' });
    const optional = evaluateEnsure(scriptEnsureChecks({ plugins: plugin, ensure: { conditions: [{ expression: 'vusers.failed == 0', strict: false }] } }), aggregate);
    expect(thresholdStatus(optional[0]!)).toEqual({ text: 'breached (optional)', tone: 'warn' });
    const html = thresholdsSection({ thresholds: optional } as unknown as Parameters<typeof thresholdsSection>[0]);
    expect(html).toContain('<td class="warn">breached (optional)</td>');
    expect(html).not.toContain('BREACHED');
  });
});

