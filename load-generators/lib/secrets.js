// @ts-check
'use strict';
/**
 * Scenario secrets on AWS: SecureString parameters under an SSM Parameter Store path (default
 * /loadtest-rig/secrets/, readable by the generator role only) become RIG_SECRET_<NAME> environment
 * variables of the load processes — the same variables a local run takes from the user's shell.
 * Read with the instance's AWS CLI through execFile (no shell: a secret's value is never interpreted),
 * and never written to a file, a log or the run store.
 */
const { execFileSync } = require('node:child_process');

/**
 * The environment variable a parameter becomes: its last path segment, upper-cased, non-alphanumerics as `_`.
 * @param {string} parameterName e.g. /loadtest-rig/secrets/auth-token
 */
function secretEnvName(parameterName) {
  const last = parameterName.split('/').filter(Boolean).pop() || '';
  return `RIG_SECRET_${last.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * Reads every parameter under `path` (decrypted) and returns them as RIG_SECRET_* variables.
 * @param {string} path
 * @param {(file: string, args: string[]) => string} [exec] injected in tests; the AWS CLI by default
 * @returns {Record<string, string>}
 */
function loadSsmSecrets(path, exec = (file, args) => execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) {
  /** @type {Record<string, string>} */
  const env = {};
  let token;
  do {
    const args = ['ssm', 'get-parameters-by-path', '--path', path, '--recursive', '--with-decryption', '--output', 'json'];
    if (token) args.push('--starting-token', token);
    const page = JSON.parse(exec('aws', args) || '{}');
    for (const p of page.Parameters || []) {
      if (typeof p.Name === 'string' && typeof p.Value === 'string') env[secretEnvName(p.Name)] = p.Value;
    }
    token = page.NextToken;
  } while (token);
  return env;
}

module.exports = { loadSsmSecrets, secretEnvName };
