/**
 * Which target a run aims at, decided once before anything starts and printed:
 *  - `--target URL` wins;
 *  - a user's own script runs against its own `config.target` (after `-e/--environment`), as plain
 *    `artillery run` would; the rig never replaces it silently;
 *  - the built-in scenarios (or `--target reference`) get the reference target the platform provides
 *    (started locally, or the deployed target stack on AWS).
 * Pure apart from the environment it is handed.
 */
import { redactUrl } from './core/redact';
import { UsageError } from './errors';
import type { RunOptions } from './options';
import type { LoadedScenario } from './scenario';

/** Where the run's target came from. */
export type TargetSource = 'flag' | 'script' | 'reference';

/** The decision: the options to run with (target filled in for a script) and the line to print. */
export interface TargetChoice {
  readonly options: RunOptions;
  readonly source: TargetSource;
  /** Printed before the run; undefined when the platform prints its reference target itself. */
  readonly line?: string;
}

const TEMPLATE = /\{\{\s*([^}]*?)\s*\}\}/g;

/**
 * Resolves the `{{ $env.NAME }}` / `{{ $processEnvironment.NAME }}` templates Artillery allows in
 * `config.target`; anything else in braces cannot be known before the run and is bad input.
 */
export function resolveTargetTemplate(value: string, env: Readonly<Record<string, string | undefined>>, where: string): string {
  return value.replace(TEMPLATE, (_all, expr: string) => {
    const m = /^\$(env|processEnvironment)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(expr);
    if (!m) throw new UsageError(`${where} uses {{ ${expr} }}, which the rig cannot resolve before the run; write the URL, use {{ $env.NAME }}, or pass --target URL`);
    const v = env[m[2] as string];
    if (v === undefined || v === '') throw new UsageError(`${where} needs the environment variable ${m[2]} ({{ ${expr} }}), which is not set; export it or pass --target URL`);
    return v;
  });
}

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

/** What the target line adds when the scheme was written in another case than the one the run uses. */
function schemeNote(given: string, used: string): string {
  const scheme = (u: string) => /^[^:]*:/.exec(u.trim())?.[0] ?? '';
  return scheme(given) === scheme(used) ? '' : `; scheme written as ${scheme(used)}// (Artillery fails every request to ${scheme(given)}//)`;
}

/** Decides the run's target; throws {@link UsageError} when a user script has none and none was given. */
export function chooseTarget(options: RunOptions, scenario: LoadedScenario, env: Readonly<Record<string, string | undefined>>): TargetChoice {
  if (options.target !== undefined) {
    const target = checkTargetUrl(options.target, '--target', !scenario.builtIn);
    return { options: { ...options, target }, source: 'flag', line: `target: ${redactUrl(target)} (--target${schemeNote(options.target, target)})` };
  }
  if (scenario.builtIn || options.referenceTarget) return { options, source: 'reference' };
  const raw = scenario.script.config.target;
  const where = options.environment && scenario.envTarget ? `config.environments.${options.environment}.target of ${scenario.name}` : `config.target of ${scenario.name}`;
  if (raw === undefined || raw === null || raw === '') {
    throw new UsageError(
      `${scenario.name} has no config.target${options.environment ? ` (nor config.environments.${options.environment}.target)` : ''}; add one, pick an environment with -e NAME, pass --target URL, or --target reference for the rig's reference target`,
    );
  }
  if (typeof raw !== 'string') throw new UsageError(`${where} must be a URL string`);
  const resolved = resolveTargetTemplate(raw, env, where);
  const target = checkTargetUrl(resolved, where, true);
  return { options: { ...options, target }, source: 'script', line: `target: ${redactUrl(target)} (${where}${schemeNote(resolved, target)}; --target URL overrides it)` };
}
