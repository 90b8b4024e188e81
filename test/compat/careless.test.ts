/**
 * Scripts a careless user writes, each run under plain `artillery run` and under the rig against the compat server:
 * where plain runs them, the rig must too, with the same exit code and counters. Each is written to a folder of
 * its own with the server's port in it (a URL the rig checks before the run cannot wait for a template).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Server as SocketIoServer } from 'socket.io';
import { CliResult, runCli, tempDir } from '../helpers/cli';
import { PlainResult, runPlain } from './plain';
import { CompatServer, startCompatServer } from './server';

interface Case {
  readonly name: string;
  /** The script, given the compat server's port and the /rt-only Socket.IO server's. */
  readonly script: (port: number, rtPort: number) => string;
  /** Flags for plain `artillery run`, and the rig's own for the same thing. */
  readonly plainArgs?: string[];
  readonly rigArgs?: string[];
  readonly exit: number;
  /** Counters that must be there in both (so an empty run cannot pass). */
  readonly expect: Record<string, number>;
  /** The script's file name (default my.yml). */
  readonly file?: string;
  /** Files beside the script (name → content). */
  readonly files?: Record<string, string>;
}

const CASES: Case[] = [
  {
    // The first scenario never runs (weight 0) and the second sets its own socketio options over config.socketio.
    name: 'socketio options of the scenario that runs (was: exit 2/3, the preflight probed scenarios[0] with config.socketio only)',
    script: (_port, rtPort) => `config:
  target: "http://127.0.0.1:${rtPort}"
  phases: [ { duration: 1, arrivalCount: 2 } ]
scenarios:
  - name: never
    weight: 0
    engine: socketio
    socketio: { path: /nowhere }
    flow: [ { emit: { channel: echo, data: x } } ]
  - name: rt
    engine: socketio
    socketio: { path: /rt, query: { token: abc }, extraHeaders: { x-team: red } }
    flow:
      - emit: { channel: echo, data: hi }
        acknowledge: { data: hi }
`,
    exit: 0,
    expect: { 'vusers.created': 2, 'vusers.completed': 2, 'socketio.emit': 2 },
  },
  {
    name: 'a ws connect step with its own URL, the unused config.target closed (was: exit 2, config.target unreachable)',
    script: (port) => `config:
  target: "ws://127.0.0.1:9/placeholder"
  phases: [ { duration: 1, arrivalCount: 2 } ]
scenarios:
  - engine: ws
    flow:
      - connect: "ws://127.0.0.1:${port}/ws"
      - send: hello
`,
    exit: 0,
    expect: { 'vusers.created': 2, 'vusers.completed': 2, 'websocket.messages_sent': 2 },
  },
  {
    // Artillery picks one element of an array variable per vuser: [["x","y"]] gives every vuser the list x, y.
    name: 'a loop over an array passed on the command line (was: the rig kept --var rooms=[…] as text, the loop ran zero times)',
    script: (port) => `config:
  target: "http://127.0.0.1:${port}"
  phases: [ { duration: 1, arrivalCount: 2 } ]
scenarios:
  - flow:
      - loop:
          - get: { url: "/items/{{ $loopElement }}" }
        over: rooms
`,
    plainArgs: ['-v', '{"rooms":[["x","y"]]}'],
    rigArgs: ['--var', 'rooms=[["x","y"]]'],
    exit: 0,
    expect: { 'vusers.created': 2, 'vusers.completed': 2, 'http.requests': 4, 'http.codes.200': 4 },
  },
  {
    // Artillery resolves config templates before the run with -v variables, $dirname and $scenarioFile.
    name: 'config templates of -v/--var, $dirname and $scenarioFile (was: exit 2, the target and phases refused; $dirname the load process folder)',
    script: () => `config:
  target: "http://127.0.0.1:{{ port }}"
  phases: [ { duration: 1, arrivalCount: "{{ n }}" } ]
  processor: "{{ $dirname }}/proc.js"
  payload: { path: "{{ $dirname }}/rows.csv", fields: [row] }
  variables:
    greet: "u-{{ who }}"
    beside: "{{ $dirname }}/rows.csv"
    script: "{{ $scenarioFile }}"
scenarios:
  - flow:
      - function: checkPaths
      - get: { url: "/items/{{ greet }}-{{ row }}" }
`,
    files: {
      'rows.csv': 'a\nb\n',
      'proc.js': `const fs = require('fs');
module.exports = { checkPaths(ctx, ee, next) {
  ee.emit('counter', fs.existsSync(ctx.vars.beside) ? 'careless.beside_found' : 'careless.beside_missing', 1);
  ee.emit('counter', fs.existsSync(ctx.vars.script) ? 'careless.script_found' : 'careless.script_missing', 1);
  next();
} };
`,
    },
    plainArgs: ['-v', '{"port":PORT,"n":3,"who":"zed"}'],
    rigArgs: ['--var', 'port=PORT', '--var', 'n=3', '--var', 'who=zed'],
    exit: 0,
    expect: { 'vusers.created': 3, 'vusers.completed': 3, 'http.codes.200': 3, 'careless.beside_found': 3, 'careless.script_found': 3 },
  },
  {
    // In the flows Artillery gives every vuser $dirname and $scenarioFile (runner.ts), and a relative formData
    // fromFile resolves from $scenarioFile's folder (engine_http.ts).
    name: '$dirname, $scenarioFile and formData fromFile in a flow and a processor (was: the load process\'s own folder, fromFile ENOENT)',
    script: (port) => `config:
  target: "http://127.0.0.1:${port}"
  phases: [ { duration: 1, arrivalCount: 2 } ]
  processor: ./proc.js
scenarios:
  - flow:
      - function: checkPlace
      - get: { url: "/items/x", ifTrue: "beside" }
      - post: { url: "/missing", formData: { f: { fromFile: ./rows.csv } } }
`,
    files: {
      'rows.csv': 'a\nb\n',
      'proc.js': `const fs = require('fs');
const path = require('path');
module.exports = { checkPlace(ctx, ee, next) {
  const beside = fs.existsSync(path.join(ctx.vars.$dirname, 'rows.csv')) && path.basename(ctx.vars.$scenarioFile) === 'my.yml' && fs.existsSync(ctx.vars.$scenarioFile);
  ee.emit('counter', beside ? 'careless.place_found' : 'careless.place_wrong', 1);
  ctx.vars.beside = beside;
  next();
} };
`,
    },
    exit: 0,
    expect: { 'vusers.created': 2, 'vusers.completed': 2, 'http.codes.200': 2, 'http.codes.404': 2, 'careless.place_found': 2 },
  },
  {
    // artillery run loads a .js test script with require (an ES module's exports too, on Node 22).
    name: 'a .js test script, as an ES module with a processor beside it (was: exit 2, "the rig does not run one yet")',
    file: 'my.js',
    script: (port) => `export const config = { target: 'http://127.0.0.1:${port}', phases: [{ duration: 1, arrivalCount: 2 }], processor: './proc.js' };
export const scenarios = [{ flow: [{ function: 'mark' }, { get: { url: '/items/js' } }] }];
`,
    files: { 'proc.js': `module.exports = { mark(ctx, ee, next) { ee.emit('counter', 'careless.js_script', 1); next(); } };\n` },
    exit: 0,
    expect: { 'vusers.created': 2, 'vusers.completed': 2, 'http.codes.200': 2, 'careless.js_script': 2 },
  },
  {
    // Split over the rig's two load processes, the cap of 1 gave one of them maxVusers 0, which Artillery reads as an
    // idle phase: that process ended before the start (was: exit 3, "generator g01 stopped before it was ready").
    name: 'maxVusers smaller than the load processes (was: exit 3, a load process given maxVusers 0 ended before the start)',
    script: (port) => `config:
  target: "http://127.0.0.1:${port}"
  phases: [ { duration: 1, arrivalRate: 2, maxVusers: 1 } ]
scenarios:
  - flow: [ { get: { url: "/items/cap" } } ]
`,
    exit: 0,
    expect: { 'vusers.created': 2, 'vusers.completed': 2, 'http.codes.200': 2 },
  },
];

async function both(c: Case, port: number, rtPort: number): Promise<{ plain: PlainResult; rig: CliResult }> {
  const dir = tempDir('rig-careless-');
  const [plainDir, rigDir] = [path.join(dir, 'plain'), path.join(dir, 'rig')];
  for (const d of [plainDir, rigDir]) {
    fs.mkdirSync(d);
    fs.writeFileSync(path.join(d, c.file ?? 'my.yml'), c.script(port, rtPort));
    for (const [name, text] of Object.entries(c.files ?? {})) fs.writeFileSync(path.join(d, name), text);
  }
  const withPort = (args: readonly string[] | undefined) => (args ?? []).map((a) => a.replace('PORT', String(port)));
  const [plain, rig] = await Promise.all([
    runPlain(c.file ?? 'my.yml', withPort(c.plainArgs), {}, plainDir, plainDir),
    runCli(['--platform', 'local', '--generators', '1', '--scenario', path.join(rigDir, c.file ?? 'my.yml'), '--out', path.join(dir, 'out'), '--json', ...withPort(c.rigArgs)]),
  ]);
  return { plain, rig };
}

describe('careless scripts: plain `artillery run` and the rig agree', () => {
  let server: CompatServer;
  // Socket.IO on /rt only (nothing on /socket.io), admitting a client that sends query token=abc and header x-team: red.
  const rt = http.createServer((_req, res) => res.writeHead(404).end());
  const io = new SocketIoServer(rt, { path: '/rt' });
  io.use((socket, next) => (socket.handshake.query.token === 'abc' && socket.handshake.headers['x-team'] === 'red' ? next() : next(new Error('token and x-team needed'))));
  io.on('connection', (socket) => socket.on('echo', (data: unknown, ack?: (r: unknown) => void) => ack?.(data)));
  beforeAll(async () => {
    server = await startCompatServer();
    await new Promise<void>((r) => rt.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    await server?.close();
    rt.closeAllConnections();
    await io.close();
  });

  test.each(CASES)('$name', async (c) => {
    const { plain, rig } = await both(c, server.port, (rt.address() as AddressInfo).port);
    const why = rig.code === c.exit ? {} : { rigStderr: rig.stderr.split('\n').slice(-8).join('\n') };
    expect({ plain: plain.code, rig: rig.code, ...why }).toEqual({ plain: c.exit, rig: c.exit });
    for (const [k, v] of Object.entries(c.expect)) expect([k, plain.report.aggregate.counters[k]]).toEqual([k, v]);
    expect(rig.json.aggregate.counters).toEqual(plain.report.aggregate.counters);
  }, 120_000);
});
