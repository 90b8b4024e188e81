/**
 * Whether a target answers at all (edge adapter): one HTTP request, on any platform, before a run starts.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { redactUrl } from '../core/redact';
import { UsageError } from '../errors';

/** Checks that something answers HTTP at the target; a refusal is bad input (exit 2), nothing started. */
export function checkReachable(url: string, timeoutMs = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    // A ws:// or wss:// target (engine: ws) answers HTTP on the same port: any response proves it is up.
    const httpUrl = url.replace(/^ws(s?):/i, 'http$1:');
    const client = httpUrl.startsWith('https:') ? https : http;
    const req = client.get(`${httpUrl}/socket.io/?EIO=4&transport=polling`, { timeout: timeoutMs }, (res) => {
      res.resume();
      resolve();
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('no answer'), { code: 'ETIMEDOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => {
      reject(new UsageError(`target ${redactUrl(url)} is unreachable (${err.code ?? err.message}); start the target or fix the URL (--target, or the script's config.target)`));
    });
  });
}
