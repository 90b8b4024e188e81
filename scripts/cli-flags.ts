/**
 * Flag parsing shared by the entry points built on node:util parseArgs (report, bench, soak): `--help`/`-h`
 * anywhere before `--` asks for the usage (printed on stdout, exit 0, as `npm run loadtest -- --help` does), and
 * parseArgs' own errors become one line naming the flag, with the command's usage (exit 2 through UsageError).
 */
import type { Command } from 'commander';
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
      if (/argument missing/.test(e.message)) return `${quoted.split(' ')[0]} needs a value`;
      // `--budget -1`: parseArgs will not take a value that starts with a dash after a space.
      if (/argument is ambiguous/.test(e.message)) return `${quoted} needs a value, and the next argument starts with "-"; if that is its value, write ${quoted}=<value>`;
      return e.message.split('\n')[0] ?? e.message;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${JSON.stringify(quoted)}`;
    default:
      return (e.message ?? String(err)).split('\n')[0] ?? String(err);
  }
}

/**
 * A flag that takes one value, given two different ones (`--scenario connect … --scenario pubsub`): both parsers
 * keep the last one silently, and the run would not be the one asked for. The same value twice is harmless.
 */
export function repeatedFlagLine(flag: string, values: readonly string[]): string | undefined {
  const distinct = [...new Set(values)];
  if (distinct.length < 2) return undefined;
  return `${flag} was given ${values.length === 2 ? 'twice' : `${values.length} times`} (${distinct.map((v) => JSON.stringify(v)).join(', then ')}); it takes one value: pass it once`;
}

/** The first flag of `given` (flag → its values in command-line order) with two different values, as a line. */
function firstRepeated(given: ReadonlyMap<string, readonly string[]>): string | undefined {
  for (const [flag, values] of given) {
    const line = repeatedFlagLine(flag, values);
    if (line) return line;
  }
  return undefined;
}

/**
 * Watches a commander program's options that take one value (not the repeatable ones, whose default is a list) and
 * returns, once it has parsed, the line for one given two different values, if any.
 */
export function watchRepeatedValues(program: Command): () => string | undefined {
  const given = new Map<string, string[]>();
  for (const o of program.options) {
    if (!(o.required || o.optional) || o.variadic || Array.isArray(o.defaultValue)) continue;
    const flag = o.long ?? o.flags;
    program.on(`option:${o.name()}`, (value: unknown) => {
      if (typeof value === 'string') given.set(flag, [...(given.get(flag) ?? []), value]);
    });
  }
  return () => firstRepeated(given);
}

/**
 * parseArgs, strict; a bad command line throws a UsageError `<what is wrong>; <usage>`, and so does a flag of one
 * value given two different ones ({@link repeatedFlagLine}).
 */
export function parseFlags<O extends NonNullable<ParseArgsConfig['options']>, P extends boolean = false>(argv: readonly string[], options: O, usage: string, allowPositionals?: P) {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: (allowPositionals ?? false) as P, tokens: true });
  } catch (err) {
    throw new UsageError(`${parseErrorLine(err)}; ${usage}`);
  }
  const given = new Map<string, string[]>();
  for (const t of parsed.tokens) {
    if (t.kind !== 'option' || t.value === undefined) continue;
    const o = options[t.name];
    if (o?.type !== 'string' || o.multiple) continue;
    given.set(`--${t.name}`, [...(given.get(`--${t.name}`) ?? []), t.value]);
  }
  const repeated = firstRepeated(given);
  if (repeated) throw new UsageError(`${repeated}; ${usage}`);
  return { values: parsed.values, positionals: parsed.positionals };
}
