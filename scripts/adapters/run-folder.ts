/**
 * The run folder and other user-named paths, checked before anything starts (edge adapter).
 *
 * A recursive mkdir under /proc never returns on Linux (Node retries the ENOENT forever at 100% CPU,
 * deaf to Ctrl-C), so the folder is never created recursively: the nearest existing ancestor is checked
 * (a directory, on a real file system) and the missing parts are made one by one.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UnsafeOutputError, UsageError } from '../errors';

/** statfs magic numbers of Linux pseudo-filesystems, which can never hold a run folder. */
const PSEUDO_FILESYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x6e736673, 'nsfs'],
  [0xcafe4a11, 'bpf'],
  [0x42494e4d, 'binfmt_misc'],
  [0x50495045, 'pipefs'],
  [0x534f434b, 'sockfs'],
]);

/** The pseudo-filesystem a path lives on, or undefined for a real one (or where statfs is unavailable). */
export function pseudoFilesystemOf(existing: string): string | undefined {
  try {
    return PSEUDO_FILESYSTEMS.get(Number(fs.statfsSync(existing).type));
  } catch {
    return undefined;
  }
}

/** The nearest ancestor of `target` (itself included) that exists, and the parts below it that do not. */
function nearestExisting(target: string): { existing: string; missing: string[] } {
  const missing: string[] = [];
  let p = target;
  for (;;) {
    try {
      fs.lstatSync(p);
      return { existing: p, missing };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') throw new UsageError(`${p} cannot exist: a part of its path is a file, not a folder`);
      if (code !== 'ENOENT') throw err;
    }
    const parent = path.dirname(p);
    if (parent === p) return { existing: p, missing };
    missing.unshift(path.basename(p));
    p = parent;
  }
}

/**
 * Creates the run folder and proves it writable (a probe file), refusing paths that can never be a run
 * folder: an existing file, a folder that already holds files, a path under a file, a pseudo-filesystem.
 * Returns the folders created here (deepest last), so a run that never starts removes exactly those.
 * @throws UsageError naming `flag` and the fix; nothing is left behind.
 */
export function createRunFolder(dir: string, flag = '--out'): string[] {
  const { existing, missing } = (() => {
    try {
      return nearestExisting(dir);
    } catch (err) {
      if (err instanceof UsageError) throw new UsageError(`${flag} ${dir}: ${err.message}; pass a folder path`);
      throw err;
    }
  })();
  const stat = fs.statSync(existing, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) {
    throw new UsageError(missing.length === 0
      ? `${flag} ${dir} is an existing file, not a folder; pass a new or empty folder`
      : `${flag} ${dir}: ${existing} is a file, not a folder; pass a folder path`);
  }
  const pseudo = pseudoFilesystemOf(existing);
  if (pseudo) throw new UsageError(`${flag} ${dir} is on the ${pseudo} pseudo-filesystem, which cannot hold files; pass a folder on a real disk`);
  if (missing.length === 0 && fs.readdirSync(existing).length > 0) {
    throw new UsageError(`${flag} ${dir} already holds files; pass a new or empty folder`);
  }
  const created: string[] = [];
  try {
    let p = existing;
    for (const part of missing) {
      p = path.join(p, part);
      fs.mkdirSync(p);
      created.push(p);
    }
    const probe = path.join(dir, '.write-probe');
    fs.writeFileSync(probe, 'probe');
    fs.unlinkSync(probe);
  } catch (err) {
    removeFolders(created);
    throw new UsageError(`cannot write the run folder ${dir} (${(err as NodeJS.ErrnoException).code ?? String(err)}); pass a writable ${flag} with free space`);
  }
  return created;
}

/** Removes everything inside a run folder (a run interrupted before its start); the folder itself stays. */
export function emptyFolder(dir: string): void {
  for (const entry of fs.readdirSync(dir)) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
}

/** Removes folders this run created, deepest first, when they are still empty. */
export function removeFolders(created: readonly string[]): void {
  for (const d of [...created].reverse()) {
    try {
      fs.rmdirSync(d);
    } catch {
      /* not empty (the run used it) or already gone */
    }
  }
}

/**
 * Refuses an `--output` that is one of the run's inputs (the script, its processor or payloads) or lies in a run
 * folder — the `--baseline` one, any earlier run's (a folder holding run.json and generators/, at any depth above the file), or this
 * run's own `--out`: the summary JSON would replace the user's script (`--output my.yml` did) or a run's own files
 * (`--output runs/<id>/run.json` broke that run for `npm run report`). Compared by real path, so a symlink or `./`
 * spelling is caught too.
 */
export function checkOutputNotInput(file: string, inputs: readonly string[], folders: { baseline?: string; out?: string } = {}, flag = '--output'): void {
  const real = (p: string) => {
    const abs = path.resolve(p);
    try {
      return fs.realpathSync(abs);
    } catch {
      // Not there yet: its folder's real path, so a symlinked folder still compares equal.
      try {
        return path.join(fs.realpathSync(path.dirname(abs)), path.basename(abs));
      } catch {
        return abs;
      }
    }
  };
  const out = real(file);
  const input = inputs.find((i) => real(i) === out);
  if (input) throw new UnsafeOutputError(`${flag} ${file} is ${input === inputs[0] ? 'your script' : 'a file your script reads'} (${input}); the summary JSON would replace it: pass another file, e.g. ${flag} summary.json`);
  const inside = (dir: string) => out.startsWith(`${real(dir)}${path.sep}`);
  if (folders.baseline !== undefined && inside(folders.baseline)) throw new UnsafeOutputError(`${flag} ${file} is inside the --baseline run folder ${folders.baseline}; the summary JSON would change that run: pass a file outside it`);
  if (folders.out !== undefined && inside(folders.out)) throw new UnsafeOutputError(`${flag} ${file} is inside this run's --out folder ${folders.out}, which keeps the summary as report.json already: pass a file outside it`);
  for (let dir = path.dirname(out); ; dir = path.dirname(dir)) {
    // run.json alone could be anyone's file; with generators/ beside it, it is a run folder.
    if (fs.existsSync(path.join(dir, 'run.json')) && fs.existsSync(path.join(dir, 'generators'))) throw new UnsafeOutputError(`${flag} ${file} is inside the run folder ${dir}; the summary JSON would change that run's files: pass a file outside it`);
    if (path.dirname(dir) === dir) break;
  }
}

/**
 * Checks a file path the run will write at its end (`--output`): its folder exists and is a real folder,
 * and the path is not a folder. Creates nothing.
 */
export function checkOutputFile(file: string, flag = '--output'): void {
  // Many tools read `-` as standard output; here it would be a file named "-" in the working folder.
  if (file.trim() === '-') throw new UsageError(`${flag} - would write a file named "-"; ${flag === '--output' ? 'for the summary JSON on standard output pass --json (progress stays on stderr)' : 'pass a file name'}`);
  const abs = path.resolve(file);
  const dirStat = fs.statSync(path.dirname(abs), { throwIfNoEntry: false });
  if (!dirStat?.isDirectory()) throw new UsageError(`${flag} ${file}: ${path.dirname(abs)} is not an existing folder; create it or pass another path`);
  if (fs.statSync(abs, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${flag} ${file} is a folder; pass a file name, e.g. ${flag} summary.json`);
  const pseudo = pseudoFilesystemOf(path.dirname(abs));
  if (pseudo) throw new UsageError(`${flag} ${file} is on the ${pseudo} pseudo-filesystem; pass a file on a real disk`);
  try {
    fs.accessSync(path.dirname(abs), fs.constants.W_OK);
  } catch {
    throw new UsageError(`${flag} ${file}: ${path.dirname(abs)} is not writable; pass a writable path`);
  }
}
