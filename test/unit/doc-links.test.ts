/**
 * Every link the project's pages make resolves: README.md and docs/*.md link each other by relative path and
 * `#anchor` (GitHub's heading slugs), and the source names pages the same way in comments and in lines a user reads
 * (`docs/aws-run.md#the-preflight`). A page split or a heading renamed used to leave such links pointing nowhere.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const pages = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's heading anchor: lowercased, punctuation but `-` and `_` dropped, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a page has: its headings' slugs, a repeated one numbered as GitHub does, and explicit `<a id>`s. */
function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1] as string);
  return out;
}

const anchors = new Map(pages.map((p) => [p, anchorsOf(p)]));

/** Why `target` (a path relative to the repository, maybe with `#anchor`) does not resolve, or undefined. */
function brokenTarget(target: string): string | undefined {
  const [file, anchor] = target.split('#') as [string, string | undefined];
  if (!fs.existsSync(path.join(ROOT, file))) return `no file ${file}`;
  if (anchor === undefined || anchor === '') return undefined;
  const known = anchors.get(file);
  if (!known) return undefined; // an anchor into a non-page (a source line) is not checked
  return known.has(anchor) ? undefined : `no heading #${anchor} in ${file}`;
}

test.each(pages)('%s: every relative link and anchor resolves', (page) => {
  const text = fs.readFileSync(path.join(ROOT, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  const broken: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const href = m[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:
    const target = href.startsWith('#') ? `${page}${href}` : path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURI(href)));
    const why = brokenTarget(target);
    if (why) broken.push(`${href}: ${why}`);
  }
  expect(broken).toEqual([]);
});

/** Source files that name a page, as a user or developer reads it. */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' || e.name.startsWith('.') || e.name === 'cdk.out' ? [] : sourceFiles(rel);
    return /\.(ts|js|sh)$/.test(e.name) ? [rel] : [];
  });
}

test('every docs/<page>.md#anchor the source names resolves (error lines, comments, printed hints)', () => {
  const broken: string[] = [];
  for (const file of ['bin', 'lib', 'scripts', 'load-generators', 'target-stack', 'test'].flatMap(sourceFiles)) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/\b(README\.md|docs\/[\w.-]+\.md)(#[\w-]+)?/g)) {
      const why = brokenTarget(`${m[1]}${m[2] ?? ''}`);
      if (why) broken.push(`${file}: ${m[0]}: ${why}`);
    }
  }
  expect(broken).toEqual([]);
});

test('the slug is GitHub\'s: punctuation dropped, spaces kept as hyphens, case folded', () => {
  expect(slug('Flags (`npm run loadtest -- …`)')).toBe('flags-npm-run-loadtest----');
  expect(slug('Rig-health verdict')).toBe('rig-health-verdict');
  expect(slug('What the rig does about start-up')).toBe('what-the-rig-does-about-start-up');
});
