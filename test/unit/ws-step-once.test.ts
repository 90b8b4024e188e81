/**
 * Artillery 2.0.34's ws engine calls a `send … match` step's callback twice when the send fails on a connection the
 * target closed (the send's error, then the `response timeout` of its armed timer): async's waterfall then throws
 * `Callback was already called.` from a timer and the load thread dies (plain `artillery run` exits 11). The real
 * engine, loaded as the rig's plugin loads it, in a child process (an ES module; Node ≥ 22 requires it there).
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const MODULE = path.resolve(__dirname, '../../load-generators/plugins/artillery-plugin-rig/ws-step-once.js');

/** Runs one send-with-match step of the real WSEngine on a closed fake socket; the callback's calls once the timer fired. */
function callsOfClosedSend(patched: boolean): { wrapped: boolean | null; calls: string[]; errors: string[] } {
  const code = `
    const { EventEmitter } = require('node:events');
    const { stepCallbackOnce, loadWsEngine } = require(${JSON.stringify(MODULE)});
    const WSEngine = loadWsEngine();
    const wrapped = ${patched} ? stepCallbackOnce(WSEngine) : null;
    const ee = new EventEmitter();
    const errors = [];
    const calls = [];
    ee.on('error', (e) => errors.push(String(e)));
    ee.on('error', (e) => { if (e === 'response timeout') setImmediate(() => process.stdout.write(JSON.stringify({ wrapped, calls, errors }))); });
    const engine = new WSEngine({ config: { timeout: 0.05 } });
    const step = engine.step({ send: { payload: 'ping', match: { json: '$.ok', value: true } } }, ee);
    const ws = { send(payload, cb) { setImmediate(() => cb(new Error('WebSocket is not open: readyState 3 (CLOSED)'))); } };
    step({ ws, vars: {} }, (err) => calls.push(String(err && (err.message || err))));
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', code], { encoding: 'utf8', timeout: 20_000 }));
}

describe("the ws engine's steps call back once (ws-step-once.js)", () => {
  test('unwrapped, the real engine calls back twice: the crash the wrapper exists for', () => {
    expect(callsOfClosedSend(false).calls).toEqual(['WebSocket is not open: readyState 3 (CLOSED)', 'response timeout']);
  }, 30_000);

  test('wrapped, the vuser ends on the first call (the send error); the timer still counts its error, and wrapping twice changes nothing', () => {
    expect(callsOfClosedSend(true)).toEqual({
      wrapped: true,
      calls: ['WebSocket is not open: readyState 3 (CLOSED)'],
      errors: ['Error: WebSocket is not open: readyState 3 (CLOSED)', 'response timeout'],
    });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { stepCallbackOnce } = require(MODULE) as { stepCallbackOnce(E: { prototype: any }): boolean };
    class Engine {
      step() {
        return (_c: unknown, cb: (n: number) => void) => {
          cb(1);
          cb(2);
        };
      }
    }
    expect(stepCallbackOnce(Engine)).toBe(true);
    expect(stepCallbackOnce(Engine)).toBe(false);
    const seen: number[] = [];
    (new Engine().step() as (c: unknown, cb: (n: number) => void) => void)(null, (n) => seen.push(n));
    expect(seen).toEqual([1]);
  }, 30_000);
});
