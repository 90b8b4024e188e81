/**
 * Turns the AWS failures a user can fix (no credentials, wrong region, access denied) into one clear
 * line. SDK service errors are matched with `instanceof` on the clients' exported exception classes;
 * the credential chain's error and Node's network errors have no exported class in the clients we
 * depend on, so those two are matched by name / errno code.
 */
import { S3ServiceException } from '@aws-sdk/client-s3';
import { STSServiceException } from '@aws-sdk/client-sts';
import { RigError, UsageError } from '../../errors';

/** Credential chain failure: @smithy/property-provider's CredentialsProviderError (not re-exported by the clients). */
export function isNoCredentials(err: unknown): boolean {
  return err instanceof Error && (err.name === 'CredentialsProviderError' || /Could not load credentials/i.test(err.message));
}

/**
 * The error names AWS gives credentials that were good and are no longer: an expired session token (STS, S3, SSM:
 * `ExpiredToken`/`ExpiredTokenException`; Auto Scaling and CloudWatch answer it as HTTP 403), a request signed with
 * expired keys (`RequestExpired`), keys revoked or expired (`InvalidClientTokenId`), an S3 token to refresh.
 */
const EXPIRED_CREDENTIALS = new Set(['ExpiredToken', 'ExpiredTokenException', 'RequestExpired', 'InvalidClientTokenId', 'TokenRefreshRequired']);

/** Credentials AWS no longer accepts; mid-run, a chain that finds none any more (an SSO session ended) too. */
export function isExpiredCredentials(err: unknown, midRun = false): boolean {
  if (!(err instanceof Error)) return false;
  // Keys mistyped from the start are InvalidClientTokenId too: only once they had worked is that an expiry.
  if (EXPIRED_CREDENTIALS.has(err.name)) return midRun || err.name !== 'InvalidClientTokenId';
  return isNoCredentials(err) && (midRun || /expired/i.test(err.message));
}

/**
 * The commercial regions an account must enable before use (opt-in regions; aws-cdk-lib's region facts,
 * `RegionInfo.isOptInRegion`, which test/unit/aws-errors.test.ts compares with this list).
 */
export const OPT_IN_REGIONS: ReadonlySet<string> = new Set([
  'af-south-1', 'ap-east-1', 'ap-east-2', 'ap-south-2', 'ap-southeast-3', 'ap-southeast-4', 'ap-southeast-5', 'ap-southeast-6', 'ap-southeast-7',
  'ca-west-1', 'eu-central-2', 'eu-south-1', 'eu-south-2', 'il-central-1', 'me-central-1', 'me-south-1', 'me-west-1', 'mx-central-1',
]);

/** The names AWS gives a request whose credentials it cannot validate at all (STS and most query APIs; EC2; JSON APIs). */
const UNRECOGNIZED_CREDENTIALS = new Set(['InvalidClientTokenId', 'AuthFailure', 'UnrecognizedClientException']);

/**
 * In an opt-in region, credentials AWS cannot validate mean one of three things: the region is not enabled for the
 * account; they are session tokens from STS's global endpoint, which by default issues version 1 tokens, "valid only in
 * AWS Regions that are available by default" and not in manually enabled ones (IAM API Reference,
 * SetSecurityTokenServicePreferences); or, as anywhere, the keys themselves are invalid (mistyped, deactivated,
 * deleted). "Refresh them" fixes none of them. The same call in a region enabled by default tells the last apart: it
 * fails only for invalid keys. Undefined elsewhere.
 */
function optInRegionRefusal(err: unknown, region: string, doing: string): UsageError | undefined {
  const name = (err as { name?: string } | undefined)?.name ?? '';
  if (!OPT_IN_REGIONS.has(region) || !UNRECOGNIZED_CREDENTIALS.has(name)) return undefined;
  return new UsageError(
    `AWS did not accept the credentials in ${region}, an opt-in region, while ${doing} (${name}): either the region is not enabled for this account ` +
      `(enable it: AWS console → Account → AWS Regions, or aws account enable-region --region-name ${region}), or they are session tokens from STS's global endpoint, ` +
      'which by default are valid only in the regions enabled by default: get them from the regional endpoint (AWS_STS_REGIONAL_ENDPOINTS=regional, or your SSO/assume-role tool\'s region setting) ' +
      'or have an administrator set the global endpoint to issue version 2 tokens (aws iam set-security-token-service-preferences --global-endpoint-token-version v2Token); ' +
      'if `aws sts get-caller-identity --region us-east-1` (a region enabled by default) fails too, neither: the keys themselves are invalid, deactivated or deleted (replace them)',
  );
}

/** DNS or connection failure reaching the regional endpoint (a mistyped region has no endpoint). */
export function isUnreachable(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  return code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ECONNREFUSED' || code === 'ETIMEDOUT';
}

/** What an AWS error means for the run, as an error the CLI maps to an exit code. */
export function explainAwsError(
  err: unknown,
  context: {
    readonly region: string;
    readonly bucket?: string;
    readonly doing: string;
    /** The command is loadtest, which can run without AWS: the no-credentials line offers --platform local. */
    readonly localAlternative?: boolean;
    /** Where the region came from, named in the unreachable line (default: AWS_REGION). */
    readonly regionFrom?: string;
    /**
     * The run had started (its generators may be up): how to stop them by hand. Every error is then a rig failure
     * (exit 3, never "nothing was started"), and expired credentials say so with this command.
     */
    readonly started?: { readonly stopGenerators: string; readonly beforeScaling?: boolean };
  },
): Error {
  const { region, doing } = context;
  if (err instanceof UsageError || err instanceof RigError) return err;
  if (context.started) return explainMidRun(err, { ...context, started: context.started });
  const optIn = optInRegionRefusal(err, region, doing);
  if (optIn) return optIn;
  if (isExpiredCredentials(err)) {
    return new UsageError(`the AWS credentials expired while ${doing} (${(err as Error).name}); refresh them (aws sso login / a new session) and retry`);
  }
  if (isNoCredentials(err)) {
    return new UsageError(`no AWS credentials found while ${doing}; configure them (aws configure, AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY)${context.localAlternative === false ? '' : ' or run with --platform local'}`);
  }
  if (isUnreachable(err)) {
    return new UsageError(`cannot reach AWS in region "${region}" while ${doing} (${(err as { code?: string }).code}); check ${context.regionFrom ?? 'AWS_REGION'} (the region you deployed to) and your network`);
  }
  if (err instanceof STSServiceException) {
    if (err.name === 'RegionDisabledException') return new UsageError(`region "${region}" is not enabled for this account; set AWS_REGION to the region you deployed to`);
    return new UsageError(`AWS rejected the credentials while ${doing} (${err.name}: ${err.message}); refresh them (aws sso login, new keys) and retry`);
  }
  if (err instanceof S3ServiceException && (err.$metadata.httpStatusCode === 403 || err.name === 'AccessDenied')) {
    return new UsageError(`access denied on the results bucket ${context.bucket ?? ''} while ${doing}; the credentials need s3:GetObject/PutObject/ListBucket on it (deploy with the same account or grant access)`);
  }
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  if (e?.$metadata?.httpStatusCode === 403 || /AccessDenied|UnauthorizedOperation/.test(e?.name ?? '')) {
    return new UsageError(`access denied while ${doing} (${e.name}: ${e.message}); the credentials need the rig's permissions (see README.md)`);
  }
  // One line: a service's message may carry its XML or JSON body over several.
  return new RigError(`AWS error while ${doing} in ${region}: ${e?.name ?? 'Error'}: ${String(e?.message ?? err).replace(/\s+/g, ' ').trim()}`);
}

/** An AWS error once the run had started: a rig failure, and expired credentials named with how to stop the generators. */
function explainMidRun(err: unknown, context: Parameters<typeof explainAwsError>[1] & { readonly started: { readonly stopGenerators: string; readonly beforeScaling?: boolean } }): RigError {
  if (isExpiredCredentials(err, true) && context.started.beforeScaling) {
    // Opened, but this region's group not scaled yet (suspending scale-in / AZRebalance comes first). Its suspensions
    // stay marked until their deadline (the restore failed too); another region's launch may have begun meanwhile.
    return new RigError(`the AWS credentials expired as the run opened (${(err as Error).name} while ${context.doing}); this region's generators were not started: refresh them (aws sso login / a new session) and run again; what the run had suspended is restored past its deadline by the safety net or npm run leftovers (or now, by the command above); with generators in other regions, also ${context.started.stopGenerators}`);
  }
  if (isExpiredCredentials(err, true)) {
    return new RigError(`the AWS credentials expired mid-run (${(err as Error).name} while ${context.doing}); the generator group may still be running: refresh them (aws sso login / a new session), then ${context.started.stopGenerators}`);
  }
  const e = explainAwsError(err, { ...context, started: undefined });
  return e instanceof RigError ? e : new RigError(e.message);
}

/** The generator groups the deployed rig's outputs name (cdk-outputs.json): the home region's and each other's. */
export interface GeneratorGroups {
  readonly generatorAsgName: string;
  readonly region?: string;
  readonly regions?: ReadonlyArray<{ readonly generatorAsgName: string; readonly region: string }>;
}

/**
 * How to scale the run's generator groups to 0 by hand: one command per group (another region's with --region), or,
 * without the outputs, the command with the group to fill in.
 */
export function stopGeneratorsCommand(outputs: GeneratorGroups | undefined): string {
  const command = (name: string, region?: string) => `\`aws autoscaling set-desired-capacity --auto-scaling-group-name ${name} --desired-capacity 0${region ? ` --region ${region}` : ''}\``;
  if (!outputs) return `scale it to 0: ${command('<the GeneratorAsgName output of LoadTestRig-Generators>')}`;
  const groups = [{ name: outputs.generatorAsgName, region: outputs.region }, ...(outputs.regions ?? []).map((r) => ({ name: r.generatorAsgName, region: r.region }))];
  return `scale ${groups.length === 1 ? 'it' : 'them'} to 0: ${groups.map((g) => command(g.name, g.region)).join(' and ')}`;
}
