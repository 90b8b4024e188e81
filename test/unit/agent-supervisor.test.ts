/** What every load process starts with: the calm timers and one V8 helper thread, the user's NODE_OPTIONS kept. */
import { execFileSync } from 'node:child_process';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loadProcessNodeOptions } = require('../../load-generators/lib/agent-supervisor') as { loadProcessNodeOptions(inherited?: string): string };

/** Threads of a fresh Node process started with `nodeOptions` (Linux: /proc/self/task), before any work. */
function threadsWith(nodeOptions: string | undefined): number {
  const env: NodeJS.ProcessEnv = { ...process.env, RIG_CALM_TIMERS: '0' };
  if (nodeOptions === undefined) delete env.NODE_OPTIONS;
  else env.NODE_OPTIONS = nodeOptions;
  return Number(execFileSync(process.execPath, ['-e', "process.stdout.write(String(require('fs').readdirSync('/proc/self/task').length))"], { env }).toString());
}

describe('load process NODE_OPTIONS', () => {
  it('keeps the user\'s options first, then preloads the calm timers and asks V8 for one helper thread', () => {
    const opts = loadProcessNodeOptions('--max-old-space-size=3000');
    expect(opts).toMatch(/^--max-old-space-size=3000 --require ".*calm-timers\.js" --v8-pool-size=1$/);
    expect(loadProcessNodeOptions(undefined)).toMatch(/^--require ".*calm-timers\.js" --v8-pool-size=1$/);
  });

  it('a pool size the user set wins', () => {
    expect(loadProcessNodeOptions('--v8-pool-size=4')).not.toMatch(/--v8-pool-size=1/);
    expect(loadProcessNodeOptions('--v8-pool-size 2').match(/--v8-pool-size/g)).toHaveLength(1);
  });

  // Linux, as the rig (source addresses, /proc health) and CI are.
  it('a process started with them has three fewer V8 helper threads than Node\'s default of four', () => {
    const plain = threadsWith(undefined);
    const rig = threadsWith(loadProcessNodeOptions(undefined));
    expect(plain - rig).toBe(3);
  });
});
