/**
 * Whether a target answers at all (edge adapter): one HTTP request, on any platform, before a run starts.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { redactUrl } from '../core/redact';
import { UsageError } from '../errors';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { UNTRUSTED_CERT, UNTRUSTED_CERT_FIX } = require('../../load-generators/lib/probe-steps') as { UNTRUSTED_CERT: RegExp; UNTRUSTED_CERT_FIX: string };

/**
 * Checks that something answers HTTP at the target; a refusal is bad input (exit 2), nothing started.
 * `insecureTls`: the script's `config.tls.rejectUnauthorized` is false, so any certificate is accepted, as Artillery does.
 */
export function checkReachable(url: string, timeoutMs = 5000, insecureTls = false): Promise<void> {
  return new Promise((resolve, reject) => {
    // A ws:// or wss:// target (engine: ws) answers HTTP on the same port: any response proves it is up.
    const httpUrl = url.replace(/^ws(s?):/i, 'http$1:');
    const client = httpUrl.startsWith('https:') ? https : http;
    const req = client.get(`${httpUrl}/socket.io/?EIO=4&transport=polling`, { timeout: timeoutMs, ...(insecureTls ? { rejectUnauthorized: false } : {}) }, (res) => {
      res.resume();
      resolve();
    });
    let connected = false;
    req.on('socket', (socket) => socket.once(httpUrl.startsWith('https:') ? 'secureConnect' : 'connect', () => (connected = true)));
    req.on('timeout', () => req.destroy(Object.assign(new Error('no answer'), { code: 'ETIMEDOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? err.message;
      const where = `target ${redactUrl(url)}`;
      if (UNTRUSTED_CERT.test(code)) reject(new UsageError(`${where}: TLS failed (${code}): ${UNTRUSTED_CERT_FIX}`));
      else if (connected && code === 'ETIMEDOUT') reject(new UsageError(`${where} accepted the connection but sent no HTTP answer within ${timeoutMs / 1000} s; check that an HTTP server listens there and is not stalled`));
      else reject(new UsageError(`${where} is unreachable (${code}); start the target or fix the URL (--target, or the script's config.target)`));
    });
  });
}
