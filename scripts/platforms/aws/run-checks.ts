/**
 * What the AWS platform checks before anything scales: the account (credentials, results bucket, generator
 * group), then quotas, zones and cost, and the run's target URL.
 */
import type { Clock } from '../../contracts';
import type { Plan } from '../../core/plan';
import { RigError, UsageError } from '../../errors';
import type { RunOptions } from '../../options';
import { checkReachable } from '../../adapters/reachability';
import { explainAwsError } from './aws-errors';
import { checkBeforeScaling } from './before-scaling';
import type { AwsApi, ResolvedCredentials } from './clients';
import type { RigOutputs } from './discovery';
import { RIG_STACK_NAMES } from './discovery';
import { groupInstances } from './fleet-context';
import { FLEET_BUDGETS, FleetBudgets, fleetSpanMs } from './fleet-span';

/** The generator instance type of stacks whose outputs predate `GeneratorInstanceType` (the stack's default). */
export const DEFAULT_GENERATOR_INSTANCE_TYPE = 'c5.large';

/**
 * What a run needs its credentials for after the fleet is released: collection (CloudWatch's last minute, up to 4
 * min, then the copy, the report, the scale-in restore and the group back to 0).
 */
export const RUN_OVERHEAD_MS = { collection: 300_000 } as const;

/**
 * Until when a run opened at `now` needs its credentials: the fleet's whole span (fleet-span.ts fleetSpanMs: both
 * launch stages, the ready barrier, the run to the orchestrator's give-up), then collection. Pure.
 */
export function credentialsNeededUntil(now: number, plan: Pick<Plan, 'generators'>, sessionSeconds: number, budgets: FleetBudgets = FLEET_BUDGETS): number {
  return now + fleetSpanMs(plan, sessionSeconds, budgets) + RUN_OVERHEAD_MS.collection;
}

/** Where the SDK finds credentials that never renew: exported variables, keys given in code, a profile's plain keys. */
const FIXED_CREDENTIALS = new Set(['CREDENTIALS_ENV_VARS', 'CREDENTIALS_CODE', 'CREDENTIALS_PROFILE']);

/** A local `HH:MM`. */
const clockTime = (ms: number) => new Date(ms).toTimeString().slice(0, 5);

/**
 * The refusal when the credentials end before the run does, else undefined. Credentials a profile renews (SSO, a
 * role, a credential_process) are left alone: the SDK fetches new ones before they expire. Exported ones
 * (AWS_SESSION_TOKEN with AWS_CREDENTIAL_EXPIRATION) end at their expiry, and every call after it fails. Pure.
 */
export function credentialsExpiryProblem(creds: ResolvedCredentials, needUntil: number, time: (ms: number) => string = clockTime): string | undefined {
  const expires = creds.expiration?.getTime();
  if (expires === undefined || expires >= needUntil) return undefined;
  if (Object.keys(creds.$source ?? {}).some((source) => !FIXED_CREDENTIALS.has(source))) return undefined;
  // Where they came from decides what to drop: exported variables win over a profile in the SDK's chain.
  const exported = Object.keys(creds.$source ?? {}).includes('CREDENTIALS_ENV_VARS');
  const renewing = exported ? 'a profile with SSO or role_arn, the exported AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN unset' : 'a profile with SSO or role_arn instead of fixed session keys';
  return `the AWS credentials expire at ${time(expires)}, the run needs them until ~${time(needUntil)} (its longest launch waits counted); use credentials that renew themselves (${renewing}), a longer session, or a shorter run`;
}

/** Refuses a run its credentials would not last (launch, load, collection). @throws UsageError */
async function checkCredentialsLast({ api, clock }: RunCheckContext, plan: Plan, sessionSeconds: number, budgets: FleetBudgets): Promise<void> {
  // GetCallerIdentity has just accepted them; an expiry the chain cannot tell is not checked.
  const creds = await api.credentials().catch(() => undefined);
  const needUntil = credentialsNeededUntil(clock.now(), plan, sessionSeconds, budgets);
  const problem = creds && credentialsExpiryProblem(creds, needUntil);
  if (problem) throw new UsageError(problem);
}

/** What the checks read: the deployed rig, its API, the user's options. */
export interface RunCheckContext {
  readonly api: AwsApi;
  readonly outputs: RigOutputs;
  readonly options: RunOptions;
  readonly log: (line: string) => void;
  readonly clock: Clock;
}

/** Nothing starts before these pass: credentials, region, bucket access, the generator group. */
export async function checkAccount({ api, outputs, log }: RunCheckContext): Promise<void> {
  const region = api.region;
  const bucket = outputs.resultsBucketName;
  try {
    await api.getCallerIdentity();
  } catch (err) {
    throw explainAwsError(err, { region, doing: 'checking the AWS credentials (STS GetCallerIdentity)' });
  }
  try {
    await api.headBucket(bucket);
  } catch (err) {
    const e = explainAwsError(err, { region, bucket, doing: `opening the results bucket ${bucket}` });
    if (e instanceof RigError && /NotFound|NoSuchBucket/.test(e.message)) {
      throw new UsageError(`the results bucket ${bucket} does not exist in ${region}: the stacks are not deployed (or ${outputs.source} is stale); run \`npm run deploy\``);
    }
    throw e;
  }
  try {
    const { inService, desired } = await groupInstances(api, outputs.generatorAsgName);
    if (inService.length || desired) log(`generator group ${outputs.generatorAsgName}: ${inService.length} in service (desired ${desired ?? 0}) before the run`);
  } catch (err) {
    if (err instanceof RigError) throw new UsageError(err.message);
    throw explainAwsError(err, { region, doing: `describing the generator group ${outputs.generatorAsgName}` });
  }
}

/**
 * The target of the run, checked with the account and quotas before anything scales. `sessionSeconds`: one vuser's
 * session past its arrival (scripts/run.ts); `budgets`: the fleet's (fleet-span.ts).
 */
export async function prepareTarget(ctx: RunCheckContext, plan: Plan, processesPerGenerator: number, sessionSeconds: number, budgets: FleetBudgets = FLEET_BUDGETS): Promise<string> {
  const { api, outputs, options, log, clock } = ctx;
  await checkAccount(ctx);
  await checkCredentialsLast(ctx, plan, sessionSeconds, budgets);
  // Quotas, zones and the cost estimate (--max-cost) before anything scales.
  await checkBeforeScaling({
    api, outputs, plan, log, generatorInstanceType: outputs.generatorInstanceType ?? DEFAULT_GENERATOR_INSTANCE_TYPE,
    processesPerGenerator, externalTarget: options.target !== undefined,
    ...(options.maxCost !== undefined ? { maxCost: options.maxCost } : {}), now: () => clock.now(),
  });
  const url = options.target ?? outputs.targetUrl?.replace(/\/+$/, '');
  if (!url) throw new UsageError(`the deployed rig has no target stack (targetKind none); pass --target URL of the system under test`);
  // The generators reach the target, not necessarily this machine (ALB restricted to the generators): warn only.
  // A connection only (no request): the target may be a user's own, and this machine is not one of the generators.
  await checkReachable(url, 3000, options.insecureTls === true, { http: false }).catch(() => log(`note: ${url} does not answer from this machine; the generators connect from their own network (the rig's target admits only them)`));
  // A target the user chose (--target, or the script's own config.target) was already printed with its source
  // (scripts/target-choice.ts); only the deployed stack's target is said here.
  if (!options.target) log(`target: ${url} (stack ${RIG_STACK_NAMES.target})`);
  return url;
}
