import { errorOriginsOf } from '../../scripts/engines';
import { DEFAULT_THRESHOLDS, HealthSample, decideVerdict, generatorErrorCode, saturationReasons, scriptErrors } from '../../scripts/core/verdict';

const P = 10_000;
const T0 = 1_700_000_000_000; // a period boundary
const PORTS = 28_232;

/** A healthy sample of g/p at time t. */
const ok = (generator: string, at: number, extra: Partial<HealthSample> = {}): HealthSample => ({
  at,
  generator,
  process: 'p0',
  cpuPercent: 40,
  eventLoopLagMs: 12,
  openFiles: 500,
  openFilesLimit: 20_000,
  portsInUse: 400,
  rssBytes: 300e6,
  ...extra,
});

/** Samples every 5 s from T0 for `n` samples. */
const series = (generator: string, n: number, at: (i: number) => Partial<HealthSample> = () => ({})) =>
  Array.from({ length: n }, (_, i) => ok(generator, T0 + 5000 * i + 200, at(i)));

const verdictOf = (samples: HealthSample[], errors: Array<[number, number]> = [], lost: string[] = []) =>
  decideVerdict({ samples, portRange: PORTS, periodMs: P, errorsByPeriod: new Map(errors), lostGenerators: lost });

describe('saturationReasons', () => {
  test('each documented threshold trips only above its value', () => {
    expect(saturationReasons(ok('g', 0, { cpuPercent: 85 }), PORTS)).toEqual([]);
    expect(saturationReasons(ok('g', 0, { cpuPercent: 85.1 }), PORTS)).toEqual(['CPU 85.1% > 85%']);
    expect(saturationReasons(ok('g', 0, { eventLoopLagMs: 100.4 }), PORTS)).toEqual(['event-loop lag 100.4 ms > 100 ms']);
    expect(saturationReasons(ok('g', 0, { openFiles: 18_001 }), PORTS)).toEqual(['open files 18001 > 90% of 20000']);
    expect(saturationReasons(ok('g', 0, { openFiles: 18_000 }), PORTS)).toEqual([]);
    expect(saturationReasons(ok('g', 0, { portsInUse: Math.floor(0.9 * PORTS) + 1 }), PORTS)).toEqual([`ports 25409 > 90% of ${PORTS}`]);
  });

  // EC2 User Guide, "Monitor network performance for ENA settings": each *_allowance_exceeded counter is packets the
  // instance queued or dropped past a limit of its own size, so any on a generator is the rig's limit.
  test('packets over an EC2 network allowance of the generator instance: any is saturation, each allowance named', () => {
    expect(saturationReasons(ok('g', 0, { nicAllowanceExceeded: { bw_in: 0, bw_out: 0, pps: 0, conntrack: 0, linklocal: 0 } }), PORTS)).toEqual([]);
    expect(saturationReasons(ok('g', 0, { nicAllowanceExceeded: { bw_in: 0, conntrack: 12, pps: 3 } }), PORTS)).toEqual([
      'connection-tracking allowance exceeded 12 packets',
      'packets-per-second allowance exceeded 3 packets',
    ]);
    // The sample at T0+15.2 s covers the 5 s since the previous one, inside the second period.
    const v = verdictOf(series('g01', 4, (i) => (i === 3 ? { nicAllowanceExceeded: { conntrack: 40 } } : {})), [[T0 + P, 25]]);
    expect(v.verdict).toBe('rig-limited');
    expect(v.periods.filter((p) => p.rigLimited).map((p) => p.period)).toEqual([T0 + P]);
    expect(v.summary).toBe(`generator g01 saturated (connection-tracking allowance exceeded) in period ${new Date(T0 + P).toISOString().slice(11, 19)}; 25 of 25 errors coincide with it: they may come from the rig`);
  });

  test('missing figures never count as saturation', () => {
    expect(saturationReasons({ at: 0, generator: 'g', process: 'p0' }, PORTS)).toEqual([]);
    expect(saturationReasons(ok('g', 0, { openFilesLimit: undefined, openFiles: 1e9 }), PORTS)).toEqual([]);
    expect(saturationReasons(ok('g', 0, { portsInUse: 1e9 }), 0)).toEqual([]);
  });

  test('thresholds can be tightened', () => {
    expect(saturationReasons(ok('g', 0, { cpuPercent: 50 }), PORTS, { ...DEFAULT_THRESHOLDS, cpuPercent: 45 })).toEqual(['CPU 50% > 45%']);
  });
});

describe('decideVerdict', () => {
  test('healthy generators, no errors: trustworthy, every period clean', () => {
    const v = verdictOf([...series('g01', 6), ...series('g02', 6)]);
    expect(v.verdict).toBe('trustworthy');
    expect(v.saturatedGenerators).toEqual([]);
    expect(v.periods.map((p) => p.period)).toEqual([T0, T0 + P, T0 + 2 * P]);
    expect(v.periods.every((p) => !p.rigLimited && !p.errorsCoincide)).toBe(true);
  });

  test('healthy generators with errors: trustworthy — the errors come from the target', () => {
    const v = verdictOf(series('g01', 6), [[T0 + P, 40]]);
    expect(v.verdict).toBe('trustworthy');
    expect(v.errors).toEqual({ total: 40, whileSaturated: 0 });
    expect(v.periods.find((p) => p.period === T0 + P)).toMatchObject({ errors: 40, rigLimited: false, errorsCoincide: false });
  });

  test("vusers that failed on the script's own errors: the summary says so in one line instead of 'the figures describe the target'", () => {
    const withCounters = (counters: Record<string, number>) =>
      decideVerdict({ samples: series('g01', 6), portRange: PORTS, periodMs: P, errorsByPeriod: new Map([[T0, 4]]), lostGenerators: [], counters }).summary;
    const own = withCounters({ 'vusers.failed': 4, "errors.Cannot read properties of null (reading 'bar')": 3, 'errors.order total mismatch': 1 });
    expect(own).toBe(`no generator was saturated, but 4 vusers failed and all errors were raised by your script's own code (processor, captures, checks), not the network or the target: "Cannot read properties of null (reading 'bar')" ×3, "order total mismatch" ×1`);
    // A check the target's answer failed (Artillery's engines' own words) is said as such, with how to see the answers.
    expect(withCounters({ 'vusers.failed': 15, 'errors.Failed capture or match': 12, 'errors.Failed match': 2, 'errors.data is not valid': 1 })).toBe(
      `no generator was saturated, but 15 vusers failed and all errors were your script's checks (match, capture) failing on the target's answers, not network errors: "Failed capture or match" ×12, "Failed match" ×2, 1 more; the target answered something else than the check expects (to see the answers: --platform local --vusers 1 with DEBUG='http*' (or ws, socketio), into the run folder's generators/g01/p0/artillery.log)`,
    );
    // The expect plugin's failures (reportFailuresAsErrors) are checks too.
    expect(withCounters({ 'vusers.failed': 1, 'errors.Failed expectations for request http://127.0.0.1:9/items': 1 })).toMatch(/errors were your script's checks \(match, capture\) failing on the target's answers/);
    // Checks beside a processor's own error: the script's code, checks included.
    expect(withCounters({ 'vusers.failed': 2, 'errors.Failed match': 1, 'errors.boom': 1 })).toMatch(/raised by your script's own code \(processor, captures, checks\)/);
    expect(withCounters({ 'vusers.failed': 3, 'errors.ECONNREFUSED': 2, 'errors.boom': 1 })).toMatch(/but 3 vusers failed and 1 of 3 errors were raised by your script's own code .*: "boom" ×1$/);
    // The network's and the target's errors are the target's figures.
    for (const e of ['ECONNREFUSED', 'connect ETIMEDOUT 10.0.0.1:80', 'Unexpected server response: 401', 'socket hang up', 'xhr poll error', 'ERR_TLS_CERT_ALTNAME_INVALID',
      // A vuser's first Socket.IO connection: Artillery counts the Error itself (`errors.Error: xhr post error`).
      'Error: xhr post error', 'Error: xhr poll error', 'Error: websocket error', 'Error: timeout',
      // A session the target closed before answering the CONNECT (the rig's plugin fails it with the client's reason;
      // a namespace's connection is counted by its message alone).
      'Error: transport close', 'transport close', 'io server disconnect', 'Error: ping timeout']) {
      expect(withCounters({ 'vusers.failed': 1, [`errors.${e}`]: 1 })).toBe('no generator was saturated: the figures describe the target');
    }
    // What ws (7.5 and 8) and Artillery's ws and socketio engines say when the target closed the connection under the
    // scenario (a send after it: both forms, as the ws engine counts them), answered a handshake wrongly, sent too much,
    // or did not answer within config.timeout; certificate and HTTP-parser codes.
    for (const e of ['WebSocket is not open: readyState 3 (CLOSED)', 'Error: WebSocket is not open: readyState 3 (CLOSED)', 'Error: WebSocket is not open: readyState 2 (CLOSING)',
      'Invalid Sec-WebSocket-Accept header', 'Server sent no subprotocol', 'Max payload size exceeded', 'response timeout', 'Empty response from WS server',
      'Error: Unexpected server response: 503', 'HPE_INVALID_CONSTANT', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'HOSTNAME_MISMATCH', 'ERROR_IN_CERT_NOT_AFTER_FIELD', 'self-signed certificate', 'certificate has expired', 'unable to get local issuer certificate',
      "Hostname/IP does not match certificate's altnames: Host: a.test. is not in the cert's altnames: DNS:b.test", 'Too many message fragments',
      'Unsupported WebSocket frame: payload length > 2^53 - 1', 'Error: fetch read error', 'webtransport error', 'cookie_parse_error_invalid_cookie']) {
      expect([e, withCounters({ 'vusers.failed': 1, [`errors.${e}`]: 1 })]).toEqual([e, 'no generator was saturated: the figures describe the target']);
    }
    // A send before the connection opened is a processor's doing; a script's own words that only contain those messages too.
    // Codes in their case: a script's own words that name a variable like one are the script's.
    expect(withCounters({ 'vusers.failed': 2, 'errors.Missing env CERT_PATH': 1, 'errors.cert_file not found': 1 })).toMatch(/all errors were raised by your script's own code/);
    expect(withCounters({ 'vusers.failed': 2, 'errors.Missing ERR_LOG_PATH': 1, 'errors.err_user is empty': 1 })).toMatch(/all errors were raised by your script's own code/);
    for (const e of ['getaddrinfo ENOTFOUND api.test', 'read ECONNRESET', 'Error: connect ECONNREFUSED 127.0.0.1:1', 'Client network socket disconnected before secure TLS connection was established']) {
      expect([e, withCounters({ 'vusers.failed': 1, [`errors.${e}`]: 1 })]).toEqual([e, 'no generator was saturated: the figures describe the target']);
    }
    expect(withCounters({ 'vusers.failed': 2, 'errors.WebSocket is not open: readyState 0 (CONNECTING)': 1, 'errors.my response timeout check': 1 })).toMatch(/all errors were raised by your script's own code .*"my response timeout check" ×1, "WebSocket is not open: readyState 0 \(CONNECTING\)" ×1$/);
    // Socket.IO's messages whole and in their case: a processor's own wording that starts the same way is the script's.
    expect(withCounters({ 'vusers.failed': 2, 'errors.Server error: expected 200, got 500': 1, 'errors.Timeout waiting for my reply': 1 })).toMatch(/all errors were raised by your script's own code .*"Server error: expected 200, got 500" ×1, "Timeout waiting for my reply" ×1$/);
  });

  // As plain `artillery run` 2.0.34 counts them against a target whose io.use() calls next(new Error('unauthorized')):
  // the socketio engine counts the failed connection's Error itself (`Error: unauthorized`), while a processor's
  // next(new Error('unauthorized')) is counted by its message alone (`unauthorized`).
  test("a Socket.IO middleware refusal is the target's answer, whatever its words; the same words from a processor stay the script's", () => {
    const withCounters = (counters: Record<string, number>) =>
      decideVerdict({ samples: series('g01', 6), portRange: PORTS, periodMs: P, errorsByPeriod: new Map([[T0, 4]]), lostGenerators: [], counters }).summary;
    for (const e of ['Error: unauthorized', 'Error: invalid token', 'Error: Forbidden: room full']) {
      expect(withCounters({ 'vusers.failed': 3, [`errors.${e}`]: 3 })).toBe('no generator was saturated: the figures describe the target');
    }
    expect(withCounters({ 'vusers.failed': 3, 'errors.Error: unauthorized': 2, 'errors.unauthorized': 1 })).toMatch(/but 3 vusers failed and 1 of 3 errors were raised by your script's own code .*: "unauthorized" ×1$/);
    // The built-in scenarios' processors are the rig's code: their codes name the target's answer.
    for (const e of ['WS_CONNECT_FAILED', 'COOKIE_HTTP_503', 'COOKIE_FAILED', 'SUBSCRIBE_FAILED', 'RECONNECT_FAILED']) {
      expect(withCounters({ 'vusers.failed': 1, [`errors.${e}`]: 1 })).toBe('no generator was saturated: the figures describe the target');
    }
  });

  // The run's engines and scenario say which of those readings hold (ErrorOrigins): without a socketio scenario nothing
  // counts `Error: …` but a message that starts so, e.g. a processor's next(new Error(String(err))) of another error; a
  // script of your own that names an error SUBSCRIBE_FAILED is not the rig's processor.
  test("'Error: …' is the target's only when a scenario runs the socketio engine, and the built-in codes only for a built-in scenario", () => {
    const verdictWith = (counters: Record<string, number>, socketIoEngine: boolean, builtInScenario: boolean) =>
      decideVerdict({ samples: series('g01', 6), portRange: PORTS, periodMs: P, errorsByPeriod: new Map([[T0, 2]]), lostGenerators: [], counters, errorOrigins: { socketIoEngine, wsEngine: false, builtInScenario } }).summary;
    const wrapped = { 'vusers.failed': 2, 'errors.Error: boom': 2 };
    expect(verdictWith(wrapped, true, false)).toBe('no generator was saturated: the figures describe the target');
    expect(verdictWith(wrapped, false, false)).toMatch(/but 2 vusers failed and all errors were raised by your script's own code .*: "Error: boom" ×2$/);
    const code = { 'vusers.failed': 1, 'errors.SUBSCRIBE_FAILED': 1 };
    expect(verdictWith(code, true, true)).toBe('no generator was saturated: the figures describe the target');
    expect(verdictWith(code, true, false)).toMatch(/raised by your script's own code .*: "SUBSCRIBE_FAILED" ×1$/);
    // The ws engine counts a failed vuser's string error ('response timeout') once more as `undefined`: an echo of an
    // error counted by name, not the script's; without a ws scenario `undefined` is a processor's error with no message.
    const echo = { 'vusers.failed': 2, 'errors.response timeout': 2, 'errors.undefined': 2 };
    expect(decideVerdict({ samples: series('g01', 6), portRange: PORTS, periodMs: P, errorsByPeriod: new Map([[T0, 4]]), lostGenerators: [], counters: echo, errorOrigins: { socketIoEngine: false, wsEngine: true, builtInScenario: false } }).summary).toBe('no generator was saturated: the figures describe the target');
    expect(verdictWith(echo, false, false)).toMatch(/but 2 vusers failed and 2 of 4 errors were raised by your script's own code .*: "undefined" ×2$/);
    // At most one echo per `response timeout`: the rest is a processor's error without a message (next('text')).
    const more = { 'vusers.failed': 3, 'errors.response timeout': 2, 'errors.undefined': 3 };
    expect(decideVerdict({ samples: series('g01', 6), portRange: PORTS, periodMs: P, errorsByPeriod: new Map([[T0, 5]]), lostGenerators: [], counters: more, errorOrigins: { socketIoEngine: false, wsEngine: true, builtInScenario: false } }).summary).toMatch(/but 3 vusers failed and 1 of 5 errors were raised by your script's own code .*: "undefined" ×1$/);
    // A run folder from before wsEngine was kept: the same reading.
    expect(decideVerdict({ samples: series('g01', 6), portRange: PORTS, periodMs: P, errorsByPeriod: new Map([[T0, 5]]), lostGenerators: [], counters: more, errorOrigins: { socketIoEngine: false, builtInScenario: false } }).summary).toMatch(/1 of 5 errors were raised .*"undefined" ×1$/);
    // Socket.IO's own transport messages and network codes are the target's under any engine.
    expect(verdictWith({ 'vusers.failed': 2, 'errors.Error: xhr poll error': 1, 'errors.ECONNREFUSED': 1 }, false, false)).toBe('no generator was saturated: the figures describe the target');
  });

  test('saturated generator with errors in the same period: rig-limited, periods and generator named, errors coincide', () => {
    // g02 at 97% CPU in the samples taken at T0+10.2 s and T0+15.2 s: period T0+P (and the tail of T0).
    const samples = [...series('g01', 6), ...series('g02', 6, (i) => (i === 2 || i === 3 ? { cpuPercent: 97 } : {}))];
    const v = verdictOf(samples, [[T0 + P, 30], [T0 + 2 * P, 0]]);
    expect(v.verdict).toBe('rig-limited');
    expect(v.saturatedGenerators).toEqual(['g02']);
    const limited = v.periods.filter((p) => p.rigLimited);
    expect(limited.map((p) => p.period)).toEqual([T0, T0 + P]);
    expect(limited[1]).toEqual({ period: T0 + P, saturated: [{ generator: 'g02', reasons: ['CPU 97% > 85%'] }], errors: 30, rigLimited: true, errorsCoincide: true });
    expect(v.errorPeriodsWhileSaturated).toEqual([T0 + P]);
    expect(v.errors).toEqual({ total: 30, whileSaturated: 30 });
    expect(v.summary).toContain('generator g02 saturated (CPU)');
    expect(v.summary).toContain('30 of 30 errors coincide');
  });

  test('saturated generator, errors elsewhere: rig-limited but the errors do not coincide', () => {
    // Saturation (event-loop lag) only in the sample at T0+25.2 s → periods T0+2P; errors in T0+4P.
    const samples = series('g01', 10, (i) => (i === 5 ? { eventLoopLagMs: 250 } : {}));
    const v = verdictOf(samples, [[T0 + 4 * P, 12]]);
    expect(v.verdict).toBe('rig-limited');
    expect(v.periods.filter((p) => p.rigLimited).map((p) => p.period)).toEqual([T0 + 2 * P]);
    expect(v.errorPeriodsWhileSaturated).toEqual([]);
    expect(v.errors).toEqual({ total: 12, whileSaturated: 0 });
    expect(v.summary).toContain('none of the 12 errors coincide: they come from the target');
  });

  test('a sample marks every period its interval overlaps (CPU is measured since the previous sample)', () => {
    // Samples at T0+8 s and T0+13 s: the second one's interval (T0+8 s, T0+13 s] overlaps periods T0 and T0+P.
    const v = verdictOf([ok('g01', T0 + 8000), ok('g01', T0 + 13_000, { cpuPercent: 99 })], [[T0, 5]]);
    expect(v.periods.filter((p) => p.rigLimited).map((p) => p.period)).toEqual([T0, T0 + P]);
    expect(v.errorPeriodsWhileSaturated).toEqual([T0]);
  });

  test('several generators and reasons in one period are merged, sorted and deduplicated', () => {
    const samples = [
      ok('g03', T0 + 5200, { portsInUse: 27_000, cpuPercent: 90 }),
      ok('g01', T0 + 5200, { openFiles: 19_500 }),
      ok('g03', T0 + 5300, { process: 'p1', cpuPercent: 95 }),
    ];
    const v = verdictOf(samples);
    expect(v.periods).toHaveLength(1);
    expect(v.periods[0]?.saturated).toEqual([
      { generator: 'g01', reasons: ['open files 19500 > 90% of 20000'] },
      { generator: 'g03', reasons: ['CPU 90% > 85%', `ports 27000 > 90% of ${PORTS}`] },
    ]);
    expect(v.summary).toMatch(/^generators g01, g03 saturated \(CPU, open files, ports\)/);
  });

  test('deterministic: the order of the samples does not matter', () => {
    const samples = [...series('g01', 8, (i) => (i % 3 === 0 ? { cpuPercent: 91 } : {})), ...series('g02', 8, (i) => (i === 4 ? { eventLoopLagMs: 300 } : {}))];
    const a = verdictOf(samples, [[T0, 1], [T0 + 2 * P, 3]]);
    const b = verdictOf([...samples].reverse(), [[T0 + 2 * P, 3], [T0, 1]]);
    expect(b).toEqual(a);
  });

  test('a lost generator without saturation makes the run partial; saturation still wins', () => {
    expect(verdictOf(series('g01', 4), [], ['g02']).verdict).toBe('partial');
    expect(verdictOf(series('g01', 4, () => ({ cpuPercent: 99 })), [], ['g02']).verdict).toBe('rig-limited');
  });
});

describe('errors only a generator raises', () => {
  test('the codes: local bind, port, file and memory failures; never what a target can cause', () => {
    for (const c of ['EADDRINUSE', 'EADDRNOTAVAIL', 'EAFNOSUPPORT', 'EINVAL', 'EMFILE', 'ENFILE', 'ENOBUFS', 'ENOMEM']) {
      expect(generatorErrorCode(`errors.${c}`)).toBe(c);
      expect(generatorErrorCode(`cookie.retry_reason.${c}`)).toBe(c);
      expect(generatorErrorCode(`ws.connect_failed_reason.${c}`)).toBe(c);
    }
    for (const n of ['errors.ECONNREFUSED', 'errors.ECONNRESET', 'errors.ETIMEDOUT', 'errors.ENOTFOUND', 'errors.COOKIE_FAILED', 'cookie.retry_reason.http_503', 'ws.connect_failed_reason.ECONNREFUSED', 'ws.dropped.EMFILE', 'errors.EMFILES', 'ws.EMFILE', 'vusers.failed']) {
      expect(generatorErrorCode(n)).toBeUndefined();
    }
  });

  test('healthy samples, but a generator raised EINVAL: rig-limited in that period, the codes named, not "the figures describe the target"', () => {
    const v = decideVerdict({
      samples: series('g01', 4),
      portRange: PORTS,
      periodMs: P,
      errorsByPeriod: new Map([[T0, 10]]),
      lostGenerators: [],
      generatorErrors: [
        { generator: 'g01', period: T0, codes: { EINVAL: 20 } },
        { generator: 'g01', period: T0, codes: { EINVAL: 10, EMFILE: 0 } },
        { generator: 'g02', period: T0 + P, codes: {} },
      ],
    });
    expect(v.verdict).toBe('rig-limited');
    expect(v.generatorErrors).toEqual({ EINVAL: 30 });
    expect(v.periods.find((p) => p.period === T0)).toMatchObject({ rigLimited: true, errorsCoincide: true, saturated: [{ generator: 'g01', reasons: ['errors of its own: EINVAL 30'] }] });
    expect(v.periods.find((p) => p.period === T0 + P)?.rigLimited).toBe(false);
    expect(v.summary).toBe(`generator g01 raised errors no target causes (EINVAL 30: the generator's own ports, addresses, open files or memory) in period ${new Date(T0).toISOString().slice(11, 19)}; 10 of 10 errors coincide with it: they may come from the rig`);
  });

  test('with a saturated generator too: both are named, each with its own generators and periods', () => {
    const v = decideVerdict({
      samples: [...series('g01', 4), ...series('g02', 4, (i) => (i === 3 ? { cpuPercent: 97 } : {}))],
      portRange: PORTS,
      periodMs: P,
      errorsByPeriod: new Map(),
      lostGenerators: [],
      generatorErrors: [{ generator: 'g01', period: T0, codes: { EADDRNOTAVAIL: 3, EMFILE: 5 } }],
    });
    expect(v.verdict).toBe('rig-limited');
    expect(v.summary).toMatch(/^generator g02 saturated \(CPU\) in period \S+; generator g01 raised errors no target causes \(EMFILE 5, EADDRNOTAVAIL 3: .*\) in period \S+; no errors$/);
  });
});

describe('errorOriginsOf: what a run tells the verdict about its errors', () => {
  test('a socketio scenario (its own engine or config.engine), and whether the scenario is built in', () => {
    expect(errorOriginsOf({ config: {}, scenarios: [{ flow: [] }] }, false)).toEqual({ socketIoEngine: false, wsEngine: false, builtInScenario: false });
    expect(errorOriginsOf({ config: {}, scenarios: [{ flow: [] }, { engine: 'socketio', flow: [] }] }, false)).toEqual({ socketIoEngine: true, wsEngine: false, builtInScenario: false });
    expect(errorOriginsOf({ config: { engine: 'socketio' }, scenarios: [{ flow: [] }] }, true)).toEqual({ socketIoEngine: true, wsEngine: false, builtInScenario: true });
    expect(errorOriginsOf({ config: {}, scenarios: [{ engine: 'ws', flow: [] }] }, true)).toEqual({ socketIoEngine: false, wsEngine: true, builtInScenario: true });
  });

  // A before/after section runs on an emitter of its own (runner.js handleScriptHook): its errors reach no report. A ws
  // `before` beside http scenarios made a processor's message-less error (`undefined`) read as the ws engine's echo of
  // a `response timeout`; a socketio one made a processor's `Error: boom` read as a refused connection.
  test("a before/after section's engine, or a scenario Artillery never picks (weight 0), raises none of the run's errors", () => {
    const hooks = { config: {}, before: { engine: 'ws', flow: [] }, after: { engine: 'socketio', flow: [] }, scenarios: [{ flow: [] }, { engine: 'ws', weight: 0, flow: [] }] };
    const origins = errorOriginsOf(hooks, false);
    expect(origins).toEqual({ socketIoEngine: false, wsEngine: false, builtInScenario: false });
    expect(scriptErrors({ 'errors.undefined': 2, 'errors.response timeout': 2, 'errors.Error: boom': 1 }, origins)).toEqual({ undefined: 2, 'Error: boom': 1 });
  });
});
