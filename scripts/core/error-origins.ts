/**
 * Whose errors a run's `errors.*` counters are (pure): the network's or the target's answer as the engines count them,
 * or the script's own code and checks. The verdict (./verdict.ts) says so in its line when vusers failed on the
 * script's; `errorOrigins` (scripts/engines.ts) says which engines and processors a run has, which decides some.
 */

/**
 * A message an engine gives for the network or the target's answer, not the script's code: a connection code as Node
 * gives it, alone or after its syscall, in its case (`ECONNREFUSED`, `connect ETIMEDOUT …`, `getaddrinfo ENOTFOUND …`,
 * `ERR_TLS_…`; a script's `Missing ERR_LOG_PATH` is no code of theirs), ws's `Unexpected server response: 401`, a
 * hang-up, a TLS connection dropped, a handshake that timed out, Socket.IO's `xhr poll error` / `websocket error` /
 * `timeout` — counted as `Error: xhr poll error` … when a vuser's first connection fails (Artillery 2.0.34's socketio
 * engine counts the Error itself there, its message alone for a namespace's connection).
 */
const NETWORK_CODE =
  /^(Error: )?(?:(?:connect|read|write|getaddrinfo|queryA|queryAaaa|querySrv) )?(E(CONN[A-Z]+|TIMEDOUT|SOCKETTIMEDOUT|HOSTUNREACH|HOSTDOWN|NETUNREACH|NETDOWN|NETRESET|PIPE|AI_AGAIN|AI_FAIL|NOTFOUND|PROTO|CANCELED|ADDR[A-Z]+|AFNOSUPPORT|INVAL|MFILE|NFILE|NOBUFS|NOMEM)|ERR_[A-Z_]+)\b/;
const NETWORK_OR_TARGET = /^(Error: )?Unexpected server response|socket hang up|handshake has timed out|^(Error: )?Parse Error|Invalid WebSocket frame|^(Error: )?Client network socket disconnected before secure TLS connection was established/i;

/**
 * The target's certificate or its HTTP: OpenSSL's verify codes and Node's HTTP-parser codes as Node names them, in
 * their case (a script's `CERT_PATH` is no code of theirs), and Node's words for the certificate failures, which the
 * ws engine counts besides the code (`self-signed certificate` with `DEPTH_ZERO_SELF_SIGNED_CERT`).
 */
const TLS_OR_HTTP_PARSER =
  /\b(CERT_(HAS_EXPIRED|NOT_YET_VALID|REVOKED|UNTRUSTED|REJECTED|SIGNATURE_FAILURE|CHAIN_TOO_LONG|PURPOSE_INVALID)|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET_ISSUER_CERT(_LOCALLY)?|VERIFY_LEAF_SIGNATURE|GET_CRL|DECRYPT_CERT_SIGNATURE|DECODE_ISSUER_PUBLIC_KEY)|HOSTNAME_MISMATCH|INVALID_CA|ERROR_IN_CERT_NOT_(BEFORE|AFTER)_FIELD|HPE_[A-Z_]+)\b|^(Error: )?(self-signed certificate( in certificate chain)?|certificate has expired|certificate is not yet valid|unable to verify the first certificate|unable to get (local )?issuer certificate|Hostname\/IP does not match certificate's altnames: .*)$/;

/**
 * What the `ws` library (7.5 under Artillery's ws engine, 8 under engine.io-client) and Artillery 2.0.34's engines say
 * of a connection the target (or the network) closed under the scenario, a handshake the target answered wrongly, a
 * frame it should not have sent, an answer that did not come within `config.timeout` (`response timeout`), or a
 * `Set-Cookie` the HTTP engine cannot parse: whole, with or without `Error: ` (the ws engine counts a failed send's
 * Error itself, then its message). A send before the connection opened (`readyState 0 (CONNECTING)`) is a
 * processor's doing and stays the script's.
 */
const ENGINE_TARGET_SIDE =
  /^(Error: )?(WebSocket is not open: readyState [23] \((CLOSING|CLOSED)\)|Invalid Upgrade header|Invalid Sec-WebSocket-(Accept|Extensions) header|Server sent (a subprotocol but none was requested|an invalid subprotocol|no subprotocol|a Sec-WebSocket-Extensions header but no extension was requested)|Server indicated an extension that was not requested|Maximum redirects exceeded|Max payload size exceeded|Unsupported WebSocket frame: payload length > 2\^53 - 1|Too many message fragments|Too many buffered chunks|response timeout|Empty response from WS server|cookie_parse_error_invalid_cookie)$/;

/**
 * engine.io/socket.io-client's own messages, whole and in their own case (a processor's "Server error: expected 200"
 * is the script's): with `Error: ` when Artillery counts the Error itself. A script's own error whose message is
 * exactly `timeout` cannot be told apart from Socket.IO's, and is counted as the target's. The client's reasons for a
 * session that closed (`transport close`, `io server disconnect`, `ping timeout`, `parse error`) are what the rig's
 * plugin fails a connection with when the target closed it before answering its CONNECT (callbacks-once.js).
 */
const SOCKET_IO_CLIENT = /^(Error: )?(xhr poll error|xhr post error|fetch read error|fetch write error|websocket error|webtransport error|transport error|server error|parser error|timeout|transport close|io server disconnect|ping timeout|parse error)$/;

/**
 * Where the run's `errors.*` can come from besides the script's own code, for telling them apart. Absent (a run folder
 * written before it was kept): both true.
 */
export interface ErrorOrigins {
  /**
   * A scenario runs Artillery's socketio engine (2.0.34), which counts the Error of a vuser's failed first connection
   * itself, as `Error: <message>`: a target whose `io.use()` middleware calls `next(new Error('unauthorized'))` gives
   * `errors.Error: unauthorized`, the target's answer whatever its words. Other engines and a script's own errors (a
   * processor's `next(err)`, throw or rejected promise, a failed capture) are counted by code or message alone, so
   * without such a scenario `Error: …` is a message that starts so (`new Error(String(err))` of another error).
   */
  readonly socketIoEngine: boolean;
  /**
   * A scenario runs Artillery's ws engine (2.0.34), which counts a failed vuser's error once more as `err.code ||
   * err.message`: `undefined` for its own `response timeout` (a string), already counted by name, so as many
   * `undefined` as `response timeout` are that echo. Absent (a run folder written before it was kept): true. Any other
   * `undefined` is a processor's error with no message (`next('text')`, a rejected non-Error): the script's.
   */
  readonly wsEngine?: boolean;
  /**
   * The script runs one of the rig's own processors (load-generators/processors, or a copy of one: a built-in scenario,
   * or a user's copy of its script), whatever the script is called: that code (not yours) names the target's answer in
   * its codes: a refused or failed Socket.IO connection, cookie request, subscribe or reconnect.
   */
  readonly builtInScenario: boolean;
}

const ALL_ORIGINS: ErrorOrigins = { socketIoEngine: true, wsEngine: true, builtInScenario: true };
const SOCKET_IO_ENGINE_ERROR = /^Error: /;
const BUILT_IN_CODES = /^(WS_CONNECT_FAILED|COOKIE_HTTP_\d+|COOKIE_FAILED|SUBSCRIBE_FAILED|RECONNECT_FAILED)$/;

/**
 * The `errors.*` counters the script's own code raised (a processor's throw, `done(err)` or rejected promise, a capture
 * it asked for that failed), with their counts: Artillery counts them by message, so they are every error whose
 * message is no network or target failure ({@link NETWORK_CODE}, {@link NETWORK_OR_TARGET}), nor the target's answer as the run's engines
 * and scenario count it ({@link ErrorOrigins}). A refusal by a namespace's own middleware is counted by its message
 * alone and cannot be told from a processor's error of the same words: it is filed as the script's.
 */
export function scriptErrors(counters: Readonly<Record<string, number>>, origins: ErrorOrigins = ALL_ORIGINS): Record<string, number> {
  const targetSide = (e: string) =>
    NETWORK_CODE.test(e) || NETWORK_OR_TARGET.test(e) || TLS_OR_HTTP_PARSER.test(e) || ENGINE_TARGET_SIDE.test(e) || SOCKET_IO_CLIENT.test(e) || (origins.socketIoEngine && SOCKET_IO_ENGINE_ERROR.test(e)) || (origins.builtInScenario && BUILT_IN_CODES.test(e));
  // The ws engine's echo of its `response timeout` (see ErrorOrigins.wsEngine): at most one `undefined` per timeout.
  const echoes = (origins.wsEngine ?? true) ? (counters['errors.response timeout'] ?? 0) : 0;
  const own = (e: string, n: number) => (e === 'undefined' ? n - Math.min(n, echoes) : targetSide(e) ? 0 : n);
  return Object.fromEntries(
    Object.entries(counters)
      .filter(([k, n]) => k.startsWith('errors.') && n > 0)
      .map(([k, n]): [string, number] => [k.slice('errors.'.length), own(k.slice('errors.'.length), n)])
      .filter(([, n]) => n > 0),
  );
}

/** "vusers failed on errors your script raised …" for a run whose failures are the script's, or undefined. */
export function scriptFailureLine(counters: Readonly<Record<string, number>>, origins?: ErrorOrigins): string | undefined {
  const failed = counters['vusers.failed'] ?? 0;
  const own = Object.entries(scriptErrors(counters, origins)).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  if (!failed || !own.length) return undefined;
  const total = Object.entries(counters).filter(([k]) => k.startsWith('errors.')).reduce((a, [, n]) => a + n, 0);
  const ownTotal = own.reduce((a, [, n]) => a + n, 0);
  const shown = own.slice(0, 2).map(([m, n]) => `"${m.length > 60 ? `${m.slice(0, 59)}…` : m}" ×${n}`).join(', ') + (own.length > 2 ? `, ${own.length - 2} more` : '');
  const share = ownTotal === total ? 'all' : `${ownTotal} of ${total}`;
  const vusers = `${failed} vuser${failed === 1 ? '' : 's'} failed and ${share} errors were`;
  // A check the target's answer did not pass is neither the rig's nor plainly the target's: say which it may be.
  if (own.every(([m]) => CHECK_FAILED.test(m))) {
    return `${vusers} your script's checks (match, capture) failing on the target's answers, not network errors: ${shown}; the target answered something else than the check expects (to see the answers: --platform local --vusers 1 with DEBUG='http*' (or ws, socketio), into the run folder's generators/g01/p0/artillery.log)`;
  }
  return `${vusers} raised by your script's own code (processor, captures, checks), not the network or the target: ${shown}`;
}

/**
 * What Artillery 2.0.34's engines count when a target's answer fails the script's `match`, `capture` or `response` check,
 * and its expect plugin with `reportFailuresAsErrors`.
 */
const CHECK_FAILED = /^(Failed capture or match|Failed match|data is not valid|Failed expectations for request .*)$/;
