/**
 * Whether a target answers at all (edge adapter), on any platform, before a run starts: one HTTP request, or only a
 * connection for a target whose script would never send that request.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { redactUrl } from '../core/redact';
import { InterruptedBeforeStart, TargetFailure, UsageError } from '../errors';
import { requestWithin } from '../../load-generators/lib/http-deadline';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { UNTRUSTED_CERT, UNTRUSTED_CERT_FIX, connectOnce, schemeMismatch, noAnswer } = require('../../load-generators/lib/probe-steps') as {
  UNTRUSTED_CERT: RegExp;
  UNTRUSTED_CERT_FIX: string;
  connectOnce(address: string, port: number, servername: string, secure: boolean, timeoutMs: number, localAddress: string | undefined, insecure: boolean, signal?: AbortSignal): Promise<void>;
  schemeMismatch(err: unknown, url: URL, timeoutMs: number, localAddress: string | undefined): Promise<string | undefined>;
  noAnswer(timeoutMs: number): string;
};

/**
 * The one rule the preflight follows too (docs/reliability.md): what the URL or the trust settings get wrong is bad
 * input (exit 2: a name that does not resolve, the wrong scheme, an untrusted certificate); a target that refuses,
 * times out or answers nothing is the target's failure (exit 3).
 */
async function reachError(err: NodeJS.ErrnoException, url: string, connected: boolean, timeoutMs: number, namedBy?: string, untrustedFix = UNTRUSTED_CERT_FIX): Promise<UsageError | TargetFailure> {
  const code = err.code ?? err.message;
  const where = `target ${redactUrl(url)}`;
  if (UNTRUSTED_CERT.test(code)) return new UsageError(`${where}: TLS failed (${code}): ${untrustedFix}`);
  const u = new URL(url);
  if (code === 'ENOTFOUND' || code === 'EAI_NONAME') return new UsageError(`${where}: the name ${u.hostname} does not resolve (${code}); check the host in the URL`);
  if (connected && code === 'ETIMEDOUT') return new TargetFailure(`${where} ${noAnswer(timeoutMs)}`);
  const scheme = code === 'ECONNREFUSED' || code === 'ETIMEDOUT' ? undefined : await schemeMismatch(err, u, timeoutMs, undefined);
  if (scheme) return new UsageError(`${where}: ${scheme} (${code})`);
  return new TargetFailure(`${where} is unreachable (${code}); start the target or fix the URL (${namedBy ?? "--target, or the script's config.target"})`);
}

/** Options of {@link checkReachable}. */
export interface ReachableOptions {
  /**
   * Ask the target an HTTP question (a Socket.IO polling handshake, what a Socket.IO client sends first), which also
   * finds a server that accepts connections but never answers. Off, only the connection (and TLS) is made and nothing
   * is sent: a user's own non-Socket.IO target gets no request its script does not make. @default true
   */
  readonly http?: boolean;
  /** What names the URL, for the fix an unreachable one's line suggests. @default "--target, or the script's config.target" */
  readonly namedBy?: string;
  /** The fix an untrusted certificate's line names. @default UNTRUSTED_CERT_FIX (-k, or config.tls.rejectUnauthorized: false) */
  readonly untrustedFix?: string;
  /** The run's Ctrl-C: the check's connection is closed and it rejects with InterruptedBeforeStart at once. */
  readonly signal?: AbortSignal;
}

/**
 * Checks that the target answers; nothing is started either way. A wrong URL is bad input (exit 2), a target that
 * does not answer is the target's failure (exit 3): see reachError.
 * `insecureTls`: the script's `config.tls.rejectUnauthorized` is false, so any certificate is accepted, as Artillery does.
 */
export function checkReachable(url: string, timeoutMs = 5000, insecureTls = false, opts: ReachableOptions = {}): Promise<void> {
  const { signal } = opts;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new InterruptedBeforeStart());
    // A ws:// or wss:// target (engine: ws) answers HTTP on the same port: any response proves it is up.
    const httpUrl = url.replace(/^ws(s?):/i, 'http$1:');
    const secure = httpUrl.startsWith('https:');
    let connected = false;
    // Aborted: nothing more is asked (reachError's scheme check would open another connection).
    const failed = (err: NodeJS.ErrnoException) => (signal?.aborted ? reject(new InterruptedBeforeStart()) : void reachError(err, url, connected, timeoutMs, opts.namedBy, opts.untrustedFix).then(reject, reject));
    if (opts.http === false) {
      // The preflight's own connect step (TCP, then TLS for https/wss): nothing is written on the connection.
      const u = new URL(httpUrl);
      const host = u.hostname.replace(/^\[|\]$/g, '');
      connectOnce(host, Number(u.port) || (secure ? 443 : 80), host, secure, timeoutMs, undefined, insecureTls, signal).then(resolve, failed);
      return;
    }
    const client = secure ? https : http;
    // The answer's headers are the proof; the body is not read, and the connection is closed once they are in (it was
    // drained in the background after the check passed, for ever on an answer that never ends). Nothing may take
    // longer than `timeoutMs` in all, headers trickled a line at a time included (requestWithin).
    requestWithin<void>(
      timeoutMs,
      (onResponse) => {
        const req = client.get(`${httpUrl}/socket.io/?EIO=4&transport=polling`, { ...(insecureTls ? { rejectUnauthorized: false } : {}), ...(signal ? { signal } : {}) }, onResponse);
        req.on('socket', (socket) => socket.once(secure ? 'secureConnect' : 'connect', () => (connected = true)));
        return req;
      },
      (res, done) => {
        done();
        res.destroy();
      },
    ).then(resolve, failed);
  });
}
