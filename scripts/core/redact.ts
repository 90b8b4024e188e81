/**
 * Credentials in a target URL (`http://user:password@host`) and the values of its query string (`?token=…`, where a
 * token often travels) are used for the connection but never shown or stored: every place the URL is printed or
 * written takes the redacted form (`http://***:***@host/?token=***`). Pure.
 */
// The query's rule is shared with the probe, which runs on generators (load-generators/lib cannot import scripts/).
import { redactQuery } from '../../load-generators/lib/redact-query';

const SCHEMES = ['http:', 'https:', 'ws:', 'wss:'];

/**
 * A URL that does not parse (`http://bob:pa/ss99@host`, `bob:pw@host:3000`), as text: anything before the last `@`
 * ahead of the query is taken for user:password, the query's values and a fragment are hidden.
 */
function redactLoose(text: string): string {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?([^?#]*)(\?[^#]*)?(#.*)?$/s.exec(text);
  if (!m) return text;
  const [, scheme = '', rest = '', query = '', hash = ''] = m;
  const at = rest.lastIndexOf('@');
  return `${scheme}${at >= 0 ? `***:***${rest.slice(at)}` : rest}${redactQuery(query)}${hash ? '#***' : ''}`;
}

/**
 * The URL with any user name and password, every query value and a fragment replaced by `***` (unchanged when it
 * has none). A string that is not an http(s)/ws(s) URL is redacted as text (see redactLoose), never echoed whole.
 */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return redactLoose(url);
  }
  if (!SCHEMES.includes(u.protocol)) return redactLoose(url);
  const search = redactQuery(u.search);
  if (!u.username && !u.password && search === u.search && !u.hash) return url;
  if (u.username) u.username = '***';
  if (u.password) u.password = '***';
  u.search = search;
  if (u.hash) u.hash = '***';
  const out = u.toString();
  // URL adds a trailing slash to a bare origin; keep the caller's form.
  return url.endsWith('/') ? out : out.replace(/\/$/, '');
}

/** The options with the target's credentials redacted (for run.json and reports). */
export function redactOptions<T extends { readonly target?: string }>(options: T): T {
  return options.target === undefined ? options : { ...options, target: redactUrl(options.target) };
}

/** Redacts every http(s)/ws(s) URL inside free text (log lines, error messages) as {@link redactUrl} does. */
export function redactText(text: string): string {
  // A backslash ends a URL: in JSON text it escapes the quote after it.
  return text.replace(/\b(?:https?|wss?):\/\/[^\s"'<>`\\]+/gi, (url) => redactUrl(url));
}

/**
 * Where a target URL's secrets (user:password, query values) could be kept out of every stored file: locally the
 * agents get the URL through their environment. On AWS the generators read their slice from S3 (and the run folder
 * keeps a copy), and an SSM command's parameters stay in the command history, so such a URL would be stored: refused
 * with the way that keeps it secret (the secrets path). Returns the one-line reason, or undefined when the URL may be used.
 */
export function storedCredentialsProblem(platform: 'local' | 'aws', target: string | undefined): string | undefined {
  if (platform !== 'aws' || target === undefined || redactUrl(target) === target) return undefined;
  return `target ${redactUrl(target)} carries credentials or query values, which on --platform aws would be stored in the run's S3 slices; pass the URL without them and give the secret through the secrets path (/loadtest-rig/secrets/, read as RIG_SECRET_<NAME>; see docs/aws-security.md)`;
}
