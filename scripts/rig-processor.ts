/**
 * Whether a script runs one of the rig's own processors (load-generators/processors): the code that raises the
 * built-in scenarios' error codes (`WS_CONNECT_FAILED`, `COOKIE_HTTP_503`, …), each naming the target's answer. The
 * verdict files those codes as the target's only when that code runs, whatever the script is called: a copy of
 * `connect.yml` that keeps its processor raises them as the built-in does, and a script of the user's own under a
 * built-in's name does not (its `WS_CONNECT_FAILED` would be its own code's). Decided by what Artillery loads: the
 * processor resolved as Artillery resolves it, from the script's folder, is a file of that folder (links followed) or
 * a byte-for-byte copy of one.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resolveProcessor } from './script-check';

/** The rig's processors folder under the repository root. */
const processorsDir = (root: string) => path.join(root, 'load-generators', 'processors');

/** The file at `file`, links followed; undefined when it cannot be read. */
function realFile(file: string): string | undefined {
  try {
    return fs.statSync(file).isFile() ? fs.realpathSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when `config.processor` of the script in `scriptDir` is one of the rig's processors under `root`, or a copy of
 * one. `processor`: the script's `config.processor` as written (after its templates were resolved).
 */
export function runsRigProcessor(processor: unknown, scriptDir: string, root: string): boolean {
  if (typeof processor !== 'string' || processor === '') return false;
  const file = realFile(resolveProcessor(path.resolve(scriptDir, processor)));
  if (file === undefined || !fs.existsSync(processorsDir(root))) return false;
  const dir = fs.realpathSync(processorsDir(root));
  if (path.dirname(file) === dir) return true;
  const content = fs.readFileSync(file);
  return fs.readdirSync(dir).some((name) => {
    const own = realFile(path.join(dir, name));
    return own !== undefined && fs.statSync(own).size === content.length && fs.readFileSync(own).equals(content);
  });
}
