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

/**
 * For an entry point: the refusal line when npm ate some of its flags (the script named from npm's own
 * npm_lifecycle_event), else undefined. The caller prints it and exits 2.
 */
export function npmEatenRefusal(env: NodeJS.ProcessEnv, flags: readonly string[], argv: readonly string[]): string | undefined {
  const eaten = npmEatenFlags(env, flags, argv);
  return eaten.length > 0 ? `error: ${npmEatenMessage(eaten, env.npm_lifecycle_event ?? 'loadtest')}` : undefined;
}
