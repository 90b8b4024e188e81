/**
 * A ws scenario's `connect:` URL written as a template (`{{ target }}/feed`, `ws://{{ host }}/feed`): when it uses
 * only the run's target and variables that hold one value before the run, the preflight renders it as Artillery's
 * ws engine will (engine_ws.js getWsInstance: template(connect, context)) and probes it; otherwise the probe's line
 * says the handshake was not probed and which placeholder made it unknowable. Before, any `{{ }}` skipped it.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../../scripts/errors';
import { preflightSpec } from '../../scripts/preflight';
import type { ArtilleryScript } from '../../scripts/scenario';

import { probe } from '../../load-generators/lib/preflight';

jest.setTimeout(30_000);

const ws = (connect: unknown, variables: Record<string, unknown> = {}) =>
  ({ config: { variables }, scenarios: [{ engine: 'ws', flow: [{ connect }, { send: 'hi' }] }] }) as unknown as ArtilleryScript;

describe('rendered before the run', () => {
  test('{{ target }}: the run target, as the vusers render it', () => {
    expect(preflightSpec(ws('{{ target }}/feed'), 'ws://t:9', false)).toMatchObject({ target: 'ws://t:9/feed', realtime: 'websocket', realtimeOptions: { url: 'ws://t:9/feed' } });
  });

  test('variables that hold one value (a string, a number, --var), in connect: { target }', () => {
    const spec = preflightSpec(ws({ target: 'ws://{{ host }}:{{port}}/{{ $environment }}' }, { host: 'h.example', port: 8080, $environment: 'staging' }), 'ws://t', false);
    expect(spec).toMatchObject({ target: 'ws://h.example:8080/staging', realtimeOptions: { url: 'ws://h.example:8080/staging' } });
    expect(spec.realtimeUnknown).toBeUndefined();
  });

  // The run's one test id is known before the run (scripts/run-id.ts), as config.target's is: was "made per vuser".
  test('{{ $testId }}: the run\'s test id, as every vuser renders it; a variable of the script\'s own of that name wins, as in Artillery', () => {
    expect(preflightSpec(ws('{{ target }}/runs/{{ $testId }}'), 'ws://t:9', false, 't-run-7')).toMatchObject({ target: 'ws://t:9/runs/t-run-7', realtimeOptions: { url: 'ws://t:9/runs/t-run-7' } });
    expect(preflightSpec(ws('ws://h/{{ $testId }}', { $testId: 'mine' }), 'ws://t', false, 't-run-7').realtimeOptions?.url).toBe('ws://h/mine');
    // Other per-vuser values stay unprobed beside it.
    expect(preflightSpec(ws('ws://h/{{ $testId }}/{{ $uuid }}'), 'ws://t', false, 't-run-7').realtimeUnknown).toBe('its connect URL uses {{ $uuid }} (made per vuser)');
  });

  test('a rendered URL that is not one is bad input, named as the connect step (exit 2)', () => {
    expect(() => preflightSpec(ws('{{ host }}/feed', { host: 'nohost' }), 'ws://t', false)).toThrow(UsageError);
    // The template as the script writes it, then what it rendered (was: only the rendered text, "(rendered from its template)").
    expect(() => preflightSpec(ws('{{ host }}/feed', { host: 'nohost' }), 'ws://t', false)).toThrow(
      new UsageError('the connect step\'s URL "{{ host }}/feed" rendered to "nohost/feed" has no scheme; make the template (or the variables it reads) render a whole URL with its scheme, e.g. ws://127.0.0.1:3000/path'),
    );
  });
});

describe('not known before the run: one line says why', () => {
  test.each([
    ['ws://t/{{ room }}', { room: ['a', 'b'] }, '{{ room }} (a list, picked per vuser)'],
    ['{{ target }}/{{ $uuid }}', {}, '{{ $uuid }} (made per vuser)'],
    ['ws://{{ $env.HOST }}/feed', {}, "{{ $env.HOST }} (the generator's environment)"],
    ['ws://t/{{ token }}', {}, '{{ token }} (not in config.variables: a payload column, a capture or a processor sets it)'],
    ['ws://t/{{ next }}', { next: '{{ other }}' }, '{{ next }} (itself a template, rendered per vuser)'],
  ])('%s', (connect, variables, why) => {
    const spec = preflightSpec(ws(connect, variables), 'ws://t', false);
    expect(spec.realtimeUnknown).toBe(`its connect URL uses ${why}`);
    expect(spec.realtimeOptions?.url).toBeUndefined();
  });
});

describe('the probe opens the rendered URL', () => {
  const upgrades: string[] = [];
  let server: http.Server;
  let port = 0;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end());
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Server: WebSocketServer } = require('ws') as { Server: new (o: object) => unknown };
    new WebSocketServer({ server, verifyClient: (info: { req: http.IncomingMessage }) => (upgrades.push(info.req.url ?? ''), info.req.url === '/feed/eu') });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  test('a handshake the template leads to passes; one it leads astray fails at the handshake', async () => {
    const good = await probe(preflightSpec(ws('{{ target }}/feed/{{ region }}', { region: 'eu' }), `ws://127.0.0.1:${port}`, false));
    expect(good).toMatchObject({ ok: true });
    expect(good.steps).toContain('websocket handshake');
    const bad = await probe(preflightSpec(ws('{{ target }}/feed/{{ region }}', { region: 'us' }), `ws://127.0.0.1:${port}`, false));
    expect(bad).toMatchObject({ ok: false, step: 'handshake' });
    expect(upgrades).toEqual(['/feed/eu', '/feed/us']);
  });

  test("a URL made from {{ $testId }} is probed where the vusers connect", async () => {
    upgrades.length = 0;
    const spec = preflightSpec(ws('{{ target }}/feed/{{ $testId }}'), `ws://127.0.0.1:${port}`, false, 'eu');
    expect(spec.realtimeUnknown).toBeUndefined();
    expect(await probe(spec)).toMatchObject({ ok: true });
    expect(upgrades).toEqual(['/feed/eu']);
  });
});
