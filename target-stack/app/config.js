// @ts-check
'use strict';
/**
 * Environment parsing for the reference target. Pure: takes an env object, returns a config or throws a
 * ConfigError whose message names the variable and the accepted values.
 */
const os = require('node:os');

class ConfigError extends Error {}

/**
 * @typedef {object} TargetConfig
 * @property {number} port            0 = a free port chosen once by the primary and shared by every worker
 * @property {string} host
 * @property {number} workers
 * @property {string | undefined} redisUrl
 * @property {number} deliveryDelayMs  FAULT_DELIVERY_DELAY_MS
 * @property {number} withholdFraction FAULT_WITHHOLD_FRACTION
 * @property {number} cookie503Fraction FAULT_COOKIE_503_FRACTION
 * @property {string} seed             FAULT_SEED
 * @property {number} recoveryMs       connection state recovery window (ms)
 * @property {boolean} exitWithParent  EXIT_WITH_PARENT=1 (or true, yes, on): stop when the process that started us dies
 * @property {string | undefined} authToken AUTH_TOKEN: when set, /set-cookie needs `Authorization: Bearer <it>` and
 *                                    Socket.IO connections need `auth: { token: <it> }`
 */

/**
 * @param {NodeJS.ProcessEnv} env
 * @param {string} name
 * @param {number} dflt
 * @param {number} min
 * @param {number} max
 * @param {boolean} integer
 */
function num(env, name, dflt, min, max, integer) {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  const v = Number(raw);
  if (!Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    throw new ConfigError(
      `target: ${name}=${JSON.stringify(raw)} is invalid; expected ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`,
    );
  }
  return v;
}

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];

/**
 * A boolean variable: unset or empty is `dflt`; 1/true/yes/on and 0/false/no/off (any case); anything else is refused.
 * @param {NodeJS.ProcessEnv} env
 * @param {string} name
 * @param {boolean} dflt
 */
function bool(env, name, dflt) {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  const v = raw.trim().toLowerCase();
  if (TRUE.includes(v)) return true;
  if (FALSE.includes(v)) return false;
  throw new ConfigError(`target: ${name}=${JSON.stringify(raw)} is invalid; expected ${TRUE.slice(0, -1).join(', ')} or on (or ${FALSE.join(', ')})`);
}

/**
 * REDIS_URL: unset or empty is no Redis; else a redis:// or rediss:// URL with a host (node-redis would throw on
 * anything else once a worker started, as a stack trace).
 * @param {NodeJS.ProcessEnv} env
 */
function redisUrlOf(env) {
  const raw = env.REDIS_URL;
  if (raw === undefined || raw.trim() === '') return undefined;
  const url = raw.trim();
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['redis:', 'rediss:'].includes(parsed.protocol) || parsed.hostname === '') {
    throw new ConfigError(`target: REDIS_URL=${JSON.stringify(raw)} is invalid; expected a redis:// or rediss:// URL, e.g. redis://host:6379`);
  }
  return url;
}

/**
 * @param {NodeJS.ProcessEnv} env
 * @returns {TargetConfig}
 */
function loadConfig(env) {
  const host = env.HOST && env.HOST.trim() !== '' ? env.HOST.trim() : '0.0.0.0';
  const redisUrl = redisUrlOf(env);
  return {
    port: num(env, 'PORT', 3000, 0, 65535, true),
    host,
    workers: num(env, 'WORKERS', os.availableParallelism(), 1, 256, true),
    redisUrl,
    deliveryDelayMs: num(env, 'FAULT_DELIVERY_DELAY_MS', 0, 0, 600000, true),
    withholdFraction: num(env, 'FAULT_WITHHOLD_FRACTION', 0, 0, 1, false),
    cookie503Fraction: num(env, 'FAULT_COOKIE_503_FRACTION', 0, 0, 1, false),
    seed: env.FAULT_SEED ?? '',
    recoveryMs: 2 * 60 * 1000,
    exitWithParent: bool(env, 'EXIT_WITH_PARENT', false),
    authToken: env.AUTH_TOKEN && env.AUTH_TOKEN !== '' ? env.AUTH_TOKEN : undefined,
  };
}

module.exports = { loadConfig, ConfigError };
