import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { promisifyTasksOnce } = require('../../load-generators/plugins/artillery-plugin-rig/promisify-once') as {
  promisifyTasksOnce(Engine: { prototype: any }): boolean;
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
      const { promisifyTasksOnce, loadHttpEngine } = require(${JSON.stringify(path.resolve(__dirname, '../../load-generators/plugins/artillery-plugin-rig/promisify-once.js'))});
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
