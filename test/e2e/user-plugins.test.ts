/**
 * A user's Artillery plugins, as plain `artillery run` treats them: one from the user's own ARTILLERY_PLUGIN_PATH
 * is loaded in every load process (the rig's own plugin folder is added to the path, not put in its place); one
 * that is not installed is said before the run (Artillery warns and runs without it); and the printed summary
 * leaves out what Artillery's console leaves out (metrics-by-endpoint's per-URL lines) while the JSON keeps them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers/cli';
import { loopbackHttpServer } from '../helpers/http-server';

const dir = tempDir('rig-user-plugins-');
const pluginPath = path.join(dir, 'plugins');
const markers = path.join(dir, 'markers');
fs.mkdirSync(path.join(pluginPath, 'artillery-plugin-marker'), { recursive: true });
fs.mkdirSync(markers);
// Artillery's v1 plugin shape: a constructor taking (config, events); it leaves a file per thread that loaded it.
fs.writeFileSync(
  path.join(pluginPath, 'artillery-plugin-marker', 'index.js'),
  "module.exports = function Marker(config) { const t = require('worker_threads').threadId; require('fs').writeFileSync(require('path').join(config.plugins.marker.dir, process.pid + '-' + t), 'loaded'); };\n",
);

describe("a user's plugins", () => {
  let server: Awaited<ReturnType<typeof loopbackHttpServer>>;
  let port = 0;
  beforeAll(async () => {
    server = await loopbackHttpServer();
    port = server.port;
  });
  afterAll(() => server.close());

  test('loaded from ARTILLERY_PLUGIN_PATH, a missing one noted, the table as Artillery prints it', async () => {
    const script = path.join(dir, 'plugins.yml');
    fs.writeFileSync(
      script,
      `config:\n  target: http://127.0.0.1:${port}\n  plugins:\n    marker: { dir: ${JSON.stringify(markers)} }\n    notinstalled: {}\n    expect: {}\n  phases:\n    - { duration: 1, arrivalCount: 2 }\nscenarios:\n  - flow:\n      - get: { url: /, expect: [ { statusCode: 200 } ] }\n`,
    );
    const r = await runCli(['--scenario', script, '--out', path.join(dir, 'run'), '--json'], { env: { ARTILLERY_PLUGIN_PATH: pluginPath } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('note: config.plugins.notinstalled: artillery-plugin-notinstalled is not installed here, so Artillery runs the script without it');
    expect(r.stderr).not.toMatch(/config\.plugins\.(marker|expect)/);
    expect(fs.readdirSync(markers).length).toBeGreaterThan(0);
    // Printed: the expect plugin's counters, not metrics-by-endpoint's (Artillery adds it with suppressOutput).
    expect(r.stderr).toMatch(/^plugins\.expect\.ok: \.+ 2$/m);
    expect(r.stderr).not.toMatch(/^plugins\.metrics-by-endpoint/m);
    expect(r.json.aggregate.counters['plugins.metrics-by-endpoint./.codes.200']).toBe(2);
  }, 120_000);
});
