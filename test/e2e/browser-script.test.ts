/**
 * A script on Artillery's bundled playwright engine (scripts/browser.ts): its browser is started once before any
 * generator. The rig's install skips Playwright's browser download, so without one such a script used to start, lose
 * every load process at its first vuser and end as a rig failure (exit 3); now it is refused (exit 2, no run folder)
 * with the fix, and with a browser it runs.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { runCli, startCli, tempDir } from '../helpers/cli';
import { until } from '../helpers/wait';
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

/** A browser slow to start, in its own folder: it says it began (`began` exists), waits `seconds`, then starts Chromium. */
function slowBrowser(prefix: string, seconds: number): { dir: string; began: string; slow: string } {
  const dir = tempDir(prefix);
  const began = path.join(dir, 'began');
  const slow = path.join(dir, 'slow-chromium.sh');
  fs.writeFileSync(slow, `#!/bin/sh\ntouch ${JSON.stringify(began)}\nsleep ${seconds}\nexec ${JSON.stringify(CHROMIUM)} "$@"\n`, { mode: 0o755 });
  return { dir, began, slow };
}

/** Whether any process is still running `file`. */
const running = (file: string) => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes(file);

// Playwright's launch installs a SIGINT handler that closes the browser and calls process.exit(130) (the review found
// a Ctrl-C during the check exiting with no interrupted line, no --output summary and the run folder left behind).
test('Ctrl-C while the browser starts: exit 130 at once, the interrupted line last, the --output summary, no run folder', async () => {
  const { server, port } = await pageServer();
  const { dir, began, slow } = slowBrowser('rig-browser-interrupt-', 20);
  const out = path.join(dir, 'run');
  const summaryFile = path.join(dir, 'summary.json');
  try {
    const cli = startCli(['--scenario', writeScript(dir, port, slow), '--out', out, '--output', summaryFile]);
    const runId = (await cli.waitFor(/run (\d{8}-\d{6}-[0-9a-f]{4}):/))[1] as string;
    await until(() => fs.existsSync(began), { timeoutMs: 30_000, what: 'the browser check under way' });
    const sentAt = Date.now();
    process.kill(-cli.pid, 'SIGINT');
    const result = await cli.exited;
    expect(result.code).toBe(130);
    expect(Date.now() - sentAt).toBeLessThan(5000);
    expect(result.stderr.trim().split('\n').pop()).toBe('interrupted before the run started; nothing was started');
    expect(result.stderr).not.toMatch(/rig failure|error:/);
    expect(JSON.parse(fs.readFileSync(summaryFile, 'utf8'))).toMatchObject({ status: 'interrupted', exitCode: 130, runId });
    expect(fs.existsSync(out) ? fs.readdirSync(out) : []).toEqual([]);
    // Nothing of the launch left running (its browser has a process group of its own: Playwright's exit handler kills it).
    await until(() => !running(slow), { what: 'the slow browser gone' });
  } finally {
    await new Promise((r) => server.close(r));
  }
}, 90_000);

// A hangup (the terminal gone) while the browser starts: Playwright's own handler closed the browser but never exited
// (the run then went on with no terminal, or was refused as bad input); without it the browser was left running.
test('a hangup while the browser starts: once it is up it is closed, and the hangup ends the CLI', async () => {
  const { server, port } = await pageServer();
  const { dir, began, slow } = slowBrowser('rig-browser-hangup-', 2);
  try {
    const cli = startCli(['--scenario', writeScript(dir, port, slow), '--out', path.join(dir, 'run')]);
    await until(() => fs.existsSync(began), { timeoutMs: 30_000, what: 'the browser check under way' });
    process.kill(-cli.pid, 'SIGHUP');
    const result = await cli.exited;
    // Ended by the hangup (the launcher re-raises its child's signal, or reports it as 128 + 1).
    expect([result.signal, result.code]).toContainEqual(result.signal === 'SIGHUP' ? 'SIGHUP' : 129);
    expect(result.stderr).not.toMatch(/launching|error:/);
    await until(() => !running(slow), { what: 'the browser gone' });
  } finally {
    await new Promise((r) => server.close(r));
  }
}, 90_000);
