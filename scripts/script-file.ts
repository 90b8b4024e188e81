/**
 * Reading a user's test script the way `artillery run` 2.0.34 reads it (lib/util/prepare-test-execution-plan.ts):
 * `.yml`/`.yaml`/`.json` parsed as YAML, `.js` loaded with `require` (the object it exports is the script). A `.ts`
 * script, which Artillery compiles and re-loads in every worker, is not run by the rig yet; any other type is refused,
 * as Artillery refuses it ("Unknown file type").
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { UsageError } from './errors';

/** The script types the rig reads, for the refusals' words. */
const READ = '.yml, .yaml, .json or .js';

/** The parsed script (not yet checked); a file the rig cannot read is a {@link UsageError} naming the fix. */
export function readScriptFile(file: string, given: string): unknown {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.ts') {
    throw new UsageError(`--scenario ${given}: a test script in TypeScript (export const config …) runs under plain artillery run, but the rig does not run one yet; write it as YAML, JSON or a CommonJS .js module (config: …, scenarios: …); its processor may stay in TypeScript`);
  }
  if (ext === '.js') return readJsScript(file);
  if (!['.yml', '.yaml', '.json'].includes(ext)) {
    const why = ext === '.mjs' || ext === '.cjs' ? ` (artillery run refuses ${ext} too: rename it .js)` : '';
    throw new UsageError(`--scenario ${given}: unknown file type ${JSON.stringify(ext || '(none)')}${why}; name an Artillery script ${READ} (artillery run also takes .ts)`);
  }
  try {
    return yaml.load(fs.readFileSync(file, 'utf8'), { filename: file });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new UsageError(`scenario file ${file} is not valid YAML/JSON (${reason}); fix the syntax and run again`);
  }
}

/**
 * A `.js` test script: what `require` returns, as `artillery run` loads it. Its vusers run in the load processes from a
 * JSON copy, so a value JSON cannot carry (a function, `undefined`, a RegExp, a Date…) is refused naming where it is:
 * functions belong in `config.processor`.
 */
function readJsScript(file: string): unknown {
  let loaded: unknown;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require(file);
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new UsageError(`scenario file ${file} does not load (${reason}); fix it and run again (a .js test script is loaded with require, as artillery run loads it)`);
  }
  // `export const config …; export const scenarios …` (an ES module required) or `module.exports = { config, scenarios }`.
  const script = loaded && typeof loaded === 'object' ? { ...(loaded as Record<string, unknown>) } : loaded;
  const where = notData(script, '');
  if (where !== undefined) {
    throw new UsageError(`scenario file ${file}: ${where.path || 'the exported value'} is ${where.what}, which the rig cannot send to its load processes (they run a JSON copy of the script); export plain data, and put functions in config.processor`);
  }
  // A copy: -e merges into the config, and the module object stays in require's cache.
  return JSON.parse(JSON.stringify(script)) as unknown;
}

/** The first value that JSON would not carry as it is, with its path (`config.variables.now`). */
function notData(v: unknown, at: string): { path: string; what: string } | undefined {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : { path: at, what: String(v) };
  if (typeof v === 'function') return { path: at, what: 'a function' };
  if (typeof v !== 'object') return { path: at, what: typeof v === 'undefined' ? 'undefined' : `a ${typeof v}` };
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = notData(v[i], `${at}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return { path: at, what: `a ${(v as object).constructor?.name ?? 'class'} object` };
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const found = notData(x, at ? `${at}.${k}` : k);
    if (found) return found;
  }
  return undefined;
}
