/**
 * Credentials in a target URL (`http://user:password@host`) are used for the connection but never shown
 * or stored: every place the URL is printed or written takes the redacted form. Pure.
 */
import type { RunOptions } from '../options';

/** The URL with any user name and password replaced by `***` (unchanged when it has none or is not a URL). */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (!u.username && !u.password) return url;
  u.username = '***';
  if (u.password) u.password = '***';
  const out = u.toString();
  // URL adds a trailing slash to a bare origin; keep the caller's form.
  return url.endsWith('/') ? out : out.replace(/\/$/, '');
}

/** The options with the target's credentials redacted (for run.json and reports). */
export function redactOptions(options: RunOptions): RunOptions {
  return options.target === undefined ? options : { ...options, target: redactUrl(options.target) };
}

/** Replaces every credentialed http(s)/ws(s) URL inside free text (log lines, error messages). */
export function redactText(text: string): string {
  return text.replace(/\b(https?|wss?):\/\/[^\s/@"']+@/g, (_m, scheme: string) => `${scheme}://***:***@`);
}

/**
 * Where a target URL's credentials could be kept out of every stored file: locally the agents get the URL through
 * their environment. On AWS the generators read their slice from S3 (and the run folder keeps a copy), and an SSM
 * command's parameters stay in the command history, so a credentialed URL would be stored: refused with the way
 * that keeps it secret (the secrets path). Returns the one-line reason, or undefined when the URL may be used.
 */
export function storedCredentialsProblem(platform: 'local' | 'aws', target: string | undefined): string | undefined {
  if (platform !== 'aws' || target === undefined || redactUrl(target) === target) return undefined;
  return `target ${redactUrl(target)} carries credentials, which on --platform aws would be stored in the run's S3 slices; pass the URL without them and give the secret through the secrets path (/loadtest-rig/secrets/, read as RIG_SECRET_<NAME>; see docs/aws.md)`;
}
