// @ts-check
'use strict';
/**
 * Scenario secrets on AWS: SecureString parameters under an SSM Parameter Store path (default
 * /loadtest-rig/secrets/, readable by the generator role only) become RIG_SECRET_<NAME> environment
 * variables of the load processes — the same variables a local run takes from the user's shell.
 * Read with the AWS SDK (GetParametersByPath, decrypted) and never written to a file, a log or the run store.
 *
 * What a read means for the run:
 * - parameters found: their variables;
 * - the path is empty, or the role may not read it (AccessDenied): no secrets, with a note the run
 *   output shows once (scenarios that need a secret then fail visibly, as they would locally);
 * - anything else (throttling, a network or KMS failure, a malformed path): an error, and the agent
 *   stops before it reports ready, which stops every generator of the run — a run with some generators
 *   holding secrets and others not would measure two different things.
 */

/**
 * The environment variable a parameter becomes: its last path segment, upper-cased, non-alphanumerics as `_`.
 * @param {string} parameterName e.g. /loadtest-rig/secrets/auth-token
 */
function secretEnvName(parameterName) {
  const last = parameterName.split('/').filter(Boolean).pop() || '';
  return `RIG_SECRET_${last.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** @typedef {{ Path: string, Recursive: boolean, WithDecryption: boolean, NextToken?: string }} PageInput */
/** @typedef {{ Parameters?: Array<{ Name?: string, Value?: string }>, NextToken?: string }} PageOutput */

/** @param {unknown} err */
function isAccessDenied(err) {
  const e = /** @type {{ name?: string, $metadata?: { httpStatusCode?: number } } | undefined} */ (err);
  return e?.name === 'AccessDeniedException' || e?.name === 'AccessDenied' || e?.$metadata?.httpStatusCode === 403;
}

/**
 * Reads every parameter under `path` (decrypted).
 * @param {string} path
 * @param {(input: PageInput) => Promise<PageOutput>} [getPage] injected in tests; the SDK's GetParametersByPath by default
 * @returns {Promise<{ env: Record<string, string>, note?: string }>}
 * @throws {Error} on any failure other than access denied
 */
async function loadSsmSecrets(path, getPage = sdkGetPage()) {
  /** @type {Record<string, string>} */
  const env = {};
  /** @type {string | undefined} */
  let token;
  try {
    do {
      const page = await getPage({ Path: path, Recursive: true, WithDecryption: true, ...(token ? { NextToken: token } : {}) });
      for (const p of page.Parameters || []) {
        if (typeof p.Name === 'string' && typeof p.Value === 'string') env[secretEnvName(p.Name)] = p.Value;
      }
      token = page.NextToken;
    } while (token);
  } catch (err) {
    if (!isAccessDenied(err)) {
      const e = /** @type {Error} */ (err);
      throw new Error(`cannot read scenario secrets under ${path} (${e.name}: ${String(e.message).split('\n')[0]}); every generator stops — fix the parameter store access or the path and run again`, { cause: err });
    }
    const e = /** @type {Error} */ (err);
    return { env: {}, note: `scenario secrets: none (the generator role may not read ${path}: ${e.name}); scenarios see no RIG_SECRET_* variables` };
  }
  const n = Object.keys(env).length;
  if (n === 0) return { env, note: `scenario secrets: none (no parameters under ${path})` };
  return { env };
}

/** GetParametersByPath through the SDK (installed next to the agent; region and credentials from the instance). */
function sdkGetPage() {
  /** @type {any} */
  let client;
  return async (/** @type {PageInput} */ input) => {
    const ssm = require('@aws-sdk/client-ssm');
    client = client || new ssm.SSMClient({});
    return client.send(new ssm.GetParametersByPathCommand(input));
  };
}

module.exports = { loadSsmSecrets, secretEnvName };
