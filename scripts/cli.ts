/**
 * `npm run loadtest -- [flags]`: parses flags, wires the adapters for the platform, runs, reports,
 * and sets the exit code (0 ok, 1 thresholds breached / too many failed vusers, 2 bad input,
 * 3 rig failure, 130 interrupted). Progress goes to stderr; `--json` puts the summary on stdout.
 */
import { Command, Option } from 'commander';
import * as path from 'node:path';
import { ExitCode, RigError, UsageError } from './errors';
import { RawFlags, validateFlags } from './options';
import { readMachineLimits } from './adapters/system-limits';
import { localPlatform } from './platforms/local';
import { runLoadTest } from './run';

const ROOT = path.resolve(__dirname, '..');

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Builds the command-line parser (exported for tests of the help text). */
export function buildProgram(): Command {
  return new Command('loadtest')
    .description('Run a load test against a Socket.IO / WebSocket target, locally or on the deployed AWS rig')
    .addOption(new Option('--platform <where>', 'where generators run: local | aws (default: aws when the stacks are deployed, else local)'))
    .option('--vusers <n>', 'total virtual users across all generators')
    .option('--ramp <duration>', 'spread arrivals evenly over this time (90s, 20m); default 100 arrivals/s, at least 10s')
    .option('--hold <duration>', 'how long each vuser keeps its connection (scenario variable "hold")')
    .option('--scenario <name|path>', 'built-in scenario (connect, pubsub, presence, broadcast, rooms, recovery) or your Artillery script', 'connect')
    .option('--var <key=value>', 'scenario variable, repeatable', collect, [])
    .option('--generators <m>', 'generator count (default: planned from per-generator capacity)')
    .option('--target <url>', 'an existing target (default: a local reference target started for the run)')
    .option('--target-port <port>', 'port for the local reference target (default: any free port)')
    .option('--out <dir>', 'run folder (default runs/<run-id>)')
    .option('--json', 'print the summary JSON on stdout')
    .option('--ensure <expr>', 'pass/fail threshold (Artillery ensure syntax), repeatable', collect, [])
    .option('--baseline <run>', 'compare with an earlier run folder (table, compare-<id>.html); --ensure may read baseline.* (e.g. "p99 <= baseline.p99 * 1.1")')
    .option('--max-error-rate <pct>', 'largest % of failed vusers that still passes (default 0)')
    .option('--teardown', 'destroy the stacks after the run (aws)')
    .option('--keep-generators', 'leave the generator fleet running after the run (aws)')
    .option('--max-cost <usd>', 'refuse an AWS run whose estimated cost is above this many US dollars (exit 2, nothing started)')
    .option('--generator-capacity <n>', 'vusers one generator holds, for planning the generator count (aws; default: the capacity model for the deployed instance type)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .allowExcessArguments(false);
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version') return ExitCode.ok;
    return ExitCode.badInput; // commander already printed its one line
  }
  // Commander camel-cases each flag into exactly the RawFlags field of the same name.
  const o = program.opts<RawFlags & { generatorCapacity?: string }>();
  const raw: RawFlags = o;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // Ctrl-C also stops an AWS fleet that is still waiting for its instances.
  const abort = new AbortController();
  let running = false;
  const onSignal = () => {
    abort.abort();
    // Before the run starts nothing needs stopping; once it runs, run.ts's own handler takes over.
    if (!running) {
      log('interrupted before the run started; nothing was started');
      process.exit(ExitCode.interrupted);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let awsRun = false;
  try {
    const options = validateFlags(raw);
    awsRun = options.platform !== 'local';
    const localPlatformOf = () => localPlatform({ root: ROOT, machine: readMachineLimits(), options, env: process.env, log });
    let platform;
    if (options.platform === 'local') {
      if (options.teardown || options.keepGenerators) {
        throw new UsageError(`${options.teardown ? '--teardown' : '--keep-generators'} only applies to --platform aws; drop it for a local run`);
      }
      if (o.generatorCapacity !== undefined) throw new UsageError("--generator-capacity only applies to --platform aws (local capacity comes from this machine's limits); drop it");
      log('platform: local (--platform local)');
      platform = localPlatformOf();
    } else {
      // Loaded only when AWS may be used: `--platform local` never loads the AWS SDK.
      const { selectPlatform, parseGeneratorCapacity } = await import('./platforms/aws/select');
      const generatorCapacity = parseGeneratorCapacity(o.generatorCapacity);
      platform = await selectPlatform({
        root: ROOT,
        options,
        env: process.env,
        log,
        signal: abort.signal,
        local: localPlatformOf,
        ...(generatorCapacity !== undefined ? { generatorCapacity } : {}),
      });
    }
    awsRun = platform.name === 'aws';
    const onInterrupt = (handler: () => void) => {
      process.on('SIGINT', handler);
      process.on('SIGTERM', handler);
      return () => {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
      };
    };
    running = true;
    // RIG_HEARTBEAT_TIMEOUT_MS: how soon agents stop themselves when this process dies (default 30 s).
    const heartbeatTimeoutMs = Number(process.env.RIG_HEARTBEAT_TIMEOUT_MS) > 0 ? Number(process.env.RIG_HEARTBEAT_TIMEOUT_MS) : undefined;
    const { summary, exitCode } = await runLoadTest(options, platform, { root: ROOT, log, onInterrupt, heartbeatTimeoutMs });
    if (options.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return exitCode;
  } catch (err) {
    if (err instanceof UsageError) {
      log(`error: ${err.message}`);
      return ExitCode.badInput;
    }
    if (err instanceof RigError) {
      log(`rig failure: ${err.message}`);
      return ExitCode.rigFailure;
    }
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
      // The run folder became unwritable mid-run: the load was stopped; what was stored before stays.
      const where = (err as NodeJS.ErrnoException).path ?? 'the run folder';
      log(`rig failure: cannot write ${where} (${code}); the run was stopped with what it had — free space or fix access, then \`npm run report -- <run folder>\` rebuilds the report from the saved data`);
      return ExitCode.rigFailure;
    }
    if (awsRun) {
      // An AWS SDK error that escaped the adapters: one line naming what failed and the fix.
      const { explainAwsError } = await import('./platforms/aws/aws-errors');
      const explained = explainAwsError(err, { region: process.env.AWS_REGION ?? 'the configured region', doing: 'running on AWS' });
      log(`${explained instanceof UsageError ? 'error' : 'rig failure'}: ${explained.message}`);
      return explained instanceof UsageError ? ExitCode.badInput : ExitCode.rigFailure;
    }
    log(`rig failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return ExitCode.rigFailure;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
