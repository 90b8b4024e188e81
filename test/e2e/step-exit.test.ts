/**
 * A step that calls process.exit() in a user's processor. Under Artillery it ends the worker thread only (Node's rule
 * for worker threads) and plain `artillery run` waits forever for that worker's `done`; the rig used to run on until
 * its deadline (phases + sessions + 2 minutes, exit 3 "did not end in its expected time"). Now the rig plugin writes
 * the call's site before the thread ends and the agent stops at once, naming it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pidsOfRun, runCli, tempDir } from '../helpers/cli';
import { loopbackHttpServer } from '../helpers/http-server';

describe('process.exit() in a step of a user script', () => {
  let server: Awaited<ReturnType<typeof loopbackHttpServer>>;
  beforeAll(async () => {
    server = await loopbackHttpServer();
  });
  afterAll(() => server.close());

  test('stops the run at once (not at its deadline): exit 3, the call and its line named, nothing left running', async () => {
    const dir = tempDir('rig-step-exit-');
    fs.writeFileSync(
      path.join(dir, 'exit-step.js'),
      `let n = 0;
module.exports = { count(context, events, next) {
  n += 1;
  if (n === 3) process.exit(0);
  next();
} };
`,
    );
    const script = path.join(dir, 'exit.yml');
    // 60 s of arrivals: without the stop the run would last phases + 2 minutes, past this test's timeout.
    fs.writeFileSync(script, `config:\n  target: http://127.0.0.1:${server.port}\n  processor: ./exit-step.js\n  phases:\n    - duration: 60\n      arrivalRate: 4\nscenarios:\n  - flow:\n      - function: count\n      - get:\n          url: /\n`);
    const r = await runCli(['--scenario', script, '--out', path.join(dir, 'run'), '--json']);
    expect(r.code).toBe(3);
    expect(r.json.status).toBe('partial');
    const reasons: string[] = r.json.result.reasons;
    expect(reasons.some((x) => /a step called process\.exit\(0\) at \S*\/exit-step\.js:4:\d+, which ends Artillery's load thread .*next\(err\)/.test(x))).toBe(true);
    expect(r.stderr).toMatch(/result: FAILED \(exit 3\): generator g01 lost \(.*process\.exit\(0\) at \S*\/exit-step\.js:4/);
    expect(pidsOfRun(r.json.runId)).toEqual([]);
  }, 110_000);
});
