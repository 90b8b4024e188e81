/**
 * `npm run loadtest --vusers 300` (no `--`): npm keeps `--vusers` as its own config (`npm_config_vusers`
 * in the script's environment) and hands the script only the bare value. Detecting that here turns a
 * confusing "too many arguments" into one line with the right form. Pure: the environment comes in.
 */

/**
 * The long flags of a command (`--vusers`), from a commander program or node:util parseArgs options: every
 * entry point (loadtest, report, bench, soak, leftovers, report:screenshot) checks its own.
 */
export function longFlags(from: { options: ReadonlyArray<{ long?: string }> } | Record<string, unknown>): string[] {
  const options = (from as { options?: unknown }).options;
  if (Array.isArray(options)) return (options as Array<{ long?: string }>).map((o) => o.long ?? '').filter((f) => f.startsWith('--'));
  return Object.keys(from).map((k) => `--${k}`);
}

/** The command's long flags (`--vusers`) that npm took for itself, as the user typed them. */
export function npmEatenFlags(env: NodeJS.ProcessEnv, flags: readonly string[], argv: readonly string[]): string[] {
  if (env.npm_lifecycle_event === undefined) return []; // not under `npm run`
  const eaten: string[] = [];
  for (const flag of flags) {
    if (!flag || argv.includes(flag) || argv.some((a) => a.startsWith(`${flag}=`))) continue;
    const value = env[`npm_config_${flag.slice(2).replace(/-/g, '_')}`];
    if (value === undefined) continue;
    // `target` is also node-gyp's npmrc key: only a bare flag (`true`) or a URL is ours.
    if (flag === '--target' && value !== 'true' && !/^https?:\/\//.test(value)) continue;
    eaten.push(flag);
  }
  return eaten;
}

/** The one-line refusal naming the eaten flags and the form npm passes through. */
export function npmEatenMessage(eaten: readonly string[], script = 'loadtest'): string {
  const example = eaten.map((f) => `${f} …`).join(' ');
  return `npm took ${eaten.join(', ')} for itself because no "--" came before the flags; put "--" first: npm run ${script} -- ${example}`;
}

/** The value a long flag has on the command line (`--flag value` or `--flag=value`), the first one; undefined without. */
function argvValue(argv: readonly string[], flag: string): string | undefined {
  for (const [i, a] of argv.entries()) {
    if (a === '--') return undefined;
    if (a.startsWith(`${flag}=`)) return a.slice(flag.length + 1);
    if (a === flag) return argv[i + 1];
  }
  return undefined;
}

/**
 * A flag npm took with a value before `--` (`npm run loadtest --scenario=pubsub -- --scenario connect`) that also
 * comes after it with another value: npm hands the script only the second, so the first was dropped silently.
 * The refusal line, or undefined.
 */
export function npmConflictLine(env: NodeJS.ProcessEnv, flags: readonly string[], argv: readonly string[]): string | undefined {
  if (env.npm_lifecycle_event === undefined) return undefined;
  for (const flag of flags) {
    const npm = env[`npm_config_${flag.slice(2).replace(/-/g, '_')}`];
    const given = argvValue(argv, flag);
    if (npm === undefined || npm === 'true' || given === undefined || npm === given) continue;
    if (flag === '--target' && !/^https?:\/\//.test(npm)) continue; // node-gyp's npmrc `target` (a version)
    return `${flag} was given twice: ${flag}=${npm} before "--" (npm took it for itself) and ${flag} ${given} after it; pass it once, after "--": npm run ${env.npm_lifecycle_event} -- ${flag} …`;
  }
  return undefined;
}

/**
 * For an entry point: the refusal line when npm ate some of its flags (the script named from npm's own
 * npm_lifecycle_event), or took one that also comes after `--` with another value; else undefined. The caller
 * prints it and exits 2.
 */
export function npmEatenRefusal(env: NodeJS.ProcessEnv, flags: readonly string[], argv: readonly string[]): string | undefined {
  const eaten = npmEatenFlags(env, flags, argv);
  if (eaten.length > 0) return `error: ${npmEatenMessage(eaten, env.npm_lifecycle_event ?? 'loadtest')}`;
  const conflict = npmConflictLine(env, flags, argv);
  return conflict === undefined ? undefined : `error: ${conflict}`;
}
