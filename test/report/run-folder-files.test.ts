/**
 * `npm run report -- <dir>` on a run folder whose files are damaged, missing or read-only: every file the report
 * reads goes through one reader (scripts/report/run-files.ts). A bad file of a kind the figures need is one line
 * naming the file (relative to the folder) and what is wrong, exit 3, nothing rewritten; a bad sample (health,
 * start record, target metrics) is skipped with a note. A folder without the generators' data is refused, and a
 * read-only folder is named with the OS error and the fix.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { failureOf, rebuildReport } from '../../scripts/report-cli';
import { BAD_FILE_POLICY, RunFileKind } from '../../scripts/report/run-files';
import { runCli, tempDir } from '../helpers/cli';

const base = tempDir('rig-run-files-');
const original = path.join(base, 'run');
let copies = 0;

beforeAll(async () => {
  const r = await runCli(['--vusers', '10', '--ramp', '1s', '--hold', '1s', '--out', original]);
  if (r.code !== 0) throw new Error(`the fixture run exited ${r.code}: ${r.stderr}`);
}, 180_000);

/** A fresh copy of the real run folder. */
function copy(): string {
  const dir = path.join(base, `copy-${++copies}`);
  fs.cpSync(original, dir, { recursive: true });
  return dir;
}
const first = (dir: string, sub: string, re: RegExp): string => {
  const found = fs.readdirSync(path.join(dir, sub), { recursive: true, encoding: 'utf8' }).filter((f) => re.test(f)).sort()[0];
  if (!found) throw new Error(`no ${re} under ${sub}`);
  return path.join(sub, found);
};

/** Each kind: the file to damage (relative) and whether outcome.json must be gone for it to be read. */
const KINDS: Record<RunFileKind, { file: (dir: string) => string; withoutOutcome?: true }> = {
  run: { file: () => 'run.json' },
  outcome: { file: () => 'outcome.json' },
  start: { file: () => 'control/start.json', withoutOutcome: true },
  abort: { file: () => 'control/abort.json', withoutOutcome: true },
  slice: { file: (d) => first(d, 'generators', /slice\.json$/), withoutOutcome: true },
  done: { file: (d) => first(d, 'generators', /done\.json$/) },
  period: { file: (d) => first(d, 'generators', /periods\/[^/]+\.json$/) },
  started: { file: (d) => first(d, 'generators', /started-[^/]+\.json$/) },
  health: { file: (d) => first(d, 'generators', /health\/[^/]+\.json$/) },
  ready: { file: (d) => first(d, 'generators', /(^|\/)ready\.json$/) },
  'target-metrics': { file: (d) => first(d, 'target', /\.json$/) },
};
const DAMAGE: Record<string, (text: string) => string> = {
  garbage: () => 'this is not JSON \u0000 at all',
  truncated: (t) => t.slice(0, Math.floor(t.length / 2)),
  null: () => 'null',
  array: () => '[]',
  empty: () => '{}',
};

const cases = Object.keys(KINDS).flatMap((kind) => Object.keys(DAMAGE).map((damage) => [kind as RunFileKind, damage] as const));

test.each(cases)('%s file, %s', async (kind, damage) => {
  const dir = copy();
  const spec = KINDS[kind];
  if (spec.withoutOutcome) fs.rmSync(path.join(dir, 'outcome.json'));
  const rel = spec.file(dir);
  const file = path.join(dir, rel);
  if (!fs.existsSync(file)) fs.writeFileSync(file, JSON.stringify({ reason: 'interrupted', at: Date.now() })); // a run that ended normally has no abort.json
  fs.writeFileSync(file, DAMAGE[damage]!(fs.readFileSync(file, 'utf8')));
  const reportBefore = fs.readFileSync(path.join(dir, 'report.json'), 'utf8');
  fs.writeFileSync(path.join(dir, 'report.json'), `${reportBefore} `); // marks the old one
  const lines: string[] = [];
  const result = await rebuildReport(dir, (l) => lines.push(l)).then(
    (code) => ({ code }),
    (err: unknown) => failureOf(err, false),
  );
  if (BAD_FILE_POLICY[kind] === 'fatal') {
    expect(result).toEqual({ code: 3, line: expect.stringMatching(new RegExp(`^error: ${rel.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (is|has) `)) });
    const line = (result as { line: string }).line;
    expect(line).not.toContain('\n');
    expect(line).not.toMatch(/rig failure|bug report|unexpected error/);
    expect(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')).toBe(`${reportBefore} `); // not rewritten
  } else {
    expect(result).toEqual({ code: 0 });
    expect(lines.filter((l) => l.startsWith('note: '))).toEqual([expect.stringMatching(new RegExp(`^note: ${rel.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (is|has) .*; skipped`))]);
  }
}, 30_000);

describe('a folder without the generators\' data', () => {
  test.each([
    ['generators/ deleted', (dir: string) => fs.rmSync(path.join(dir, 'generators'), { recursive: true })],
    ['one generator\'s folder deleted', (dir: string) => fs.rmSync(path.join(dir, 'generators', fs.readdirSync(path.join(dir, 'generators'))[0]!), { recursive: true })],
    ['generators/ and outcome.json deleted', (dir: string) => {
      fs.rmSync(path.join(dir, 'generators'), { recursive: true });
      fs.rmSync(path.join(dir, 'outcome.json'));
    }],
  ])('%s: refused in one line, exit 3, report.json and report.html kept', async (_what, damage) => {
    const dir = copy();
    damage(dir);
    const before = ['report.json', 'report.html'].map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
    const result = await rebuildReport(dir, () => undefined).then((code) => ({ code }), (err: unknown) => failureOf(err, false));
    expect(result).toEqual({ code: 3, line: expect.stringMatching(/^error: .*generators\/.* no data .*; the report cannot be rebuilt/) });
    expect(['report.json', 'report.html'].map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))).toEqual(before);
  });
});

test('a rebuild leaves outcome.json as it was (it writes only report.json and report.html)', async () => {
  const dir = copy();
  const outcome = path.join(dir, 'outcome.json');
  fs.writeFileSync(outcome, JSON.stringify(JSON.parse(fs.readFileSync(outcome, 'utf8')))); // one line: a rewrite would indent it
  const before = fs.readFileSync(outcome, 'utf8');
  await expect(rebuildReport(dir, () => undefined)).resolves.toBe(0);
  expect(fs.readFileSync(outcome, 'utf8')).toBe(before);
});

describe('a read-only run folder', () => {
  const mount = path.join(base, 'read-only');
  beforeAll(() => {
    fs.mkdirSync(mount);
    execFileSync('mount', ['--bind', '-o', 'ro', original, mount]);
  });
  afterAll(() => execFileSync('umount', ['-l', mount]));

  test('rebuild: one line naming the folder, the OS error and the fix; exit 3', async () => {
    const result = await rebuildReport(mount, () => undefined).then((code) => ({ code }), (err: unknown) => failureOf(err, false));
    expect(result).toEqual({ code: 3, line: `error: cannot write the report into ${mount} (EROFS: read-only file system); copy the folder somewhere writable (cp -r ${mount} /tmp/run) and run npm run report -- /tmp/run` });
  });
  test('--compare: the same', async () => {
    const { compareFolders } = await import('../../scripts/report-cli');
    let result: { code: number; line?: string };
    try {
      result = { code: compareFolders(original, mount, { ensure: [], json: false }, () => undefined, () => undefined) };
    } catch (err) {
      result = failureOf(err, true);
    }
    expect(result).toEqual({ code: 3, line: expect.stringMatching(new RegExp(`^error: cannot write the comparison into ${mount} \\(EROFS: read-only file system\\); copy the folder`)) });
  });
});
