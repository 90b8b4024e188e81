/**
 * `~` in a path flag. A shell expands `~/runs` before the rig sees it, but not in `--out=~/runs`, inside quotes,
 * or in a CI variable; taken literally, the rig would make a folder named `~` in the working directory (and the
 * user's `rm -rf ~` to clean it up would aim at their home). So every path a user hands the rig's commands
 * (`--scenario`, `--out`, `--output`, `--baseline`, the report's run folders, the bench's `--json`, the
 * screenshot's `--out`) reads a leading `~` or `~/` as the home folder, as the shell would have.
 * `~user/…` is left as written: it names another user's home, which only the shell can look up.
 */
import * as path from 'node:path';

/** `value` with a leading `~` or `~/` (or `~\` on Windows) replaced by `home`; anything else unchanged. */
export function expandHome(value: string, home: string): string {
  if (value === '~') return home;
  if (value.startsWith('~/') || (path.sep === '\\' && value.startsWith('~\\'))) return path.join(home, value.slice(2));
  return value;
}
