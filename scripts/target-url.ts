/**
 * A target URL's form, checked wherever one is given (`--target`, a script's `config.target`, a ws connect step's own
 * URL) before anything starts: one line naming what is wrong, never the URL's secrets. Pure.
 */
import { redactUrl } from './core/redact';
import { UsageError } from './errors';

/** Checks a target URL's form: http(s) for every engine, ws(s) for scripts (Artillery's ws and socketio engines take it). */
export function checkTargetUrl(value: string, where: string, allowWebSocket: boolean): string {
  // Never echoed whole: a mistyped URL may still carry a password or a token (redactUrl hides them as text).
  const shown = JSON.stringify(redactUrl(value));
  const example = `e.g. http://127.0.0.1:3000${allowWebSocket ? ' or ws://127.0.0.1:3000/path' : ''}`;
  // `127.0.0.1:4101` is no URL and `localhost:4101` is one of scheme `localhost:`: both lack `scheme://`.
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value.trim()) && /^\S+$/.test(value.trim())) throw new UsageError(`${where} ${shown} has no scheme; write it as http://${redactUrl(value.trim())} (${example})`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    const port = /^[^:]+:\/\/(?:[^@/?#]*@)?(?:\[[^\]]*\]|[^:/?#]*):(\d+)(?:[/?#]|$)/.exec(value.trim())?.[1];
    const why = port !== undefined && Number(port) > 65535 ? `: port ${port} is out of range (1-65535)` : '';
    throw new UsageError(`${where} ${shown} is not a URL${why}; ${example}`);
  }
  if (url.port === '0') throw new UsageError(`${where} ${redactUrl(value)} has port 0, which no server listens on; give the target's port (1-65535)`);
  const ok = ['http:', 'https:', ...(allowWebSocket ? ['ws:', 'wss:'] : [])];
  if (!ok.includes(url.protocol)) {
    throw new UsageError(
      allowWebSocket
        ? `${where} ${redactUrl(value)} must be http://, https://, ws:// or wss://${where === '--target' ? " (or --target reference for the rig's reference target)" : ''}`
        : `${where} ${redactUrl(value)} must be http:// or https:// for the built-in scenarios (they fetch a cookie over HTTP; Socket.IO upgrades to WebSocket itself)`,
    );
  }
  // The built-in scenarios append their paths to the target as text (`${target}/set-cookie`), and Socket.IO reads a
  // query as its handshake's: `http://x/?token=1` would request `/?token=1/set-cookie`, every vuser failing after a
  // preflight that passed. Their target is a base URL.
  if (!allowWebSocket && (url.search || url.hash)) {
    // Not echoed: a query often carries a token, and the message may be written to --output.
    const base = redactUrl(`${url.origin}${url.pathname}`).replace(/\/+$/, '');
    throw new UsageError(
      `${where} has ${url.search ? 'a query string' : 'a fragment'}, which the built-in scenarios cannot use: they append their own paths (/set-cookie, /socket.io) to the target. Give the base URL (${base}); a token for the target goes in RIG_SECRET_AUTH_TOKEN (docs/reliability.md, Secrets)`,
    );
  }
  // Paths are kept (a prefix behind a proxy). An http(s) target loses a trailing slash: Artillery's HTTP engine
  // appends each `/path` to it as text, so `http://x/` would request `http://x//items`. A ws(s) target is the
  // endpoint the ws engine connects to, kept exactly (`ws://x/feed/` is not `ws://x/feed` to every server). The
  // scheme is written in lower case: RFC 3986 §3.1 makes schemes case-insensitive, but Artillery's HTTP engine
  // fails every request to `HTTP://…` ("Invalid URL"); chooseTarget says so on the target line.
  const written = value.trim().replace(/^[A-Za-z][A-Za-z0-9+.-]*:/, (scheme) => scheme.toLowerCase());
  return url.protocol === 'ws:' || url.protocol === 'wss:' ? written : written.replace(/\/+$/, '');
}
