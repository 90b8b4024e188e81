/**
 * The `npm run loadtest` flags (README.md "Flags"), validated into one typed object before anything starts.
 * Pure: no file system, no environment — the CLI hands in what it parsed.
 */
import { MAX_DURATION_SECONDS, readDuration } from './core/capacity';
import { UsageError } from './errors';
import { checkTargetUrl } from './target-url';
import { usesBaseline } from './report/baseline';

/** Built-in scenarios shipped in load-generators/scenarios/<name>.yml. */
export const BUILT_IN_SCENARIOS = ['connect', 'pubsub', 'presence', 'broadcast', 'rooms', 'recovery'] as const;

/** The most vusers one run may ask for: far beyond any plan that fits, but stops typos like 1e12. */
export const MAX_VUSERS = 10_000_000;

/** Raw flag values as the CLI parser hands them over (strings, unvalidated). */
export interface RawFlags {
  readonly platform?: string;
  readonly vusers?: string;
  readonly ramp?: string;
  readonly hold?: string;
  readonly scenario?: string;
  readonly var?: readonly string[];
  readonly generators?: string;
  readonly target?: string;
  readonly out?: string;
  readonly json?: boolean;
  readonly ensure?: readonly string[];
  readonly teardown?: boolean;
  readonly keepGenerators?: boolean;
  readonly maxErrorRate?: string;
  readonly targetPort?: string;
  readonly plateau?: string;
  readonly output?: string;
  readonly maxCost?: string;
  readonly baseline?: string;
  readonly environment?: string;
  readonly insecure?: boolean;
}

/** Validated run options. */
export interface RunOptions {
  /** `undefined`: decided later (aws when the stacks are deployed, else local). */
  readonly platform?: 'local' | 'aws';
  /** Total vusers; `undefined` keeps the scenario's own phases. */
  readonly vusers?: number;
  /** Seconds the arrivals are spread over. */
  readonly rampSeconds?: number;
  /**
   * Seconds each vuser holds its connection (scenario variable `hold`). With `--vusers` and no `--hold`:
   * the ramp plus the plateau, so every vuser is still connected when the last one arrives.
   */
  readonly holdSeconds?: number;
  /** With `--vusers` and no `--hold`: seconds all N vusers stay connected at once after the ramp. */
  readonly plateauSeconds?: number;
  /** A built-in scenario name or a path to the user's Artillery script. */
  readonly scenario: string;
  readonly vars: Readonly<Record<string, VarValue>>;
  readonly generators?: number;
  /** An explicit target (`--target`), or a user script's own `config.target` once chosen (scripts/target-choice.ts). */
  readonly target?: string;
  /** `--target reference`: run a user script against the rig's reference target. */
  readonly referenceTarget: boolean;
  /** `-e/--environment`: the `config.environments` entry merged into the script's config, as in Artillery. */
  readonly environment?: string;
  readonly out?: string;
  readonly json: boolean;
  readonly ensure: readonly string[];
  readonly teardown: boolean;
  readonly keepGenerators: boolean;
  /** Largest share of failed vusers (0..1) that still passes. */
  readonly maxErrorRate: number;
  /** `--max-error-rate` was given (else a script's own ensure.maxErrorRate is the budget: scripts/run-input.ts). */
  readonly maxErrorRateGiven?: true;
  /** The budget is the script's own `ensure.maxErrorRate` (no `--max-error-rate`): the result says so. */
  readonly maxErrorRateFromScript?: true;
  /** Port for the local reference target; 0 = any free port. */
  readonly targetPort: number;
  /** File the summary JSON is written to (besides the run folder), or undefined. */
  readonly output?: string;
  /** USD: an AWS run estimated above this is refused before anything starts (a local run costs nothing). */
  readonly maxCost?: number;
  /** An earlier run folder to compare with; `--ensure` may read its figures as `baseline.*`. */
  readonly baseline?: string;
  /** `-k/--insecure`: the script's `config.tls.rejectUnauthorized` is set to false, as `artillery run -k` does. */
  readonly insecure?: boolean;
  /** Not a flag: the script's `config.tls.rejectUnauthorized` is false (its own, or by -k), so the reachability check accepts any certificate too. */
  readonly insecureTls?: boolean;
  /** Not a flag: the fix an untrusted certificate's line names when the script's `config.ws` keeps the checks on over -k (scripts/preflight.ts untrustedCertFix). */
  readonly untrustedCertFix?: string;
}

export { MAX_DURATION_SECONDS };

/**
 * Parses a duration flag by the rig's one rule (scripts/core/phases.ts readDuration), or written with several units
 * as k6 and Go write it ("1h30m", "2m30s": the sum). Script phases keep the one rule: Artillery's `ms` reads one unit
 * only, and a phase must mean what it means under plain `artillery run`. Returns seconds.
 */
export function parseDurationSeconds(flag: string, value: string): number {
  const compound = compoundSeconds(value);
  const d = compound === undefined ? readDuration(value) : readDuration(compound);
  if ('seconds' in d) return d.seconds;
  if (d.problem === 'too-long') {
    throw new UsageError(`${flag} ${value} is longer than the ${MAX_DURATION_SECONDS} s (~24.8 days) a timer can hold; ask for at most ${flag} 24d`);
  }
  if (d.problem === 'not-positive') {
    throw new UsageError(`${flag} ${JSON.stringify(value)} must be longer than zero; e.g. ${flag} 90s or ${flag} 20m`);
  }
  throw new UsageError(`${flag} ${JSON.stringify(value)} is not a duration; use seconds or a unit, e.g. ${flag} 90s, ${flag} 20m or ${flag} 1h30m`);
}

/**
 * Seconds of a duration written with two or more units ("1h30m", "2m30s", "1H30M"), or undefined when it is not one.
 * The parts are added as written, with no bound of their own: the whole is checked by readDuration (`25d1h` is too long
 * as `25d` is, not 1 h).
 */
function compoundSeconds(value: string): number | undefined {
  const text = value.trim().toLowerCase();
  if (!/^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/.test(text)) return undefined;
  const parts = text.match(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g) ?? [];
  if (parts.length < 2) return undefined;
  const unit: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 };
  return parts.reduce((sum, part) => {
    const [, n, u] = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(part) ?? [];
    return sum + Number(n) * (unit[u ?? ''] ?? Number.NaN);
  }, 0);
}

/** Parses a whole-number flag from 1 to `max`; `hint` is the example the error shows. */
export function parsePositiveInt(flag: string, value: string, max: number, hint: string): number {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} must be a whole number of at least 1, e.g. ${flag} ${hint}`);
  }
  if (n > max) {
    throw new UsageError(`${flag} ${value} is more than the ${max.toLocaleString('en-US')} this rig accepts; ask for fewer`);
  }
  return n;
}

/** A `--var` value: text, a number, a boolean, or a JSON array or object. */
export type VarValue = string | number | boolean | readonly unknown[] | { readonly [key: string]: unknown };

/**
 * `--var key=value`: a number written the way a number prints (`10`, `-2`, `0.5`) and `true`/`false` become typed;
 * a value that starts with `[` or `{` is JSON, the array or object it parses to (what plain `artillery run -v '{…}'`
 * passes; an array variable is Artillery's per-vuser pick, so a list a `loop … over:` reads is written `[[…]]`), and one
 * that does not parse is refused (kept as text, a loop over it
 * would run zero times and say nothing); everything else stays the string as written (`007`, `1e3`,
 * `12345678901234567890`, an empty value): read as a number, `--var zip=02134` would have reached the script as 2134.
 */
export function parseVars(pairs: readonly string[]): Record<string, VarValue> {
  const vars: Record<string, VarValue> = {};
  const given = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq > 0 ? pair.slice(0, eq).trim() : '';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
      throw new UsageError(`--var ${JSON.stringify(pair)} is not KEY=VALUE with a plain key; e.g. --var rooms=10`);
    }
    const raw = pair.slice(eq + 1);
    // The same key twice: the last would win silently (the same rule as a flag of one value given twice).
    const earlier = given.get(key);
    if (earlier !== undefined && earlier !== raw) {
      throw new UsageError(`--var ${key} was given twice (${JSON.stringify(earlier)}, then ${JSON.stringify(raw)}); pass it once`);
    }
    given.set(key, raw);
    const canonicalNumber = /^-?(0|[1-9]\d*)(\.\d+)?$/.test(raw) && (raw.includes('.') || Number.isSafeInteger(Number(raw)));
    // `{{ a }}` is a template, never JSON (which cannot start with two braces): text, as `-v '{"b":"{{ a }}"}'` gives it.
    vars[key] = /^\s*[[{]/.test(raw) && !/^\s*\{\{/.test(raw) ? jsonVar(key, raw) : canonicalNumber ? Number(raw) : raw === 'true' ? true : raw === 'false' ? false : raw;
  }
  return vars;
}

/** A `--var` value written as JSON (it starts with `[` or `{`), or the refusal naming the parser's complaint. */
function jsonVar(key: string, raw: string): VarValue {
  try {
    return JSON.parse(raw) as VarValue;
  } catch (err) {
    const example = raw.trimStart().startsWith('[') ? `'${key}=["a","b"]'` : `'${key}={"a":1}'`;
    throw new UsageError(`--var ${key}=${raw} starts with ${raw.trimStart()[0]} so it is read as JSON, and it is not JSON (${(err as Error).message}); write it as JSON, e.g. --var ${example} (quoted for the shell)`);
  }
}

function parseTarget(value: string): string {
  // Checked as for a script (ws allowed; chooseTarget checks it again for the scenario); never echoed unredacted. One
  // with templates (`{{ $testId }}`, a --var) is checked once chooseTarget resolved them, as `artillery run -t` does.
  if (!value.includes('{{')) checkTargetUrl(value, '--target', true);
  // Written as given: chooseTarget (scripts/target-choice.ts checkTargetUrl) puts it in the form the run uses.
  return value;
}

/** Flags only the AWS platform reads, as given (raw or parsed). */
export interface AwsOnlyFlags {
  readonly teardown?: boolean;
  readonly keepGenerators?: boolean;
  readonly generatorCapacity?: unknown;
}

/** Refuses, on a local run, the flags only --platform aws reads (they would be ignored silently). */
export function refuseAwsOnlyFlags(flags: AwsOnlyFlags): void {
  if (flags.teardown || flags.keepGenerators) {
    throw new UsageError(`${flags.teardown ? '--teardown' : '--keep-generators'} only applies to --platform aws; drop it for a local run`);
  }
  if (flags.generatorCapacity !== undefined) throw new UsageError("--generator-capacity only applies to --platform aws (local capacity comes from this machine's limits); drop it");
}

/** --hold and --plateau set the variable hold; `--var hold=` beside them would win silently (applyOptions). */
function refuseTwoHolds(raw: RawFlags, vars: Readonly<Record<string, VarValue>>): void {
  if (!('hold' in vars) || (raw.hold === undefined && raw.plateau === undefined)) return;
  const flag = raw.hold !== undefined ? `--hold ${raw.hold}` : `--plateau ${raw.plateau}`;
  // The value as typed (a JSON one printed from the parsed value read "[object Object]").
  const typed = [...(raw.var ?? [])].reverse().find((p) => p.slice(0, p.indexOf('=')).trim() === 'hold') ?? 'hold=';
  throw new UsageError(`${flag} and --var ${typed.trim()} both set how long each vuser holds (the variable hold); pass one`);
}

/** Validates every flag; throws {@link UsageError} on the first bad one. */
export function validateFlags(raw: RawFlags): RunOptions {
  let platform: RunOptions['platform'];
  if (raw.platform !== undefined) {
    if (raw.platform !== 'local' && raw.platform !== 'aws') {
      throw new UsageError(`--platform ${JSON.stringify(raw.platform)} is not a platform; use --platform local or --platform aws`);
    }
    platform = raw.platform;
  }
  const vusers = raw.vusers === undefined ? undefined : parsePositiveInt('--vusers', raw.vusers, MAX_VUSERS, '300');
  const rampSeconds = raw.ramp === undefined ? undefined : parseDurationSeconds('--ramp', raw.ramp);
  const explicitHold = raw.hold === undefined ? undefined : parseDurationSeconds('--hold', raw.hold);
  if (raw.plateau !== undefined && (raw.vusers === undefined || raw.hold !== undefined)) {
    throw new UsageError(`--plateau only applies with --vusers and without --hold (--hold sets each vuser's own hold); drop ${raw.hold !== undefined ? '--hold or ' : ''}--plateau`);
  }
  const plateauSeconds = vusers === undefined || explicitHold !== undefined ? undefined : raw.plateau === undefined ? DEFAULT_PLATEAU_SECONDS : parseDurationSeconds('--plateau', raw.plateau);
  const holdSeconds = plateauSeconds === undefined ? explicitHold : heldHoldSeconds(vusers as number, rampSeconds, plateauSeconds);
  const generators = raw.generators === undefined ? undefined : parsePositiveInt('--generators', raw.generators, 1000, '3');
  const scenario = (raw.scenario ?? 'connect').trim();
  if (!scenario) throw new UsageError(`--scenario is empty; use one of ${BUILT_IN_SCENARIOS.join(', ')} or a path to an Artillery script`);
  let maxErrorRate = 0;
  if (raw.maxErrorRate !== undefined) {
    const pct = /^\s*(\d+(\.\d+)?|\.\d+)\s*%?\s*$/.test(raw.maxErrorRate) ? Number(raw.maxErrorRate.replace(/%\s*$/, '')) : NaN;
    if (!Number.isFinite(pct) || pct < 0 || pct > 100) {
      throw new UsageError(`--max-error-rate ${JSON.stringify(raw.maxErrorRate)} must be a percentage from 0 to 100, e.g. --max-error-rate 0.1`);
    }
    maxErrorRate = pct / 100;
  }
  let targetPort = 0;
  if (raw.targetPort !== undefined) {
    if (/^\s*\d+\s*$/.test(raw.targetPort) && Number(raw.targetPort) > 65535) throw new UsageError(`--target-port ${raw.targetPort.trim()} is not a port; pass one from 1 to 65535, or leave it out for any free port`);
    targetPort = parsePositiveInt('--target-port', raw.targetPort, 65535, '3000');
  }
  if (raw.target !== undefined && raw.target.trim() !== 'reference' && raw.targetPort !== undefined) {
    throw new UsageError('--target-port only applies to the local reference target; drop it when you pass --target');
  }
  let maxCost: number | undefined;
  if (raw.maxCost !== undefined) {
    maxCost = /^\s*\d+(\.\d+)?\s*$/.test(raw.maxCost) ? Number(raw.maxCost) : NaN;
    if (!Number.isFinite(maxCost) || maxCost <= 0) {
      throw new UsageError(`--max-cost ${JSON.stringify(raw.maxCost)} must be a positive amount of US dollars, e.g. --max-cost 5`);
    }
  }
  const environment = raw.environment?.trim();
  if (raw.environment !== undefined && !environment) throw new UsageError('-e/--environment needs the name of an entry of config.environments, e.g. -e staging');
  const referenceTarget = raw.target?.trim() === 'reference';
  for (const e of raw.ensure ?? []) {
    if (!e.trim()) throw new UsageError('--ensure needs an expression, e.g. --ensure "vusers.failed == 0"');
    if (raw.baseline === undefined && usesBaseline(e)) throw new UsageError(`--ensure ${JSON.stringify(e)} reads baseline.* but no --baseline was given; add --baseline runs/<run-id>`);
  }
  if (raw.baseline !== undefined && !raw.baseline.trim()) throw new UsageError('--baseline needs a run folder, e.g. --baseline runs/<run-id>');
  const vars = parseVars(raw.var ?? []);
  refuseTwoHolds(raw, vars);
  return {
    platform,
    vusers,
    rampSeconds,
    holdSeconds,
    scenario,
    vars,
    generators,
    target: raw.target === undefined || referenceTarget ? undefined : parseTarget(raw.target),
    referenceTarget,
    ...(environment ? { environment } : {}),
    ...(raw.insecure ? { insecure: true } : {}),
    out: raw.out === undefined ? undefined : checkOutFolder(raw.out),
    json: Boolean(raw.json),
    ensure: raw.ensure ?? [],
    teardown: Boolean(raw.teardown),
    keepGenerators: Boolean(raw.keepGenerators),
    maxErrorRate,
    ...(raw.maxErrorRate !== undefined ? { maxErrorRateGiven: true as const } : {}),
    targetPort,
    ...(plateauSeconds !== undefined ? { plateauSeconds } : {}),
    ...(raw.output !== undefined ? { output: checkOutputPath(raw.output) } : {}),
    ...(maxCost !== undefined ? { maxCost } : {}),
    ...(raw.baseline !== undefined ? { baseline: raw.baseline } : {}),
  };
}

function checkOutFolder(value: string): string {
  // Empty (`--out=`, an unset CI variable) would be the working folder itself.
  if (!value.trim()) throw new UsageError('--out needs a folder path, e.g. --out runs/my-test (default runs/<run-id>)');
  return value;
}

function checkOutputPath(value: string): string {
  if (!value.trim()) throw new UsageError('--output needs a file name, e.g. --output summary.json');
  return value;
}

/**
 * `RIG_HEARTBEAT_TIMEOUT_MS`: how long agents run on without the orchestrator's heartbeat; undefined = the default
 * (30 s). Milliseconds, at least 3000: the heartbeat comes every second at most, so a shorter timeout (or `30`, meant
 * as seconds) would stop every agent as orphaned at once.
 */
export function parseHeartbeatTimeout(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const ms = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!(ms >= 3000)) {
    throw new UsageError(`RIG_HEARTBEAT_TIMEOUT_MS=${value} must be a whole number of milliseconds, at least 3000 (the heartbeat comes every second); e.g. RIG_HEARTBEAT_TIMEOUT_MS=30000, or unset it for the default`);
  }
  return ms;
}

/** How long all N vusers stay connected at once after the ramp when `--vusers` comes without `--hold`. */
export const DEFAULT_PLATEAU_SECONDS = 30;

/**
 * The hold that keeps N connected at once: every vuser holds for the ramp plus the plateau, so the first
 * one is still connected when the last arrives and all N are held together for the plateau.
 */
export function heldHoldSeconds(vusers: number, rampSeconds: number | undefined, plateauSeconds: number): number {
  const hold = (rampSeconds ?? defaultRampSeconds(vusers)) + plateauSeconds;
  if (hold > MAX_DURATION_SECONDS) {
    throw new UsageError(`--ramp plus --plateau (${hold} s) is longer than the ${MAX_DURATION_SECONDS} s (~24.8 days) a timer can hold; ask for at most --ramp plus --plateau 24d`);
  }
  return hold;
}

/** Arrivals per second the default ramp assumes: River's 100/s, gentle enough for a small target. */
export const DEFAULT_ARRIVALS_PER_SECOND = 100;

/** The ramp used when `--vusers` is given without `--ramp`: 100 arrivals/s, at least 10 s. */
export function defaultRampSeconds(vusers: number): number {
  return Math.max(10, Math.ceil(vusers / DEFAULT_ARRIVALS_PER_SECOND));
}
