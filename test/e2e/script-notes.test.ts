/**
 * What running a user's script in several load processes changes, said before the start (scripts/fan-out.ts): its
 * `before` section runs once per load process (the target sees it that many times), and its `log` steps print into
 * each process's artillery.log in the run folder, not on the terminal as under plain `artillery run`.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers/cli';

test('before and log steps: a note for each before the launch, and what they say holds', async () => {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const dir = tempDir('rig-script-notes-');
    const file = path.join(dir, 'ba.yml');
    const port = (server.address() as AddressInfo).port;
    fs.writeFileSync(file, `config:\n  target: "http://127.0.0.1:${port}"\n  phases: [ { duration: 2, arrivalCount: 6 } ]\nbefore:\n  flow: [ { get: { url: "/login" } } ]\nscenarios:\n  - flow: [ { log: "hello from a vuser" }, { get: { url: "/" } } ]\n`);
    const out = path.join(dir, 'run');
    const r = await runCli(['--scenario', file, '--generators', '1', '--out', out, '--json']);
    expect(r.code).toBe(0);
    const before = r.stderr.split('launching')[0] ?? '';
    const m = /note: the script's before section runs once in each of the (\d+) load processes \(each is its own Artillery run\), so the target sees its requests \1 times/.exec(before);
    expect(m).not.toBeNull();
    expect(seen.filter((u) => u === '/login')).toHaveLength(Number(m?.[1]));
    expect(before).toContain(`note: the script's log steps (and a processor's console.log) print into each load process's log, ${out}/generators/<g>/p<k>/artillery.log, not on this terminal`);
    expect(r.stderr + r.stdout).not.toContain('hello from a vuser');
    const logs = fs.readdirSync(path.join(out, 'generators', 'g01')).filter((d) => /^p\d+$/.test(d)).map((p) => fs.readFileSync(path.join(out, 'generators', 'g01', p, 'artillery.log'), 'utf8'));
    expect(logs.join('').split('hello from a vuser').length - 1).toBe(6);
  } finally {
    await new Promise((r) => server.close(r));
  }
}, 120_000);
