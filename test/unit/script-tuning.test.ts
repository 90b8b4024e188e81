import * as fs from 'node:fs';
import * as path from 'node:path';
import yaml from 'js-yaml';

import { tuneScript } from '../../load-generators/lib/script-tuning';

const scenario = (name: string) => yaml.load(fs.readFileSync(path.join(__dirname, '../../load-generators/scenarios', `${name}.yml`), 'utf8'));

describe('script tuning', () => {
  test.each(['connect', 'pubsub', 'presence', 'broadcast', 'rooms', 'recovery'])('%s (processor-only HTTP): one shared agent pair', (name) => {
    const { script, changed } = tuneScript(scenario(name));
    expect(script.config.http).toMatchObject({ pool: 1 });
    expect(changed).toHaveLength(1);
  });

  test('scripts with Artillery HTTP requests (also nested in loops) are left as written', () => {
    const direct = { config: { target: 'http://x' }, scenarios: [{ flow: [{ get: { url: '/' } }] }] };
    const nested = { config: { target: 'http://x' }, scenarios: [{ flow: [{ function: 'f' }, { loop: [{ post: { url: '/' } }], count: 2 }] }] };
    for (const s of [direct, nested]) {
      const before = JSON.stringify(s);
      expect(tuneScript(s).changed).toEqual([]);
      expect(JSON.stringify(s)).toBe(before);
    }
  });

  test("a script's own http.pool and other http settings are kept", () => {
    expect(tuneScript({ config: { http: { pool: 50 } }, scenarios: [{ flow: [] }] }).script.config.http).toEqual({ pool: 50 });
    expect(tuneScript({ config: { http: { timeout: 5 } }, scenarios: [{ flow: [] }] }).script.config.http).toEqual({ timeout: 5, pool: 1 });
  });

  test('any engine: socketio emits alone are tuned, socketio HTTP steps are not', () => {
    expect(tuneScript({ config: {}, scenarios: [{ engine: 'socketio', flow: [{ emit: ['x'] }] }] }).changed).toHaveLength(1);
    expect(tuneScript({ config: {}, scenarios: [{ engine: 'socketio', flow: [{ get: { url: '/' } }] }] }).changed).toEqual([]);
  });
});
