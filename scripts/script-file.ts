/**
 * Reading a user's test script the way `artillery run` 2.0.34 reads it (lib/util/prepare-test-execution-plan.ts):
 * `.yml`/`.yaml`/`.json` parsed as YAML, `.js` loaded with `require` in a child process (the object it exports is the script). A `.ts`
 * script, which Artillery compiles and re-loads in every worker, is not run by the rig yet; any other type is refused,
 * as Artillery refuses it ("Unknown file type").
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { UsageError } from './errors';
import { runProbe } from './probe-child';

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

/** The child that loads a `.js` script (user code never runs in the orchestrator; as scripts/processor-probe.js). */
const SCRIPT_PROBE = path.join(__dirname, 'script-probe.js');

/**
 * A `.js` test script: what `require` returns, as `artillery run` loads it, read in a child process
 * (scripts/script-probe.js). Its vusers run in the load processes from a JSON copy, so a value JSON cannot carry (a
 * function, a RegExp, a Date…) is refused naming where it is: functions belong in `config.processor`. A key whose value
 * is `undefined` (`ca: process.env.CA` with CA unset) is left out, as it is of plain Artillery's copy for its workers.
 */
function readJsScript(file: string): unknown {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rig-script-probe-${process.pid}-`));
  const answer = path.join(dir, 'answer.json');
  const loadError = (reason: string) =>
    new UsageError(`scenario file ${file} does not load (${reason}); fix it and run again (a .js test script is loaded with require, as artillery run loads it)`);
  try {
    const failed = runProbe(SCRIPT_PROBE, [file, answer], path.dirname(file), dir);
    if (failed?.includes('ERR_REQUIRE_ASYNC_MODULE')) {
      throw loadError('it awaits at its top level, and require, which artillery run loads it with too, cannot wait; compute those values in a processor or a before section');
    }
    if (failed) throw loadError(failed.replace(/^\w*Error(?: \[[A-Z_]+\])?: /, ''));
    if (!fs.existsSync(answer)) throw loadError('it exited while loading');
    const r = JSON.parse(fs.readFileSync(answer, 'utf8')) as { script?: unknown; notData?: { path: string; what: string } };
    if (r.notData) {
      throw new UsageError(`scenario file ${file}: ${r.notData.path || 'the exported value'} is ${r.notData.what}, which the rig cannot send to its load processes (they run a JSON copy of the script); export plain data, and put functions in config.processor`);
    }
    const only = r.script && typeof r.script === 'object' ? Object.keys(r.script) : [];
    if (only.length === 1 && only[0] === 'default') {
      throw new UsageError(`scenario file ${file} has only a default export, which artillery run does not read (it stops with a TypeError); export its parts by name (export const config = …; export const scenarios = …) or use module.exports = { config, scenarios }`);
    }
    return r.script;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
