/**
 * A script on Artillery's bundled playwright engine (scripts/browser.ts): its browser is started once before any
 * generator. The rig's install skips Playwright's browser download, so without one such a script used to start, lose
 * every load process at its first vuser and end as a rig failure (exit 3); now it is refused (exit 2, no run folder)
 * with the fix, and with a browser it runs.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers/cli';
import { CHROMIUM } from '../report/browser';

function pageServer(): Promise<{ server: http.Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>ok</title><p>ok</p>');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, seen })));
}

function writeScript(dir: string, port: number, executablePath: string): string {
  fs.writeFileSync(path.join(dir, 'pw.js'), "module.exports = { visit: async (page) => { await page.goto('/page'); } };\n");
  const file = path.join(dir, 'pw.yml');
  fs.writeFileSync(
    file,
    [
      'config:',
      `  target: "http://127.0.0.1:${port}"`,
      '  phases: [ { duration: 1, arrivalCount: 2 } ]',
      '  processor: "./pw.js"',
      '  engines:',
      '    playwright:',
      `      launchOptions: { executablePath: ${JSON.stringify(executablePath)} }`,
      'scenarios:',
      '  - name: browse',
      '    engine: playwright',
      '    testFunction: visit',
      '',
    ].join('\n'),
  );
  return file;
}

test('a browser that does not start is refused before anything starts (exit 2, no run folder, the fix named); the target saw nothing', async () => {
  const { server, port, seen } = await pageServer();
  try {
    const dir = tempDir('rig-browser-missing-');
    const out = path.join(dir, 'run');
    const r = await runCli(['--scenario', writeScript(dir, port, path.join(dir, 'no-such-chromium')), '--out', out]);
    expect(r.code).toBe(2);
    const errors = r.stderr.split('\n').filter((l) => /^error/.test(l));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^error: scenario "browse" uses the playwright engine, and its browser does not start on this machine \(.*no-such-chromium.*\); install Playwright's browser \(`npx playwright install chromium`.*launchOptions\.executablePath/);
    expect(fs.existsSync(out)).toBe(false);
    expect(seen.filter((u) => u === '/page')).toEqual([]);
  } finally {
    await new Promise((r) => server.close(r));
  }
}, 120_000);

// Read from the environment, as Artillery fills a config's {{ $env.NAME }} (the check once launched the template itself).
test("with an installed Chromium as the script's executablePath, from the environment, the script runs: each vuser's page reaches the target", async () => {
  expect(fs.existsSync(CHROMIUM)).toBe(true);
  const { server, port, seen } = await pageServer();
  try {
    const dir = tempDir('rig-browser-ok-');
    const r = await runCli(['--scenario', writeScript(dir, port, '{{ $env.RIG_TEST_CHROMIUM }}'), '--out', path.join(dir, 'run'), '--json'], { env: { RIG_TEST_CHROMIUM: CHROMIUM } });
    expect(r.code).toBe(0);
    expect(r.json.aggregate.counters['vusers.completed']).toBe(2);
    expect(r.json.aggregate.counters['browser.page.codes.200']).toBe(2);
    expect(seen.filter((u) => u === '/page')).toHaveLength(2);
  } finally {
    await new Promise((r) => server.close(r));
  }
}, 120_000);
