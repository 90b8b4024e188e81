/**
 * `artillery run` flags a user types out of habit. `-e`, `-t` and `-k` mean the same here and are accepted; the
 * others have no counterpart under that name, and commander's "unknown option '-o'" would not say what to type
 * instead. Each gets one line naming the rig's way (flags of artillery 2.0.34's `run`, lib/cli/common-flags.ts and
 * lib/cmds/run.ts). Pure.
 */

const HINTS: ReadonlyArray<readonly [readonly string[], string]> = [
  [['-o', '--output'], "-o is artillery run's --output; here --output FILE writes the summary JSON, and the run folder holds the full report.json"],
  [['-c', '--config'], '-c/--config (a separate config file) is not read; put the config in your script (--scenario FILE), or pick an environment with -e NAME'],
  [['-v', '--variables'], '-v/--variables JSON is --var KEY=VALUE here, once per variable (e.g. --var room=lobby --var count=5; JSON as -v takes it: --var \'rooms=[["a","b"]]\' for one list every vuser loops over, --var \'room=["a","b"]\' for a pick per vuser)'],
  [['--overrides'], '--overrides is not read; change the script, or use --target, --var KEY=VALUE and -e NAME'],
  [['--dotenv', '--env-file'], '--dotenv is not read; export the variables before the run (e.g. set -a; . ./.env; set +a), and {{ $env.NAME }} reads them'],
  [['-q', '--quiet'], '-q/--quiet is not a flag here: progress goes to stderr (2>/dev/null hides it), and --json prints only the summary on stdout'],
  [['-p', '--payload'], '-p/--payload is not read; name the CSV in the script (config.payload.path, relative to the script)'],
  [['-s', '--solo'], '-s/--solo is --vusers 1 here'],
  [['--count'], '--count is --generators M here'],
  [['--scenario-name'], "--scenario-name is not read; give the other scenarios weight: 0 in your script, or copy the one you want into its own script"],
  [['--platform-opt'], '--platform-opt is not read; --platform aws runs on the rig\'s own deployed fleet (docs/aws.md)'],
  [['--record', '--key', '--name', '--tags', '--note'], 'Artillery Cloud flags (--record, --key, --name, --tags, --note) are not read: the run folder and report.html hold the results'],
];

/** The hint for the first `artillery run` flag in `argv` that the rig has under another name, if any. */
export function artilleryFlagHint(argv: readonly string[], ownFlags: readonly string[]): string | undefined {
  for (const arg of argv) {
    if (arg === '--') break;
    const flag = arg.startsWith('--') ? arg.split('=')[0]! : arg;
    if (ownFlags.includes(flag)) continue;
    const hit = HINTS.find(([flags]) => flags.includes(flag));
    if (hit) return hit[1];
  }
  return undefined;
}

/** The line for words on the command line that no flag took (`npm run loadtest -- my.yml`, or `-- run my.yml`). */
export function positionalHint(operands: readonly string[]): string {
  const words = operands.filter((w) => w !== 'run');
  const script = words.find((w) => /\.(ya?ml|json|js)$/i.test(w));
  if (script) return `pass your script as --scenario ${script} (${operands[0] === 'run' ? '"run" is not needed, and ' : ''}a script is not taken as a bare argument)`;
  return `unexpected argument${operands.length > 1 ? 's' : ''} ${operands.join(' ')}; every input is a flag (npm run loadtest -- --help lists them)`;
}

/** A flag of the command line as the hint below reads it (commander's Option has these). */
export interface FlagSpec {
  readonly flags: string;
  readonly long?: string | undefined;
  readonly short?: string | undefined;
  /** Takes a value (`<name>`). */
  readonly required?: boolean;
}

/**
 * The line for a flag that takes a value followed by another flag instead (`-e --out runs/a`): the parser would take
 * `--out` as the environment's name and then call `runs/a` an unexpected argument, naming neither. Pure.
 */
export function missingValueHint(argv: readonly string[], flags: readonly FlagSpec[]): string | undefined {
  const own = flags.flatMap((f) => [f.long, f.short]).filter((f): f is string => f !== undefined);
  for (let i = 0; i < argv.length - 1; i++) {
    const arg = argv[i] as string;
    if (arg === '--') break;
    const spec = flags.find((f) => f.required && (f.long === arg || f.short === arg));
    const next = (argv[i + 1] as string).split('=')[0] as string;
    if (!spec || !own.includes(next)) continue;
    const value = /<[^>]+>/.exec(spec.flags)?.[0] ?? '<value>';
    const names = [spec.short, spec.long].filter(Boolean).join('/');
    return `${names} needs a value, but the flag ${next} follows it; write ${arg} ${value} before ${next}`;
  }
  return undefined;
}
