/**
 * A step of another engine's is refused before the run (scripts/step-kinds.ts): under Artillery 2.0.34 every vuser
 * that reaches it fails — http and socketio take it for a request without a URL, ws for a send without a payload.
 */
import { stepKindProblems } from '../../scripts/step-kinds';

const script = (scenarios: unknown[], config: Record<string, unknown> = {}) => ({ config: { target: 'http://127.0.0.1:1', ...config }, scenarios });

describe('a step its engine does not run', () => {
  test.each([
    ['an emit in an HTTP scenario', [{ flow: [{ get: { url: '/' } }, { emit: { channel: 'join', data: 'x' } }] }], /^scenario 1 \(engine http\) step 2 is a Socket\.IO "emit" step, which the http engine does not run: every vuser that reaches it fails \("an URL must be specified"\), as under plain artillery run; use engine: socketio for that scenario$/, {}],
    ['a ws send in a Socket.IO scenario (config.engine)', [{ name: 'chat', flow: [{ send: 'hello' }] }], /^scenario "chat" \(engine socketio\) step 1 is a ws "send" step, .*; use engine: ws for that scenario$/, { engine: 'socketio' }],
    ['an HTTP request in a ws scenario, inside a loop', [{ engine: 'ws', flow: [{ connect: 'ws://127.0.0.1:1' }, { loop: [{ think: 1 }, { get: { url: '/' } }], count: 2 }] }], /^scenario 1 \(engine ws\) step 2 > 2 is an HTTP "get" step, which the ws engine does not run: every vuser that reaches it fails \("invalid_step"\), .*move the get into a scenario of engine http or socketio$/, {}],
    ['a ws connect in a parallel of an HTTP scenario', [{ flow: [{ parallel: [{ get: { url: '/' } }, { connect: 'ws://x' }] }] }], /^scenario 1 \(engine http\) step 1 > 2 is a ws "connect" step, inside a parallel, which Artillery runs with the http engine: .*; move the connect out of the parallel$/, {}],
    ['a Socket.IO emit in a parallel (the socketio engine hands a parallel to the http engine)', [{ engine: 'socketio', flow: [{ parallel: [{ emit: { channel: 'a' } }] }] }], /^scenario 1 \(engine socketio\) step 1 > 1 is a Socket\.IO "emit" step, inside a parallel, which Artillery runs with the http engine: every vuser that reaches it fails \("an URL must be specified"\), as under plain artillery run; move the emit out of the parallel$/, {}],
    ['a loop written with its count first (Artillery tests for loop wherever it stands)', [{ flow: [{ count: 2, loop: [{ send: 'x' }] }] }], /^scenario 1 \(engine http\) step 1 > 1 is a ws "send" step/, {}],
    ['a parallel in a ws scenario', [{ engine: 'ws', flow: [{ connect: 'ws://x' }, { parallel: [{ send: 'a' }] }] }], /^scenario 1 \(engine ws\) step 2 is an HTTP "parallel" step, .*\("invalid_step"\)/, {}],
  ])('%s is named with where and the fix', (_name, scenarios, message, config: Record<string, unknown>) => {
    expect(stepKindProblems(script(scenarios, config))).toEqual([expect.stringMatching(message)]);
  });

  // Artillery runs a before/after section on its own engine, else http, never config.engine (runner.js handleScriptHook):
  // a failing step fails the section, and plain artillery run stops on it (exit 1).
  test.each([
    ['an emit in a before section of a Socket.IO script (config.engine does not reach it)', { engine: 'socketio' }, { before: { flow: [{ emit: { channel: 'join' } }] } }, /^before \(engine http\) step 1 is a Socket\.IO "emit" step, which the http engine does not run: the before section fails \("an URL must be specified"\) and plain artillery run stops on it, exit 1 \(before its first vuser\); give the before section engine: socketio \(it runs on engine http unless it names its own: config\.engine does not apply to before\/after\)$/],
    ['an HTTP request in an after section of engine ws, inside a loop', {}, { after: { engine: 'ws', flow: [{ connect: 'ws://x' }, { loop: [{ get: { url: '/' } }], count: 1 }] } }, /^after \(engine ws\) step 2 > 1 is an HTTP "get" step, which the ws engine does not run: the after section fails \("invalid_step"\) and plain artillery run stops on it, exit 1 \(after its report\); the ws engine makes no HTTP requests: remove the get from the after section, or run the section on engine http \(drop its engine: ws\)$/],
    ['a ws send in a before section that names engine socketio', {}, { before: { engine: 'socketio', flow: [{ send: 'x' }] } }, /^before \(engine socketio\) step 1 is a ws "send" step, .*; give the before section engine: ws$/],
  ])('%s is named as the section', (_name, config: Record<string, unknown>, hooks: Record<string, unknown>, message: RegExp) => {
    expect(stepKindProblems({ ...script([{ engine: 'socketio', flow: [{ emit: { channel: 'a' } }] }], config), ...hooks })).toEqual([expect.stringMatching(message)]);
  });

  test('a section on its own engine passes: HTTP requests in a before of a Socket.IO script, ws steps in an after of engine ws', () => {
    expect(stepKindProblems({ ...script([{ flow: [{ emit: { channel: 'a' } }] }], { engine: 'socketio' }), before: { flow: [{ post: { url: '/login' } }] }, after: { engine: 'ws', flow: [{ connect: 'ws://x' }, { send: 'bye' }] } })).toEqual([]);
  });

  test("each engine's own steps pass: HTTP requests under socketio, emit with its namespace first, ws send/wait/connect, think/loop/function/log everywhere; plugin engines are not judged", () => {
    expect(
      stepKindProblems(
        script([
          { flow: [{ get: { url: '/' } }, { parallel: [{ post: { url: '/a' } }] }, { think: 1 }, { function: 'f' }, { log: 'x' }, { loop: [{ get: { url: '/' } }], count: 2 }] },
          { engine: 'socketio', flow: [{ get: { url: '/' } }, { namespace: '/chat', emit: { channel: 'a' } }, { emit: { channel: 'b' } }, { loop: [{ emit: { channel: 'c' } }, { get: { url: '/' } }], count: 2 }] },
          { engine: 'ws', flow: [{ connect: 'ws://x' }, { send: 'a' }, { wait: { match: { json: '$.a', value: 1 } } }, { think: 1 }, { loop: [{ send: 'b' }], count: 2 }] },
          { engine: 'playwright', flow: [{ emit: 'anything' }] },
          { flow: [{ gett: { url: '/' } }] },
          // An HTTP CONNECT request (the http engine takes the first key as the method).
          { flow: [{ connect: { url: '/tunnel' } }, { connect: { uri: '/tunnel' } }] },
        ]),
      ),
    ).toEqual([]);
  });
});
