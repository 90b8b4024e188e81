/**
 * No merge-conflict marker survives in the project's text files. A marker inside a comment passes tsc, ESLint
 * and jest (one did, in scripts/leftovers.ts, after a merge of parallel work): this is the check that catches it.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** Lines of tracked files that start with a conflict marker (`<<<<<<< `, `>>>>>>> `, or a bare `=======`). */
function markerLines(): string[] {
  try {
    const out = execFileSync('git', ['grep', '-n', '-I', '-E', '^(<{7} |>{7} |={7}$)', '--', '.', ':!node_modules', ':!*.md'], { cwd: ROOT, encoding: 'utf8' });
    return out.split('\n').filter(Boolean);
  } catch (err) {
    if ((err as { status?: number }).status === 1) return []; // git grep: no match
    throw err;
  }
}

test('no merge-conflict markers in tracked files', () => {
  expect(markerLines()).toEqual([]);
});
