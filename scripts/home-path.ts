/**
 * Path flags as the user meant them.
 *
 * `~` in a path flag. A shell expands `~/runs` before the rig sees it, but not in `--out=~/runs`, inside quotes,
 * or in a CI variable; taken literally, the rig would make a folder named `~` in the working directory (and the
 * user's `rm -rf ~` to clean it up would aim at their home). So every path a user hands the rig's commands
 * (`--scenario`, `--out`, `--output`, `--baseline`, the report's run folders, the bench's `--json`, the
 * screenshot's `--out`) reads a leading `~` or `~/` as the home folder, as the shell would have.
 * `~user/…` is left as written: it names another user's home, which only the shell can look up.
 *
 * A relative path is read from the folder the command was run in. `npm run` starts every script in the package's
 * root, so `cd tests && npm run loadtest -- --scenario ./my.yml` looked for my.yml in the root ("no such file");
 * npm names the folder it was run in as INIT_CWD.
 */
import * as path from 'node:path';

/** `value` with a leading `~` or `~/` (or `~\` on Windows) replaced by `home`; anything else unchanged. */
export function expandHome(value: string, home: string): string {
  if (value === '~') return home;
  if (value.startsWith('~/') || (path.sep === '\\' && value.startsWith('~\\'))) return path.join(home, value.slice(2));
  return value;
}

/** The folder a user ran the command in: npm's INIT_CWD (`npm run` starts scripts in the package's root), else `cwd`. */
export function invocationDir(env: Readonly<Record<string, string | undefined>>, cwd: string): string {
  const init = env.INIT_CWD;
  return init && path.isAbsolute(init) ? init : cwd;
}

/** A path flag's value: `~` expanded, a relative path read from `base`. Empty and `-` stay as given (each flag refuses them). */
export function userPath(value: string, home: string, base: string): string {
  if (!value.trim() || value.trim() === '-') return value;
  return path.resolve(base, expandHome(value, home));
}
