/**
 * `npm run teardown [-- <cdk destroy options>]`: checks the AWS credentials first — without them `cdk destroy` prints
 * its own multi-line account error — then runs `cdk destroy --all --force` where the stacks are: in the region
 * cdk-outputs.json records (said when the shell's AWS_REGION differs), with `-c generatorRegions=…` from the
 * regions it records when the options do not give one (said). `cdk destroy` of stacks it does not find exits 0
 * (aws/aws-cdk#22240), so the stacks are then looked up (CloudFormation DescribeStacks) in every region involved:
 * npm's `postteardown` removes cdk-outputs.json only when teardown exits 0, i.e. when none is left.
 * Credentials of another account than the one cdk-outputs.json records (the target stack's Account output) are
 * refused before cdk runs: there it would find nothing, destroy nothing, and exit 0.
 * Exit codes: 0 destroyed (no rig stack left); 1 cdk destroy failed (its own code), or a rig stack is still there
 * (one line naming it; cdk-outputs.json kept); 2 no credentials, credentials of another account, or an unreachable
 * region (one line, nothing destroyed); 3 another AWS error while checking.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ExitCode, UsageError } from './errors';
import { explainAwsError } from './platforms/aws/aws-errors';
import type { AwsApi } from './platforms/aws/clients';
import { regionOf } from './leftovers';
import { RIG_STACK_NAMES, regionalStackName } from './platforms/aws/discovery';
import { RecordedRegions, StandingStack, generatorRegionsContext, recordedRegions, regionsFromCloudFormation, regionsOfContext, stackText, standingStacks } from './platforms/aws/rig-stacks';
import { runEntry, unexpectedFailure } from './entry';

/** What teardown uses from outside: the AWS API for a region, and cdk itself. */
export interface TeardownDeps {
  readonly api: (region: string) => Pick<AwsApi, 'getCallerIdentity' | 'describeStacks'>;
  /** Runs `cdk <args>` with the terminal's stdio and `vars` over this process's environment; returns its exit code. */
  readonly cdk: (args: readonly string[], vars: Readonly<Record<string, string>>) => number;
  readonly env: NodeJS.ProcessEnv;
  readonly outputsText: string | undefined;
  readonly log: (line: string) => void;
}

/** The `generatorRegions` value the options give (`-c generatorRegions=…`, `--context=generatorRegions=…`; the last wins, as in cdk). Pure. */
export function contextGeneratorRegions(argv: readonly string[]): string | undefined {
  let found: string | undefined;
  argv.forEach((a, i) => {
    const joined = /^(?:-c|--context)=(.*)$/.exec(a)?.[1];
    const pair = joined ?? (a === '-c' || a === '--context' ? argv[i + 1] : undefined);
    const value = pair === undefined ? undefined : /^generatorRegions=(.*)$/.exec(pair)?.[1];
    if (value !== undefined) found = value;
  });
  return found;
}

/** How cdk destroy runs: its arguments, the region variables it gets, the lines saying what teardown chose, and every region a rig stack may stand in. */
export interface DestroyPlan {
  readonly args: readonly string[];
  readonly vars: Readonly<Record<string, string>>;
  readonly lines: readonly string[];
  readonly regions: readonly string[];
}

/** Where and with what cdk destroy runs, from the regions a deploy recorded (`from` names the record) and the user's options. Pure. */
export function planDestroy(argv: readonly string[], recorded: RecordedRegions, from: string, env: NodeJS.ProcessEnv): DestroyPlan {
  const lines: string[] = [];
  const shell = env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined;
  let vars: Record<string, string> = {};
  if (recorded.home) {
    // Env-agnostic stacks (no generatorRegions) are destroyed wherever the SDK's region points: point it at the stacks.
    vars = { AWS_REGION: recorded.home, AWS_DEFAULT_REGION: recorded.home, CDK_DEFAULT_REGION: recorded.home };
    if (shell !== recorded.home) lines.push(`teardown: destroying in ${recorded.home}, the stacks' region in ${from} (${shell ? `AWS_REGION is ${shell}` : 'AWS_REGION is not set'})`);
  }
  const given = contextGeneratorRegions(argv);
  const recordedContext = generatorRegionsContext(recorded);
  const extra: string[] = [];
  if (given === undefined && recordedContext) {
    extra.push('-c', `generatorRegions=${recordedContext}`);
    lines.push(`teardown: -c generatorRegions=${recordedContext} from ${from}, so cdk destroys ${recorded.remote.map((r) => regionalStackName(r.region)).join(', ')} too`);
  } else if (given !== undefined) {
    const left = recorded.remote.map((r) => r.region).filter((r) => !regionsOfContext(given).includes(r));
    if (left.length) lines.push(`note: -c generatorRegions=${given} leaves out ${left.join(', ')}, which ${from} records: cdk will not destroy ${left.map(regionalStackName).join(', ')}`);
  }
  const home = recorded.home ?? shell;
  const regions = [...new Set([...(home ? [home] : []), ...recorded.remote.map((r) => r.region), ...(given ? regionsOfContext(given) : [])])];
  return { args: ['destroy', '--all', '--force', ...extra, ...argv], vars, lines, regions };
}

/** The account cdk-outputs.json records (a rig stack's `Account` output), or undefined (none recorded, or no file). Pure. */
export function recordedAccount(outputsText: string | undefined): string | undefined {
  if (!outputsText) return undefined;
  try {
    const stacks = JSON.parse(outputsText) as Record<string, Record<string, unknown> | null>;
    const found = Object.entries(stacks).find(([name, o]) => name.startsWith('LoadTestRig-') && typeof o?.Account === 'string' && /^\d{12}$/.test(o.Account));
    return found ? String(found[1]?.Account) : undefined;
  } catch {
    return undefined;
  }
}

/** An AWS error while checking, as one line and its exit code. */
function failed(err: unknown, region: string, doing: string, log: (line: string) => void): number {
  const e = explainAwsError(err, { region, doing, localAlternative: false, regionFrom: 'the region (cdk-outputs.json, else AWS_REGION)' });
  log(`${e instanceof UsageError ? 'error' : 'rig failure'}: ${e.message}`);
  return e instanceof UsageError ? ExitCode.badInput : ExitCode.rigFailure;
}

/** After cdk destroy exited 0: 0 when no rig stack is left in any region, else one line naming them and 1. */
async function confirmGone(regions: readonly string[], deps: TeardownDeps): Promise<number> {
  const first = regions[0];
  if (first === undefined) {
    deps.log('note: no region to confirm the stacks are gone in (no cdk-outputs.json, no AWS_REGION); check with `npm run leftovers -- --region <region>`');
    return ExitCode.ok;
  }
  let left: StandingStack[];
  try {
    left = await standingStacks(deps.api, regions);
  } catch (err) {
    return failed(err, first, 'confirming the rig stacks are gone (CloudFormation DescribeStacks)', deps.log);
  }
  if (left.length === 0) {
    deps.log(`teardown: no rig stack left in ${regions.join(', ')} (CloudFormation); \`npm run leftovers -- ${regions.map((r) => `--region ${r}`).join(' ')}\` lists anything else still tagged`);
    return ExitCode.ok;
  }
  const failedDelete = left.some((s) => s.status === 'DELETE_FAILED') ? ' (DELETE_FAILED: the CloudFormation console names the resource that blocked it)' : '';
  const kept = deps.outputsText !== undefined ? '; cdk-outputs.json is kept' : '';
  deps.log(`error: cdk destroy exited 0 but rig stacks are still there: ${left.map(stackText).join(', ')}${failedDelete}${kept}; run \`npm run teardown -- -c generatorRegions=…\` naming every region with AWS_REGION set to the stacks' region, or delete them in the CloudFormation console`);
  return ExitCode.thresholdsBreached;
}

export async function teardown(argv: readonly string[], deps: TeardownDeps): Promise<number> {
  let region: string;
  try {
    // The stacks' region (cdk-outputs.json), else AWS_REGION; STS answers in any region.
    region = regionOf(undefined, deps.outputsText, deps.env);
  } catch {
    region = 'us-east-1';
  }
  let caller: string | undefined;
  try {
    caller = (await deps.api(region).getCallerIdentity()).Account;
  } catch (err) {
    return failed(err, region, 'checking the AWS credentials before cdk destroy (STS GetCallerIdentity)', deps.log);
  }
  const account = recordedAccount(deps.outputsText);
  if (account && caller && caller !== account) {
    deps.log(`error: the AWS credentials are for account ${caller}, but cdk-outputs.json records the rig in account ${account}: cdk destroy would find nothing there; use the deploying account's credentials (AWS_PROFILE) and run npm run teardown again`);
    return ExitCode.badInput;
  }
  let recorded = recordedRegions(deps.outputsText);
  let from = 'cdk-outputs.json';
  const shell = deps.env.AWS_REGION || deps.env.AWS_DEFAULT_REGION;
  if (!recorded.home && shell) {
    // No outputs file (`npx cdk deploy --all` writes none): the home generator stack names the other regions itself.
    try {
      recorded = await regionsFromCloudFormation(deps.api, shell);
      from = `${RIG_STACK_NAMES.generators}'s outputs in ${shell}`;
    } catch (err) {
      return failed(err, shell, 'looking up the rig stacks\' regions (CloudFormation DescribeStacks)', deps.log);
    }
  }
  const plan = planDestroy(argv, recorded, from, deps.env);
  for (const line of plan.lines) deps.log(line);
  const code = deps.cdk(plan.args, plan.vars);
  return code === ExitCode.ok ? confirmGone(plan.regions, deps) : code;
}

if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  const outputsFile = path.join(root, 'cdk-outputs.json');
  runEntry('npm run teardown', async () => {
    const { createAwsApi } = await import('./platforms/aws/clients');
    return teardown(process.argv.slice(2), {
      api: (region) => createAwsApi({ region }),
      cdk: (args, vars) => spawnSync(process.execPath, [require.resolve('aws-cdk/bin/cdk'), ...args], { cwd: root, stdio: 'inherit', env: { ...process.env, ...vars } }).status ?? ExitCode.rigFailure,
      env: process.env,
      outputsText: fs.existsSync(outputsFile) ? fs.readFileSync(outputsFile, 'utf8') : undefined,
      log: (line) => process.stderr.write(`${line}\n`),
    });
  }, unexpectedFailure);
}
