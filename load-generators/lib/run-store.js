// @ts-check
'use strict';
/**
 * The run store: where a run's control files and every generator's raw data live.
 * One small interface, two adapters — a local folder (local platform, and tests) and an S3 prefix
 * (AWS platform) — shared by the agent and the orchestrator. The keys and the JSON behind them are
 * named in one place, ./run-protocol.js.
 */
const fs = require('node:fs');
const path = require('node:path');

/** @typedef {import('./run-protocol').RunStore} RunStore */

/**
 * A run store in a local folder. Writes are atomic (temp file + rename) so a reader never sees half a file.
 * @param {string} root
 * @returns {RunStore}
 */
function localStore(root) {
  const abs = path.resolve(root);
  const fileOf = (/** @type {string} */ key) => {
    const file = path.resolve(abs, key);
    if (!file.startsWith(abs + path.sep)) throw new Error(`run store: key escapes the run folder: ${key}`);
    return file;
  };
  return {
    location: abs,
    async put(key, body) {
      const file = fileOf(key);
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      await fs.promises.writeFile(tmp, body);
      await fs.promises.rename(tmp, file);
    },
    async get(key) {
      try {
        return await fs.promises.readFile(fileOf(key), 'utf8');
      } catch (err) {
        if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    /** Keys that start with `prefix`, as S3 lists them: `generators/g01/p` matches `generators/g01/p0/…`, not `generators/g01/health/…`. */
    async list(prefix) {
      const folder = prefix.slice(0, prefix.lastIndexOf('/') + 1).replace(/\/+$/, '');
      const dir = folder ? fileOf(folder) : abs;
      /** @type {string[]} */
      const out = [];
      /** @param {string} d */
      const walk = async (d) => {
        let entries;
        try {
          entries = await fs.promises.readdir(d, { withFileTypes: true });
        } catch (err) {
          if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') return;
          throw err;
        }
        for (const e of entries) {
          const p = path.join(d, e.name);
          if (e.isDirectory()) await walk(p);
          else if (!e.name.endsWith('.tmp')) out.push(path.relative(abs, p).split(path.sep).join('/'));
        }
      };
      await walk(dir);
      return out.filter((k) => k.startsWith(prefix)).sort();
    },
  };
}

/**
 * A run store under an S3 prefix (`s3://bucket/prefix`). The client is injected (built once at the edge).
 * @param {string} url
 * @param {{ send: (cmd: any) => Promise<any> }} client an S3Client
 * @returns {RunStore}
 */
function s3Store(url, client) {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!m) throw new Error(`run store: not an s3:// URL: ${url}`);
  const bucket = /** @type {string} */ (m[1]);
  const base = (m[2] || '').replace(/\/+$/, '');
  const keyOf = (/** @type {string} */ key) => (base ? `${base}/${key}` : key);
  // Loaded lazily so the local path never needs the SDK.
  const s3 = () => require('@aws-sdk/client-s3');
  return {
    location: url,
    async put(key, body) {
      await client.send(new (s3().PutObjectCommand)({ Bucket: bucket, Key: keyOf(key), Body: body }));
    },
    async get(key) {
      try {
        const res = await client.send(new (s3().GetObjectCommand)({ Bucket: bucket, Key: keyOf(key) }));
        return await res.Body.transformToString();
      } catch (err) {
        if (err instanceof s3().NoSuchKey || /** @type {any} */ (err).name === 'NoSuchKey') return undefined;
        throw err;
      }
    },
    async list(prefix) {
      /** @type {string[]} */
      const out = [];
      let token;
      do {
        const res = await client.send(
          new (s3().ListObjectsV2Command)({ Bucket: bucket, Prefix: keyOf(prefix), ContinuationToken: token }),
        );
        for (const o of res.Contents || []) out.push(base ? o.Key.slice(base.length + 1) : o.Key);
        token = res.IsTruncated ? res.NextContinuationToken : undefined;
      } while (token);
      return out.sort();
    },
  };
}

/** The agent's S3 client: standard retry mode with 8 attempts. */
const S3_CLIENT_CONFIG = Object.freeze({ maxAttempts: 8, retryMode: 'standard' });

/**
 * Opens the store a location names: `s3://…` or a folder.
 * @param {string} location
 * @param {{ s3Client?: () => any }} [deps]
 * @returns {RunStore}
 */
function openStore(location, deps = {}) {
  if (location.startsWith('s3://')) {
    // S3 documents 500 and 503 SlowDown as retryable: more attempts than the SDK's 3 (up to ~25 s of backoff)
    // before an error reaches the agent, which rides out longer failures itself (store-tolerance.js).
    const make = deps.s3Client || (() => new (require('@aws-sdk/client-s3').S3Client)(S3_CLIENT_CONFIG));
    return s3Store(location, make());
  }
  return localStore(location);
}

module.exports = { localStore, s3Store, openStore, S3_CLIENT_CONFIG };
