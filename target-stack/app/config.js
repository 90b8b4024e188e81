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
 * @property {boolean} exitWithParent  EXIT_WITH_PARENT=1: stop when the process that started us dies
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

/**
 * @param {NodeJS.ProcessEnv} env
 * @returns {TargetConfig}
 */
function loadConfig(env) {
  const host = env.HOST && env.HOST.trim() !== '' ? env.HOST.trim() : '0.0.0.0';
  const redisUrl = env.REDIS_URL && env.REDIS_URL.trim() !== '' ? env.REDIS_URL.trim() : undefined;
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
    exitWithParent: env.EXIT_WITH_PARENT === '1',
    authToken: env.AUTH_TOKEN && env.AUTH_TOKEN !== '' ? env.AUTH_TOKEN : undefined,
  };
}

module.exports = { loadConfig, ConfigError };
