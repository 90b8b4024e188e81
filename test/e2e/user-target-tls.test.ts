/**
 * A user's own https target with a self-signed certificate (a test fixture, test/e2e/tls/, never a real key):
 * the script's `config.tls.rejectUnauthorized: false` is honoured by the rig's reachability check and preflight
 * as Artillery honours it in the run; without it the run is refused with the fix, not called "unreachable".
 * `-k` does the same for a script without that setting, as `artillery run -k` does.
 * Also: a target that accepts the connection and never answers is named as such, the same way by either check.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers/cli';

const TLS = path.join(__dirname, 'tls');
const dir = tempDir('rig-tls-');

function script(name: string, port: number, insecure: boolean): string {
  const file = path.join(dir, name);
  const tls = insecure ? '  tls:\n    rejectUnauthorized: false\n' : '';
  fs.writeFileSync(file, `config:\n  target: https://127.0.0.1:${port}\n${tls}  phases:\n    - duration: 1\n      arrivalCount: 2\nscenarios:\n  - flow:\n      - get: { url: / }\n`);
  return file;
}

function wsScript(): string {
  const file = path.join(dir, 'ws.yml');
  fs.writeFileSync(file, 'config:\n  target: ws://127.0.0.1:1/feed\n  phases:\n    - duration: 1\n      arrivalCount: 1\nscenarios:\n  - engine: ws\n    flow:\n      - send: hi\n');
  return file;
}

describe('a self-signed https target', () => {
  let server: https.Server;
  let stalled: http.Server;
  let port = 0;
  let stalledPort = 0;
  beforeAll(async () => {
    server = https.createServer({ key: fs.readFileSync(path.join(TLS, 'key.pem')), cert: fs.readFileSync(path.join(TLS, 'cert.pem')) }, (_req, res) => res.end('ok'));
    // Accepts connections, never answers (bounded: the CLI gives up after its 5-s check).
    stalled = http.createServer(() => undefined);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => stalled.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    stalledPort = (stalled.address() as AddressInfo).port;
  });
  afterAll(async () => {
    stalled.closeAllConnections();
    await new Promise((r) => server.close(r));
    await new Promise((r) => stalled.close(r));
  });

  test('config.tls.rejectUnauthorized: false runs as under plain Artillery (every request answered)', async () => {
    const out = path.join(dir, 'run-insecure');
    const r = await runCli(['--scenario', script('insecure.yml', port, true), '--out', out, '--json']);
    expect(r.stderr).toMatch(/preflight from this machine: ok/);
    expect(r.code).toBe(0);
    expect(r.json.aggregate.counters['http.codes.200']).toBe(2);
  }, 120_000);

  test('without it: refused before anything starts, naming the certificate and the setting (exit 2)', async () => {
    const out = path.join(dir, 'run-strict');
    const r = await runCli(['--scenario', script('strict.yml', port, false), '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error: target https:\/\/127\.0\.0\.1:\d+: TLS failed \(DEPTH_ZERO_SELF_SIGNED_CERT\): .*set config\.tls\.rejectUnauthorized: false in it/);
    expect(r.stderr).not.toMatch(/unreachable/);
    expect(fs.existsSync(out)).toBe(false);
  }, 60_000);

  test('-k on the same script runs it, as artillery run -k does (config.tls.rejectUnauthorized: false set for the run)', async () => {
    const out = path.join(dir, 'run-k');
    const r = await runCli(['--scenario', script('strict-k.yml', port, false), '-k', '--out', out, '--json']);
    expect(r.stderr).toMatch(/preflight from this machine: ok/);
    expect(r.code).toBe(0);
    expect(r.json.aggregate.counters['http.codes.200']).toBe(2);
  }, 120_000);

  // Artillery's ws engine applies config.ws over config.tls (engine_ws.ts getWsConfig): plain `artillery run -k` on this
  // script fails every vuser with DEPTH_ZERO_SELF_SIGNED_CERT. The refusal said "use -k", which was given.
  test('-k on a ws script whose config.ws keeps rejectUnauthorized: true: refused naming that key, not "use -k" (exit 2)', async () => {
    const file = path.join(dir, 'ws-strict.yml');
    fs.writeFileSync(file, `config:\n  target: wss://127.0.0.1:${port}/feed\n  ws: { rejectUnauthorized: true }\n  phases: [ { duration: 1, arrivalCount: 1 } ]\nscenarios:\n  - engine: ws\n    flow: [ { send: hi } ]\n`);
    const out = path.join(dir, 'run-ws-strict');
    const r = await runCli(['--scenario', file, '-k', '--out', out], { timeoutMs: 30_000 });
    expect(r.code).toBe(2);
    const error = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(error).toEqual([expect.stringMatching(/TLS failed \(DEPTH_ZERO_SELF_SIGNED_CERT\): .*-k .*does not reach .*config\.ws\.rejectUnauthorized: true/)]);
    expect(error[0]).not.toMatch(/use -k/);
    expect(fs.existsSync(out)).toBe(false);
  }, 30_000);

  // The target's failure (exit 3), in the same words whether the reachability check (a built-in scenario) or the
  // preflight (a ws script, was: exit 3 "Opening handshake has timed out") meets it.
  test.each([
    ['a built-in scenario', () => ['--target', `http://127.0.0.1:${stalledPort}`, '--vusers', '1']],
    ['a ws script', () => ['--scenario', wsScript(), '--target', `ws://127.0.0.1:${stalledPort}/feed`]],
  ])('a target that accepts the connection but never answers is named as such, exit 3 (%s)', async (_kind, args) => {
    const out = path.join(dir, `run-stalled-${_kind.replace(/\W+/g, '-')}`);
    const r = await runCli([...args(), '--out', out]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^target failure: .*accepted the connection but sent no HTTP answer within 5 s; check that an HTTP server listens there and is not stalled$/m);
    expect(fs.existsSync(out)).toBe(false);
  }, 60_000);
});

// Artillery's ws engine applies config.ws over config.tls (engine_ws.js getWsConfig), so config.ws.rejectUnauthorized:
// false runs under plain artillery run; the rig's checks refused it (they read config.tls alone).
describe('a self-signed wss target with config.ws.rejectUnauthorized: false', () => {
  let server: https.Server;
  let wss: { close(): void };
  let port = 0;
  beforeAll(async () => {
    server = https.createServer({ key: fs.readFileSync(path.join(TLS, 'key.pem')), cert: fs.readFileSync(path.join(TLS, 'cert.pem')) }, (_req, res) => res.end('ok'));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Server: WebSocketServer } = require('ws') as { Server: new (o: object) => { close(): void } };
    wss = new WebSocketServer({ server });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    wss.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  test('runs as under plain Artillery (exit 0), not refused at TLS', async () => {
    const file = path.join(dir, 'ws-insecure.yml');
    fs.writeFileSync(file, `config:\n  target: wss://127.0.0.1:${port}/\n  ws:\n    rejectUnauthorized: false\n  phases:\n    - duration: 1\n      arrivalCount: 2\nscenarios:\n  - engine: ws\n    flow:\n      - send: hi\n`);
    const r = await runCli(['--scenario', file, '--out', path.join(dir, 'run-ws-insecure'), '--json']);
    expect(r.stderr).not.toMatch(/TLS failed/);
    expect(r.stderr).toMatch(/preflight from this machine: ok/);
    expect(r.code).toBe(0);
    expect(r.json.aggregate.counters['vusers.completed']).toBe(2);
  }, 120_000);
});
