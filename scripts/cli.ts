/**
 * `npm run loadtest -- [flags]`: parses flags, wires the adapters for the platform, runs, reports,
 * and sets the exit code (0 ok, 1 thresholds breached / too many failed vusers, 2 bad input,
 * 3 rig failure, 130 interrupted). Progress goes to stderr; `--json` puts the summary on stdout.
 */
import { Command, Option } from 'commander';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ExitCode, InterruptedBeforeStart, RigError, ScriptFailure, TargetFailure, UnsafeOutputError, UsageError, errorText, unexpectedErrorLine } from './errors';
import { RawFlags, parseHeartbeatTimeout, refuseAwsOnlyFlags, validateFlags } from './options';
import { invocationDir, userPath } from './home-path';
import { namesAFile } from './scenario';
import { artilleryFlagHint, missingValueHint, positionalHint } from './artillery-flags';
import { watchRepeatedValues } from './cli-flags';
import { longFlags, npmEatenRefusal } from './npm-flags';
import { writeFileAtomic } from './adapters/atomic-file';
import { checkOutputFile } from './adapters/run-folder';
import { type FailedSummary, type RunReached, emitSummary, entryFailureSummary, summaryFlagsOf } from './cli-summary';
import { redactText } from './core/redact';
import { readMachineLimits } from './adapters/system-limits';
import { localPlatform } from './platforms/local/local';
import { runLoadTest } from './run';
import { prepareRunInput, type RunInput } from './run-input';
import { POLLING_FIX, socketIoPolls } from './preflight';
import { connectionTargets, enginesUsed } from './engines';
import { assertBrowserStarts } from './browser';
import { launchBrowserOnce } from './adapters/browser-launch';
import { checkTargetUrl } from './target-url';
import { runEntry, unexpectedFailure } from './entry';

const ROOT = path.resolve(__dirname, '..');

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Builds the command-line parser (exported for tests of the help text); `home` is what a path flag's `~` means, `base` where a relative one starts. */
export function buildProgram(home: string = os.homedir(), base: string = invocationDir(process.env, process.cwd())): Command {
  const asGiven = (value: string) => userPath(value, home, base);
  return new Command('loadtest')
    .description('Run a load test against a Socket.IO / WebSocket target, locally or on the deployed AWS rig')
    .addOption(new Option('--platform <where>', 'where generators run: local | aws (default: aws when the stacks are deployed, else local)'))
    .option('--vusers <n>', 'total virtual users across all generators')
    .option('--ramp <duration>', 'spread arrivals evenly over this time (90s, 20m); default 100 arrivals/s, at least 10s')
    .option('--hold <duration>', 'how long each vuser keeps its connection (scenario variable "hold"); default with --vusers: until the ramp ends plus the plateau, so all N are held at once')
    .option('--plateau <duration>', 'with --vusers and no --hold: how long all N stay connected at once after the ramp (default 30s)')
    .addOption(new Option('--scenario <name|path>', 'built-in scenario (connect, pubsub, presence, broadcast, rooms, recovery) or your Artillery script').default('connect').argParser((v) => (namesAFile(v) ? asGiven(v) : v)))
    .option('--var <key=value>', 'scenario variable, repeatable', collect, [])
    .option('--generators <m>', 'generator count (default: planned from per-generator capacity)')
    .option('-t, --target <url>', "the target (default: your script's own config.target; for built-in scenarios the reference target); --target reference runs your script against the reference target")
    .option('-e, --environment <name>', "use the script's config.environments entry, as artillery run -e does")
    .option('-k, --insecure', "accept any TLS certificate from the target (your script's config.tls.rejectUnauthorized: false), as artillery run -k does")
    .option('--target-port <port>', 'port for the local reference target (default: any free port)')
    .addOption(new Option('--out <dir>', 'run folder (default runs/<run-id>)').argParser(asGiven))
    .option('--json', 'print the summary JSON on stdout')
    .addOption(new Option('--output <file>', 'also write the summary JSON to this file (written on every exit code)').argParser(asGiven))
    .option('--ensure <expr>', 'pass/fail threshold (Artillery ensure syntax), repeatable', collect, [])
    .addOption(new Option('--baseline <run>', 'compare with an earlier run folder (table, compare-<id>.html); --ensure may read baseline.* (e.g. "p99 <= baseline.p99 * 1.1")').argParser(asGiven))
    .option('--max-error-rate <pct>', 'largest % of failed vusers that still passes (default 0)')
    .option('--teardown', 'destroy the stacks after the run (aws)')
    .option('--keep-generators', 'leave the generator fleet running after the run (aws)')
    .option('--max-cost <usd>', 'refuse an AWS run whose estimated cost is above this many US dollars (exit 2, nothing started)')
    .option('--generator-capacity <n>', 'vusers one generator holds, for planning the generator count (aws; default: the capacity model for the deployed instance type)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .allowExcessArguments(false);
}

type CliFlags = RawFlags & { generatorCapacity?: string };
type Log = (line: string) => void;

/** A command line refused before it was parsed: a script asking for the summary still gets one. Returns exit 2. */
function badInputSummary(argv: readonly string[], message: string): number {
  emitSummary(summaryFlagsOf(argv), { status: 'bad-input', exitCode: ExitCode.badInput, error: message });
  return ExitCode.badInput;
}

/**
 * The bare words of a command line (a script path without --scenario, say), read silently: a flag that misses its
 * value (`--platform` last) is left for the full parse to report, in its one line.
 */
function bareOperands(argv: readonly string[]): string[] {
  try {
    return buildProgram().configureOutput({ writeErr: () => undefined }).parseOptions([...argv]).operands;
  } catch {
    return [];
  }
}

/** Parses the command line: the flags, or the exit code when parsing ended it (help shown, or bad input reported). */
function parseCommandLine(argv: string[]): { flags: CliFlags } | { exitCode: number } {
  const refusal = npmEatenRefusal(process.env, longFlags(buildProgram()), argv);
  if (refusal) {
    process.stderr.write(`${refusal}\n`);
    return { exitCode: ExitCode.badInput };
  }
  const program = buildProgram();
  // `artillery run` habits (-o, --variables, a bare script argument) get the rig's way, not "unknown option".
  const own = program.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => f !== undefined);
  const habit = artilleryFlagHint(argv, own) ?? missingValueHint(argv, program.options);
  const operands = habit === undefined ? bareOperands(argv) : [];
  const early = habit ?? (operands.length ? positionalHint(operands) : undefined);
  if (early !== undefined) {
    process.stderr.write(`error: ${early}\n`);
    return { exitCode: badInputSummary(argv, early) };
  }
  const repeated = watchRepeatedValues(program);
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version') return { exitCode: ExitCode.ok };
    // Commander already printed its one line; a script asking for the summary still gets one.
    return { exitCode: badInputSummary(argv, (err as Error).message.replace(/^error: /, '')) };
  }
  const twice = repeated();
  if (twice !== undefined) {
    process.stderr.write(`error: ${twice}\n`);
    return { exitCode: badInputSummary(argv, twice) };
  }
  // Commander camel-cases each flag into exactly the RawFlags field of the same name.
  return { flags: program.opts<CliFlags>() };
}

/** The platform the run goes to: local when asked, else AWS when its stacks are deployed (else local). */
async function openPlatform(input: RunInput, o: CliFlags, log: Log, signal: AbortSignal) {
  const { options } = input;
  const localPlatformOf = () => {
    // Kept for CI commands that pass it whichever platform is picked; said, so it is not read as a check that ran.
    if (options.maxCost !== undefined) log(`note: --max-cost ${options.maxCost} applies to AWS runs; this local run costs nothing`);
    const target = input.script.config?.target;
    return localPlatform({
      root: ROOT,
      machine: readMachineLimits(),
      options,
      env: process.env,
      log,
      socketIoPolls: !input.scenario.builtIn && socketIoPolls(input.script),
      socketIoScript: enginesUsed(input.script).has('socketio'),
      browserCheck: (signal) => assertBrowserStarts(input.script, { env: process.env, launch: (o) => launchBrowserOnce(o, signal), log }),
      userScript: !input.scenario.builtIn,
      ...(!input.scenario.builtIn && typeof target === 'string' ? { scriptTarget: target } : {}),
      // A ws connect step's own URL is checked as --target is (a mistyped one was an unexpected error, exit 3).
      ...(!input.scenario.builtIn && options.target ? { connectTargets: connectionTargets(input.script, options.target).map((u) => (u === options.target ? u : checkTargetUrl(u, `${input.scenario.name}: the connect step's URL`, true))) } : {}),
    });
  };
  if (options.platform === 'local') {
    refuseAwsOnlyFlags({ ...options, generatorCapacity: o.generatorCapacity });
    log('platform: local (--platform local)');
    return localPlatformOf();
  }
  // Loaded only when AWS may be used: `--platform local` never loads the AWS SDK.
  const { selectPlatform, parseGeneratorCapacity } = await import('./platforms/aws/select');
  const generatorCapacity = parseGeneratorCapacity(o.generatorCapacity);
  const platform = await selectPlatform({
    root: ROOT,
    options,
    script: input.script,
    ...(input.scriptFiles ? { scriptFiles: input.scriptFiles } : {}),
    env: process.env,
    log,
    signal,
    local: localPlatformOf,
    ...(generatorCapacity !== undefined ? { generatorCapacity } : {}),
  });
  const polling = platform.name === 'aws' ? awsPollingWarning(input) : undefined;
  if (polling) log(polling);
  return platform;
}

/**
 * Said before an AWS run of a Socket.IO script that starts with HTTP long-polling against the deployed reference
 * target (docs/target.md, Transports): polls of one session reach different workers or instances there.
 */
export function awsPollingWarning(input: Pick<RunInput, 'targetSource' | 'scenario' | 'script'>): string | undefined {
  if (input.targetSource !== 'reference' || input.scenario.builtIn || !socketIoPolls(input.script)) return undefined;
  return `warning: your script's Socket.IO clients start with HTTP long-polling (Artillery's default transports), which the deployed reference target cannot serve: each EC2 instance runs several workers on one port, and the clients do not send back the load balancer's stickiness cookie (engine.io-client keeps cookies only with withCredentials), so the polls of one session reach different workers; its vusers will fail with "xhr poll error" or "xhr post error". ${POLLING_FIX}`;
}

/** Subscribes a handler to Ctrl-C and kill; returns its unsubscribe. */
function onInterrupt(handler: () => void): () => void {
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/** What the run had reached when it failed: whether it ran on AWS, and its run id and folder once known. */
interface FailureContext {
  readonly raw: RawFlags;
  readonly log: Log;
  readonly awsRun: boolean;
  readonly runInfo: { runId?: string; runDir?: string };
}

/** A run that ended in an error: one line naming it, the summary written, the exit code returned (2 or 3). */
async function failedRun(err: unknown, { raw, log, awsRun, runInfo }: FailureContext): Promise<number> {
  const failed = (status: FailedSummary['status'], code: number, message: string): number => {
    emitSummary(raw, { ...runInfo, status, exitCode: code, error: message });
    return code;
  };
  if (err instanceof ScriptFailure) {
    log(`script failure: ${err.message}`);
    return failed('script-failure', ExitCode.thresholdsBreached, err.message);
  }
  if (err instanceof InterruptedBeforeStart) {
    log(err.message);
    return failed('interrupted', ExitCode.interrupted, err.message);
  }
  if (err instanceof UnsafeOutputError) {
    // --output names the user's script (or a file of the baseline): the summary goes to stdout only, never there.
    log(`error: ${err.message}`);
    emitSummary({ ...raw, output: undefined }, { ...runInfo, status: 'bad-input', exitCode: ExitCode.badInput, error: err.message });
    return ExitCode.badInput;
  }
  if (err instanceof UsageError) {
    log(`error: ${err.message}`);
    return failed('bad-input', ExitCode.badInput, err.message);
  }
  if (err instanceof RigError) {
    log(`${err instanceof TargetFailure ? 'target failure' : 'rig failure'}: ${err.message}`);
    return failed('rig-failure', ExitCode.rigFailure, err.message);
  }
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
    // The run folder became unwritable mid-run: the load was stopped; what was stored before stays.
    const where = (err as NodeJS.ErrnoException).path ?? 'the run folder';
    const message = `cannot write ${where} (${code}); the run was stopped with what it had — free space or fix access, then \`npm run report -- <run folder>\` rebuilds the report from the saved data`;
    log(`rig failure: ${message}`);
    return failed('rig-failure', ExitCode.rigFailure, message);
  }
  if (awsRun) {
    // An AWS SDK error that escaped the adapters: one line naming what failed and the fix.
    const { explainAwsError, stopGeneratorsCommand } = await import('./platforms/aws/aws-errors');
    // Once the run had opened, its generators may be up: never "nothing was started", and the line says how to stop them.
    const started = runInfo.runId ? { stopGenerators: stopGeneratorsCommand(await deployedOutputs()) } : undefined;
    const explained = explainAwsError(err, { region: process.env.AWS_REGION ?? 'the configured region', doing: 'running on AWS', ...(started ? { started } : {}) });
    log(`${explained instanceof UsageError ? 'error' : 'rig failure'}: ${explained.message}`);
    return explained instanceof UsageError ? failed('bad-input', ExitCode.badInput, explained.message) : failed('rig-failure', ExitCode.rigFailure, explained.message);
  }
  // A bug in the rig, not the user's input: one line, and the stack kept where a bug report can quote it.
  const stackFile = runInfo.runDir ? keepStack(runInfo.runDir, err) : undefined;
  log(`rig failure: ${unexpectedErrorLine(err, stackFile)}`);
  if (process.env.RIG_DEBUG === '1' && err instanceof Error && err.stack) log(err.stack);
  return failed('rig-failure', ExitCode.rigFailure, errorText(err));
}

async function main(argv: string[], reached: RunReached): Promise<number> {
  const parsed = parseCommandLine(argv);
  if ('exitCode' in parsed) return parsed.exitCode;
  const o = parsed.flags;
  const raw: RawFlags = o;
  // Every line shown is redacted: a credentialed target URL is used, never printed.
  const log = (line: string) => process.stderr.write(`${redactText(line)}\n`);
  // Ctrl-C also stops an AWS fleet that is still waiting for its instances.
  const abort = new AbortController();
  // Until run.ts registers its own handler (it then stops what has started), Ctrl-C ends the process here.
  let running = false;
  // Set once main is settling an error: a signal still queued behind it (a child killed by the same Ctrl-C
  // surfaced first) says nothing more.
  let settling = false;
  // Ends the process now, bypassing main's return (a Ctrl-C before the run's handler, a second Ctrl-C): the summary is
  // written first, synchronously (write-then-rename), since nothing runs after process.exit (README: --output is
  // written whatever the exit code).
  const exitNow = (code: number, error: string): never => {
    emitSummary(raw, { ...reached.runInfo, status: 'interrupted', exitCode: code, error });
    process.exit(code);
  };
  const onSignal = () => {
    abort.abort();
    if (!running && !settling) {
      const err = new InterruptedBeforeStart();
      log(err.message);
      exitNow(ExitCode.interrupted, err.message);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let awsRun = false;
  try {
    const flags = validateFlags(raw);
    // RIG_HEARTBEAT_TIMEOUT_MS: how soon agents stop themselves when this process dies (default 30 s).
    const heartbeatTimeoutMs = parseHeartbeatTimeout(process.env.RIG_HEARTBEAT_TIMEOUT_MS);
    if (flags.output !== undefined) checkOutputFile(flags.output);
    // The script, its files, its ensure checks and its target are checked before any platform is chosen.
    const input = prepareRunInput(flags, ROOT, process.env);
    for (const line of [...input.notes, ...(input.targetLine ? [input.targetLine] : [])]) log(line);
    awsRun = input.options.platform !== 'local';
    const platform = await openPlatform(input, o, log, abort.signal);
    awsRun = platform.name === 'aws';
    const runHandles = (handler: () => void) => {
      running = true;
      return onInterrupt(handler);
    };
    const { summary, exitCode } = await runLoadTest(input, platform, { root: ROOT, log, onInterrupt: runHandles, exit: exitNow, heartbeatTimeoutMs, onRunStarted: (r) => (reached.runInfo = r) });
    emitSummary(raw, summary);
    return exitCode;
  } catch (err) {
    settling = true;
    const code = await failedRun(err, { raw, log, awsRun, runInfo: reached.runInfo });
    // Interrupted before the start: the run stopped what it had started and aborted what it waited on (the local
    // preflight's probe closes its connections), so the process ends by returning. Except for work nothing can abort:
    // a DNS lookup the probe left running (getaddrinfo has no cancel) would hold the exit up to the resolver's timeout.
    if (err instanceof InterruptedBeforeStart && err.abandonedWork) process.exit(code);
    return code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** The deployed rig's outputs file (cdk-outputs.json), if it is there and readable. */
async function deployedOutputs() {
  const { parseOutputsFile } = await import('./platforms/aws/discovery');
  const file = path.join(ROOT, 'cdk-outputs.json');
  try {
    return parseOutputsFile(fs.readFileSync(file, 'utf8'), file);
  } catch {
    return undefined;
  }
}

/** Writes an unexpected error's stack into the run folder (rig-error.txt); its path, or undefined if it cannot. */
function keepStack(runDir: string, err: unknown): string | undefined {
  const file = path.join(runDir, 'rig-error.txt');
  try {
    writeFileAtomic(file, `${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return file;
  } catch {
    return undefined;
  }
}

/**
 * The CLI as its process's entry (scripts/entry.ts): main's code is the exit code, and an exit code that is not main's
 * own (it rejected, or the process ran out of work first) still writes the failure summary. `run` is main (a test's
 * stand-in).
 */
export function runCli(argv: string[], run: (argv: string[], reached: RunReached) => Promise<number> = main): void {
  const reached: RunReached = { runInfo: {} };
  runEntry('npm run loadtest', () => run(argv, reached), unexpectedFailure, { onFailure: entryFailureSummary(argv, reached) });
}

if (require.main === module) runCli(process.argv.slice(2));
