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
  },
): Error {
  const { region, doing } = context;
  if (err instanceof UsageError || err instanceof RigError) return err;
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
