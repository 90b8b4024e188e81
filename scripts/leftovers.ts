/**
 * `npm run leftovers -- [--region R]… [--json]`: after a teardown, lists in every region it knows (cdk-outputs.json's
 * regions plus each --region; else AWS_REGION) what still carries the rig's tag (`loadtest-rig=true`, set on every
 * stack in bin/rig.ts) through the Resource Groups Tagging API, the auto-scaling groups with that tag (GetResources
 * does not return them), and every rig stack CloudFormation still has (DELETE_FAILED named); and names what stays by
 * design (the shared CDK bootstrap stack and its assets). While the stacks are deployed it also restores a target
 * scale-in (scale-in.ts) and resumes the groups' AZRebalance (fleet-processes.ts) that a killed run left suspended
 * past its deadline, each said on its own line.
 * Exit codes: 0 nothing of the rig left, 1 leftovers found, 2 bad input (no region, no credentials), 3 an AWS error.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command } from 'commander';
import { longFlags, npmEatenRefusal } from './npm-flags';
import { ExitCode, UsageError } from './errors';
import { explainAwsError, isNoCredentials, isUnreachable } from './platforms/aws/aws-errors';
import type { AwsApi } from './platforms/aws/clients';
import { RigOutputs, describeRigStacks, parseOutputsFile } from './platforms/aws/discovery';
import { recordedRegions, standingStacks } from './platforms/aws/rig-stacks';
import { restoreOverdueScaleIn } from './platforms/aws/scale-in';
import { resumeOverdueProcesses } from './platforms/aws/fleet-processes';
import { s3Store } from '../load-generators/lib/run-store';
import { runEntry, unexpectedFailure } from './entry';

/** The tag every rig stack carries (bin/rig.ts tagRig), propagated by CloudFormation to what supports tags. */
export const RIG_TAG = { key: 'loadtest-rig', value: 'true' } as const;

/** What stays after `npm run teardown`, and why (printed with every answer). */
export const STAYS_BY_DESIGN = [
  'the CDK bootstrap stack CDKToolkit (its assets bucket and ECR repository, with the agent bundle and target app assets): shared by every CDK app in the account and region; remove it only if nothing else uses CDK there',
];

/** One resource of the rig still present. */
export interface Leftover {
  readonly arn: string;
  /** e.g. `ec2 instance`, `logs log-group`. */
  readonly kind: string;
  /** The region it was found in (set by {@link scanRegion}). */
  readonly region?: string;
  /** A stack's CloudFormation status (e.g. DELETE_FAILED). */
  readonly status?: string;
}

/** The service and resource type of an ARN (`arn:aws:ec2:eu-west-1:123:instance/i-1` → `ec2 instance`). Pure. */
export function kindOf(arn: string): string {
  const parts = arn.split(':');
  const service = parts[2] ?? '?';
  // S3 bucket ARNs have no type segment: arn:aws:s3:::name.
  if (service === 's3' && !(parts[5] ?? '').includes('/')) return 's3 bucket';
  const type = parts.slice(5).join(':').split(/[/:]/)[0] || '?';
  return `${service} ${type}`;
}

/** Every resource with the rig's tag, sorted by kind then ARN. */
export async function findLeftovers(api: AwsApi): Promise<Leftover[]> {
  const out: Leftover[] = [];
  let token: string | undefined;
  do {
    const page = await api.getResources({ TagFilters: [{ Key: RIG_TAG.key, Values: [RIG_TAG.value] }], ...(token ? { PaginationToken: token } : {}) });
    for (const r of page.ResourceTagMappingList ?? []) if (r.ResourceARN) out.push({ arn: r.ResourceARN, kind: kindOf(r.ResourceARN) });
    token = page.PaginationToken || undefined;
  } while (token);
  return out.sort((a, b) => a.kind.localeCompare(b.kind) || a.arn.localeCompare(b.arn));
}

/** The auto-scaling groups with the rig's tag (the Tagging API's GetResources does not return them), every page. */
export async function findRigGroups(api: AwsApi): Promise<Leftover[]> {
  const out: Leftover[] = [];
  let token: string | undefined;
  do {
    const page = await api.describeAutoScalingGroups({ Filters: [{ Name: `tag:${RIG_TAG.key}`, Values: [RIG_TAG.value] }], ...(token ? { NextToken: token } : {}) });
    for (const g of page.AutoScalingGroups ?? []) {
      const arn = g.AutoScalingGroupARN ?? g.AutoScalingGroupName;
      if (arn) out.push({ arn, kind: kindOf(arn) });
    }
    token = page.NextToken || undefined;
  } while (token);
  return out;
}

/**
 * Everything of the rig in the API's region: tagged resources, tagged auto-scaling groups, and rig stacks in any
 * status but DELETE_COMPLETE; one entry per ARN, sorted by kind then ARN. `step` is told what is being asked.
 */
export async function scanRegion(api: AwsApi, step: (doing: string) => void = () => undefined): Promise<Leftover[]> {
  step('listing the rig\'s tagged resources (tag:GetResources)');
  const tagged = await findLeftovers(api);
  step('listing the rig\'s auto-scaling groups (autoscaling:DescribeAutoScalingGroups)');
  const groups = await findRigGroups(api);
  step('looking up the rig stacks (cloudformation:DescribeStacks)');
  const stacks = (await standingStacks(() => api, [api.region])).map((s) => ({ arn: s.stackId ?? s.name, kind: 'cloudformation stack', status: s.status }));
  const byArn = new Map<string, Leftover>();
  for (const l of [...tagged, ...groups, ...stacks]) byArn.set(l.arn, { ...byArn.get(l.arn), ...l, region: api.region });
  return [...byArn.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.arn.localeCompare(b.arn));
}

/** One region's report as lines. Pure. */
export function leftoverLines(region: string, found: readonly Leftover[]): string[] {
  if (found.length === 0) return [`leftovers: nothing of the rig in ${region} (nothing tagged ${RIG_TAG.key}=${RIG_TAG.value}, no LoadTestRig-* stack)`];
  const failed = found.some((l) => l.status === 'DELETE_FAILED')
    ? ['a DELETE_FAILED stack: its events in the CloudFormation console name the resource that blocked the delete; delete that, then the stack again']
    : [];
  return [
    `leftovers: ${found.length} resource${found.length === 1 ? '' : 's'} of the rig still in ${region}:`,
    ...found.map((l) => `  ${l.kind}: ${l.arn}${l.status ? ` (${l.status})` : ''}`),
    ...failed,
    'finish the teardown with `npm run teardown` (or delete them in the console); the tagging index can lag a few minutes behind deletions',
  ];
}

/** What stays by design, as lines (said once, after every region). */
export const staysByDesignLines = (): string[] => STAYS_BY_DESIGN.map((s) => `stays by design: ${s}`);

/** A --region value, checked for a region name's shape. @throws UsageError */
function regionFlag(flag: string): string {
  // A region name's shape (eu-west-1, us-gov-west-1, ap-southeast-5): a typo is said here, not as an unreachable endpoint.
  if (!/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(flag)) throw new UsageError(`--region "${flag}" is not an AWS region name; pass the region you deployed to, e.g. --region eu-west-1`);
  return flag;
}

/**
 * Every region to look in: the regions cdk-outputs.json records (the home region first, then the other generator
 * regions), then each --region; with none of those, AWS_REGION / AWS_DEFAULT_REGION. Pure. @throws UsageError
 */
export function regionsOf(flags: readonly string[], outputsText: string | undefined, env: NodeJS.ProcessEnv): string[] {
  const checked = flags.map(regionFlag);
  const recorded = recordedRegions(outputsText);
  const known = [...(recorded.home ? [recorded.home] : []), ...recorded.remote.map((r) => r.region), ...checked];
  return known.length ? [...new Set(known)] : [regionOf(undefined, outputsText, env)];
}

/** The region: --region, else the deployed stacks' Region output, else AWS_REGION / AWS_DEFAULT_REGION. */
export function regionOf(flag: string | undefined, outputsText: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag !== undefined) return regionFlag(flag);
  if (outputsText) {
    try {
      const json = JSON.parse(outputsText) as Record<string, Record<string, string> | undefined>;
      const r = json['LoadTestRig-Generators']?.Region;
      if (r) return r;
    } catch {
      /* a broken outputs file says nothing about the region */
    }
  }
  const r = env.AWS_REGION || env.AWS_DEFAULT_REGION;
  if (!r) throw new UsageError('no AWS region: pass --region (the region you deployed to) or set AWS_REGION');
  return r;
}

/**
 * While the stacks are deployed (cdk-outputs.json, else CloudFormation, names the scale-in alarm, the groups and the
 * results bucket): restores a target scale-in, and resumes the target's and the generators' AZRebalance, that a
 * killed run left suspended past its deadline (its mark in the bucket says so); the generator group of every other
 * region too (`apiFor`), each marked in its own region's bucket. A failure here is said, never fatal to the listing.
 */
export async function restoreLeftSuspensions(
  api: AwsApi,
  outputsText: string | undefined,
  file: string,
  log: (line: string) => void,
  now = Date.now(),
  apiFor?: (region: string) => AwsApi,
): Promise<void> {
  let outputs: RigOutputs | undefined;
  try {
    try {
      outputs = outputsText ? parseOutputsFile(outputsText, file) : undefined;
    } catch {
      /* a broken outputs file names no alarm: ask CloudFormation */
    }
    outputs ??= await describeRigStacks(api, apiFor);
    if (!outputs) return;
    const marks = s3Store(`s3://${outputs.resultsBucketName}`, api.s3);
    await restoreOverdueScaleIn(api, outputs.scaleInAlarmName, marks, now, log);
    for (const group of [outputs.targetAsgName, outputs.generatorAsgName]) await resumeOverdueProcesses(api, group, marks, now, log);
  } catch (err) {
    // No credentials or no endpoint: the listing fails the same way next, and says it once.
    if (isNoCredentials(err) || isUnreachable(err)) throw err;
    log(`note: could not check for what a killed run left suspended (target scale-in, AZRebalance) (${(err as Error).name}: ${(err as Error).message})`);
  }
  for (const remote of (apiFor && outputs?.regions) || []) {
    try {
      const there = (apiFor as (region: string) => AwsApi)(remote.region);
      await resumeOverdueProcesses(there, remote.generatorAsgName, s3Store(`s3://${remote.resultsBucketName}`, there.s3), now, log);
    } catch (err) {
      if (isNoCredentials(err) || isUnreachable(err)) throw err;
      log(`note: could not check ${remote.region}'s generator group for a suspended AZRebalance (${(err as Error).name}: ${(err as Error).message})`);
    }
  }
}

async function main(argv: string[]): Promise<number> {
  const program = new Command('leftovers')
    .description('List what is left of the rig after a teardown')
    .option('--region <region>', 'a region to look in besides cdk-outputs.json\'s (repeatable; without either, AWS_REGION)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--json', 'print the leftovers as JSON on stdout')
    .exitOverride()
    .allowExcessArguments(false);
  const refusal = npmEatenRefusal(process.env, longFlags(program), argv);
  if (refusal) {
    process.stderr.write(`${refusal}\n`);
    return ExitCode.badInput;
  }
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    return (err as { code?: string }).code === 'commander.helpDisplayed' ? ExitCode.ok : ExitCode.badInput;
  }
  const o = program.opts<{ region: string[]; json?: boolean }>();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const outputsFile = path.resolve(__dirname, '..', 'cdk-outputs.json');
  const outputsText = fs.existsSync(outputsFile) ? fs.readFileSync(outputsFile, 'utf8') : undefined;
  let region = 'the configured region';
  let doing = 'listing the rig\'s tagged resources (tag:GetResources)';
  try {
    const regions = regionsOf(o.region, outputsText, process.env);
    const { createAwsApi } = await import('./platforms/aws/clients');
    const found: Leftover[] = [];
    for (const [k, r] of regions.entries()) {
      region = r;
      const api = createAwsApi({ region: r });
      // The target, its scale-in alarm, the groups and the results bucket named by the outputs are the home region's (the first).
      // Every other generator region named by the outputs is checked too, each with its own region's client.
      if (k === 0) await restoreLeftSuspensions(api, outputsText, outputsFile, log, Date.now(), (other) => createAwsApi({ region: other }));
      const here = await scanRegion(api, (d) => (doing = d));
      for (const line of leftoverLines(r, here)) log(line);
      found.push(...here);
    }
    for (const line of staysByDesignLines()) log(line);
    if (o.json) process.stdout.write(`${JSON.stringify({ region: regions[0], regions, leftovers: found, staysByDesign: STAYS_BY_DESIGN }, null, 2)}\n`);
    return found.length === 0 ? ExitCode.ok : ExitCode.thresholdsBreached;
  } catch (err) {
    const e = explainAwsError(err, { region, doing, localAlternative: false, regionFrom: o.region.includes(region) ? '--region' : 'the region (cdk-outputs.json, else AWS_REGION)' });
    log(`${e instanceof UsageError ? 'error' : 'rig failure'}: ${e.message}`);
    return e instanceof UsageError ? ExitCode.badInput : ExitCode.rigFailure;
  }
}

if (require.main === module) {
  runEntry('npm run leftovers', () => main(process.argv.slice(2)), unexpectedFailure);
}
