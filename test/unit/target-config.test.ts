/**
 * The reference target's env parsing (target-stack/app/config.js): every bad value is one line naming the
 * variable and what is accepted; the server turns it into exit 2.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loadConfig, ConfigError } = require('../../target-stack/app/config.js') as typeof import('../../target-stack/app/config.js');

const errorOf = (env: NodeJS.ProcessEnv): string => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
};

describe('REDIS_URL', () => {
  test.each(['redis://host:6379', 'rediss://user:pw@cache.example.com:6380/0', ' redis://127.0.0.1 '])('%s is accepted', (url) => {
    expect(loadConfig({ REDIS_URL: url }).redisUrl).toBe(url.trim());
  });
  test.each(['notaurl', 'http://host:6379', 'redis//host', 'redis://'])('%s is refused in one line', (url) => {
    const message = errorOf({ REDIS_URL: url });
    expect(message).toBe(`target: REDIS_URL=${JSON.stringify(url)} is invalid; expected a redis:// or rediss:// URL, e.g. redis://host:6379`);
  });
});

describe('EXIT_WITH_PARENT', () => {
  test.each(['1', 'true', 'TRUE', 'yes', 'on'])('%s turns it on', (v) => expect(loadConfig({ EXIT_WITH_PARENT: v }).exitWithParent).toBe(true));
  test.each(['0', 'false', 'no', 'off', '', undefined])('%s leaves it off', (v) => expect(loadConfig({ EXIT_WITH_PARENT: v }).exitWithParent).toBe(false));
  test.each(['2', 'y', 'enabled'])('%s is refused in one line', (v) => {
    expect(errorOf({ EXIT_WITH_PARENT: v })).toBe(`target: EXIT_WITH_PARENT=${JSON.stringify(v)} is invalid; expected 1, true, yes or on (or 0, false, no, off)`);
  });
});

test('npm run target with REDIS_URL=notaurl exits 2 with one line, no stack', () => {
  const r = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'target-stack', 'app', 'server.js')], {
    env: { ...process.env, REDIS_URL: 'notaurl', PORT: '0', WORKERS: '1', HOST: '127.0.0.1' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(r.status).toBe(2);
  expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining('REDIS_URL="notaurl" is invalid')]);
});
