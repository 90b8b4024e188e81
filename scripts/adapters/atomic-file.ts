/**
 * Write-then-rename for files another process (or a script) reads: a reader sees the old file or the
 * whole new one, never half of it.
 */
import * as fs from 'node:fs';

/** Writes `text` to `file` through a temporary sibling and a rename. */
export function writeFileAtomic(file: string, text: string | Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
