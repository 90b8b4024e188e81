/**
 * Flag parsing shared by the entry points built on node:util parseArgs (report, bench, soak): `--help`/`-h`
 * anywhere before `--` asks for the usage (printed on stdout, exit 0, as `npm run loadtest -- --help` does), and
 * parseArgs' own errors become one line naming the flag, with the command's usage (exit 2 through UsageError).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors';

/** Whether the command line asks for the usage (`--help` or `-h` before any `--`). */
export function helpRequested(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/** parseArgs' error as one line: the flag or argument and what is wrong with it. */
export function parseErrorLine(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const quoted = /'([^']*)'/.exec(e.message ?? '')?.[1] ?? '';
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${quoted}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /argument missing/.test(e.message) ? `${quoted.split(' ')[0]} needs a value` : (e.message.split('\n')[0] ?? e.message);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${JSON.stringify(quoted)}`;
    default:
      return (e.message ?? String(err)).split('\n')[0] ?? String(err);
  }
}

/** parseArgs, strict; a bad command line throws a UsageError `<what is wrong>; <usage>`. */
export function parseFlags<O extends NonNullable<ParseArgsConfig['options']>, P extends boolean = false>(argv: readonly string[], options: O, usage: string, allowPositionals?: P) {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: (allowPositionals ?? false) as P });
  } catch (err) {
    throw new UsageError(`${parseErrorLine(err)}; ${usage}`);
  }
}
