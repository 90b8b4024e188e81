import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { callbackify, promisify } from 'node:util';

const MODULE = path.resolve(__dirname, '../../load-generators/plugins/artillery-plugin-rig/engine-steps.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { promisifyTasksOnce, callbackifyFunctionsOnce } = require(MODULE) as {
  promisifyTasksOnce(Engine: { prototype: any }): boolean;
  callbackifyFunctionsOnce(Engine: { prototype: any }): boolean;
};

type Task = (context: any, cb: (err: Error | null, context?: any) => void) => void;

/** An engine whose compiled scenario runs its steps the way Artillery's HTTP engine does: `await promisify(task)(context)`. */
function fakeEngine() {
  return class Engine {
    compile(tasks: Task[]) {
      return async (context: any) => {
        for (const task of tasks) context = await promisify(task)(context);
        return context;
      };
    }
  };
}

const step = (name: string): Task => (context, cb) => cb(null, { ...context, steps: [...context.steps, name] });

describe('steps promisified once per task (the HTTP engine)', () => {
  test('after compile, promisify(task) is one function for every vuser; without the patch it is a new one per call', () => {
    const tasks = [step('a'), step('b')];
    expect(promisify(tasks[0]!)).not.toBe(promisify(tasks[0]!)); // Node's default: a new wrapper each time
    const Engine = fakeEngine();
    expect(promisifyTasksOnce(Engine)).toBe(true);
    new Engine().compile(tasks);
    for (const t of tasks) expect(promisify(t)).toBe(promisify(t));
  });

  test('vusers run the same steps with the same context, and a failing step fails the vuser with its own error', async () => {
    const Engine = fakeEngine();
    promisifyTasksOnce(Engine);
    const boom = new Error('step c failed');
    const failing: Task = (_c, cb) => cb(boom);
    const run = new Engine().compile([step('a'), step('b')]);
    await expect(run({ steps: [] })).resolves.toEqual({ steps: ['a', 'b'] });
    await expect(run({ steps: ['again'] })).resolves.toEqual({ steps: ['again', 'a', 'b'] });
    await expect(new Engine().compile([step('a'), failing])({ steps: [] })).rejects.toBe(boom);
  });

  test('idempotent, and a task with its own custom promisified form keeps it', async () => {
    const Engine = fakeEngine();
    expect(promisifyTasksOnce(Engine)).toBe(true);
    expect(promisifyTasksOnce(Engine)).toBe(false);
    const own: Task = (_c, cb) => cb(null, 'callback form');
    const custom = async () => 'own custom form';
    Object.defineProperty(own, promisify.custom, { value: custom });
    await expect(new Engine().compile([own])({})).resolves.toBe('own custom form');
  });

  // The pinned Artillery's own engine, in a plain Node process (as the load thread loads it): the plugin's loader
  // finds the class the runner uses, and a compiled scenario's steps are promisified once.
  test("Artillery's HttpEngine: found by file, wrapped, and its compiled scenario runs every step of two vusers", () => {
    const code = `
      const { promisify } = require('node:util');
      const { promisifyTasksOnce, loadHttpEngine } = require(${JSON.stringify(MODULE)});
      const HttpEngine = loadHttpEngine();
      const wrapped = promisifyTasksOnce(HttpEngine);
      const engine = new HttpEngine({ config: { target: 'http://127.0.0.1:9', http: { pool: 1 } }, scenarios: [] });
      const calls = [];
      const tasks = [0, 1, 2].map((i) => (ctx, cb) => { calls.push(i); cb(null, ctx); });
      const ee = new (require('node:events'))();
      const scenario = engine.compile(tasks, {}, ee);
      const same = tasks.every((t) => promisify(t) === promisify(t));
      scenario({ vars: {} }, (err) => scenario({ vars: {} }, (err2) => {
        process.stdout.write(JSON.stringify({ wrapped, same, calls, err: String(err), err2: String(err2) }));
      }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', code], { encoding: 'utf8', timeout: 60_000 }));
    expect(out).toEqual({ wrapped: true, same: true, calls: [0, 1, 2, 0, 1, 2], err: 'null', err2: 'null' });
  });
});

/** An engine whose `function` steps run the way Artillery's HTTP engine runs them (callbackify per call for async ones); counts its own calls. */
function fakeFunctionEngine(processor: Record<string, any>) {
  const own = { calls: 0 };
  class Engine {
    config = { processor };
    step(spec: any, ee: unknown) {
      if (spec.think !== undefined) return (context: any, cb: any) => cb(null, { ...context, thought: true });
      return (context: any, callback: any) => {
        own.calls++;
        const fn = this.config.processor[spec.function];
        const f = fn.constructor.name === 'Function' ? fn : callbackify(fn);
        return f(context, ee, (hookErr: unknown) => callback(hookErr, context));
      };
    }
  }
  return { Engine, own };
}

const runStep = (task: any, context: any) =>
  new Promise<{ err: unknown; context: any }>((resolve) => task(context, (err: unknown, c: any) => resolve({ err, context: c })));

describe('async processor functions callbackified once per function (the HTTP engine)', () => {
  test("an async function step no longer goes through the engine's per-call callbackify; a callback-style one and other steps still do", async () => {
    const seen: string[] = [];
    const processor = {
      asyncStep: async (context: any) => {
        seen.push(`async ${context.vars.id}`);
        context.vars.touched = true;
      },
      callbackStep: function (context: any, _ee: unknown, done: () => void) {
        seen.push(`callback ${context.vars.id}`);
        done();
      },
    };
    const { Engine, own } = fakeFunctionEngine(processor);
    expect(callbackifyFunctionsOnce(Engine)).toBe(true);
    expect(callbackifyFunctionsOnce(Engine)).toBe(false);
    const engine = new Engine();
    const a = engine.step({ function: 'asyncStep' }, null);
    const b = engine.step({ function: 'callbackStep' }, null);
    const t = engine.step({ think: 0 }, null);
    for (const id of [1, 2]) {
      const r = await runStep(a, { vars: { id } });
      expect(r).toEqual({ err: null, context: { vars: { id, touched: true } } });
      await expect(runStep(b, { vars: { id } })).resolves.toEqual({ err: undefined, context: { vars: { id } } }); // done() with no error
    }
    await expect(runStep(t, { vars: {} })).resolves.toEqual({ err: null, context: { vars: {}, thought: true } });
    expect(seen).toEqual(['async 1', 'callback 1', 'async 2', 'callback 2']);
    expect(own.calls).toBe(2); // the callback-style steps only; without the wrapper 4
  });

  test('an async function that rejects fails the step with its error, and with a falsy reason as callbackify does', async () => {
    const boom = new Error('no cookie');
    const { Engine } = fakeFunctionEngine({ fails: async () => Promise.reject(boom), falsy: async () => Promise.reject(null) });
    callbackifyFunctionsOnce(Engine);
    const engine = new Engine();
    const r = await runStep(engine.step({ function: 'fails' }, null), { vars: {} });
    expect(r.err).toBe(boom);
    const f = await runStep(engine.step({ function: 'falsy' }, null), { vars: {} });
    expect((f.err as any).code).toBe('ERR_FALSY_VALUE_REJECTION');
    expect((f.err as any).reason).toBeNull();
  });

  // The pinned Artillery's HttpEngine, scenarios built by its own createScenario: async, callback-style and failing
  // processor functions, a think, two vusers; the engine's events and results are the ones its own code gives.
  test("Artillery's HttpEngine: a scenario of async and callback-style function steps runs as written, a failing one fails the vuser", () => {
    const code = `
      const EventEmitter = require('node:events');
      const { wrapStepsOnce, loadHttpEngine } = require(${JSON.stringify(MODULE)});
      const HttpEngine = loadHttpEngine();
      wrapStepsOnce(HttpEngine);
      const seen = [];
      const processor = {
        first: async (ctx) => { seen.push('first ' + ctx.vars.id); ctx.vars.first = true; },
        second: function (ctx, ee, done) { seen.push('second ' + ctx.vars.id); done(); },
        broken: async (ctx) => { seen.push('broken ' + ctx.vars.id); throw new Error('processor failed'); },
      };
      const engine = new HttpEngine({ config: { target: 'http://127.0.0.1:9', http: { pool: 1 }, processor }, scenarios: [] });
      const ee = new EventEmitter(); const errors = []; ee.on('error', (e) => errors.push(e));
      const ok = engine.createScenario({ flow: [{ function: 'first' }, { think: 0.01 }, { function: 'second' }] }, ee);
      const bad = engine.createScenario({ flow: [{ function: 'first' }, { function: 'broken' }, { function: 'second' }] }, ee);
      ok({ vars: { id: 1 } }, (e1, c1) => ok({ vars: { id: 2 } }, (e2, c2) => bad({ vars: { id: 3 } }, (e3) => {
        process.stdout.write(JSON.stringify({ seen, errs: [String(e1), String(e2), String(e3)], firsts: [c1.vars.first, c2.vars.first], errors }));
      })));`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', code], { encoding: 'utf8', timeout: 60_000 }));
    expect(out).toEqual({
      seen: ['first 1', 'second 1', 'first 2', 'second 2', 'first 3', 'broken 3'],
      errs: ['null', 'null', 'Error: processor failed'],
      firsts: [true, true],
      errors: ['processor failed'],
    });
  });
});
