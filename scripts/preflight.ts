/**
 * The preflight: before the fleet starts, one client proves it reaches the target (DNS, TCP, TLS, the
 * scenario's first HTTP step, the Socket.IO/WebSocket handshake). What to probe is read from the scenario
 * here (pure); the probe itself is load-generators/lib/preflight.js, the same code in-process for local
 * runs and on the first ready generator for AWS runs (scripts/platforms/aws/fleet.ts).
 */
import { RIG_CONNECT_FUNCTIONS } from './rig-processor';
import { isRecord } from './core/is-record';
import { redactUrl } from './core/redact';
import { enginesUsed, scenarioCanRun, scenarioEngine } from './engines';
import { InterruptedBeforeStart, TargetFailure, UsageError } from './errors';
import type { ArtilleryScript } from './scenario';
import { checkTargetUrl } from './target-url';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const probeModule = require('../load-generators/lib/preflight') as {
  probe(spec: ProbeSpec, opts?: { localAddress?: string; authToken?: string; signal?: AbortSignal }): Promise<ProbeResult>;
  SPEC_KEY: string;
  RESULT_KEY: string;
};

/** What the probe checks (load-generators/lib/preflight.js `ProbeSpec`). */
export interface ProbeSpec {
  /** Base URL of the target. */
  readonly target: string;
  /** The scenario's first HTTP step. */
  readonly http?: { readonly method: string; readonly path: string };
  /** The real-time handshake the scenario makes. */
  readonly realtime?: 'socketio' | 'websocket';
  /** Socket.IO path (a WebSocket opens the target itself, path and query included). */
  readonly realtimePath?: string;
  /**
   * The built-in scenarios' Socket.IO connection: at the target's origin, namespace `/`, with the target's path prefix
   * already in `realtimePath` (load-generators/processors/connect.js `socketAddress`); a user's script connects to the
   * whole target (its path is the namespace), as Artillery's engine does.
   */
  readonly realtimeAtOrigin?: boolean;
  /** Per step, ms. */
  readonly timeoutMs?: number;
  /** A user's own script: its first HTTP step's status is the target's answer (a script may expect a 404), reported, not judged. */
  readonly httpStatusAdvisory?: boolean;
  /** The script's `config.tls.rejectUnauthorized` is false: the probe accepts any certificate, as Artillery does. */
  readonly insecureTls?: boolean;
  /** The fix an untrusted certificate's line names when `config.ws` keeps the checks on over -k ({@link untrustedCertFix}). */
  readonly untrustedCertFix?: string;
  /**
   * What the script's engine sends with its handshake, as Artillery's engines send it: Socket.IO's
   * `config.socketio` `extraHeaders`/`query`/`auth`, the ws engine's `config.ws.headers`/`subprotocols` (or its
   * first `connect` step's). Without them a target that authenticates the handshake refused the probe.
   */
  readonly realtimeOptions?: {
    readonly headers?: Record<string, string>;
    readonly query?: Record<string, string>;
    readonly auth?: Record<string, unknown>;
    /** Socket.IO transports: the script's, or Socket.IO's default for a socketio-engine scenario (without: WebSocket alone, as the built-in scenarios connect). */
    readonly transports?: string[];
    readonly subprotocols?: string[];
    readonly url?: string;
  };
  /** Why the handshake is not probed (its options are templated per vuser, or made by a `connect` function). */
  readonly realtimeUnknown?: string;
  /**
   * A ws `connect` URL made from the run's target (`{{ target }}/feed`, its other placeholders already filled): the
   * URL generators loading another target open ({@link probeSpecFor}). Not read by the probe.
   */
  readonly connectUrlOfTarget?: string;
  /**
   * A user's first HTTP step that is not probed: "POST /orders". Only GET and HEAD are sent before the run; any
   * other method changes something on the target, and the probe would send it without the step's body or headers.
   */
  readonly httpNotProbed?: string;
}

/**
 * Whether the scenario the preflight probes (the first Artillery can pick: {@link probedScenario}) connects with certificate checks off, read as its engine
 * reads them in Artillery 2.0.34: `config.tls` for http; for socketio, the options every vuser connects with
 * ({@link socketioOptions}: every Socket.IO scenario's own `socketio` spread over `config.socketio`) with `config.tls`
 * applied over them (engine_socketio.js: `_.extend({}, socketioOpts, tls)`; the socketio-v3 plugin engine: its
 * scenario's own over `config.socketio`); for ws,
 * `config.ws` applied over `config.tls` (engine_ws.js getWsConfig: `_.extend(tls, ws)`), or instead of `config.ws`
 * the keys of a `connect: {…}` first step. The last layer that sets `rejectUnauthorized` decides.
 */
export function scriptAcceptsAnyCertificate(script: ArtilleryScript): boolean {
  const scenario = probedScenario(script) as { engine?: unknown; flow?: unknown; socketio?: unknown };
  const engine = scenarioEngine(script, scenario);
  const { tls, socketio, ws } = script.config as { tls?: unknown; socketio?: unknown; ws?: unknown };
  let layers: unknown[] = [tls];
  // Artillery's own engine: what every vuser connects with; the v3 plugin engine: its scenario's own over config's.
  if (engine === 'socketio') layers = [socketioOptions(script), tls];
  if (engine === 'socketio-v3') layers = [socketio, scenario.socketio, tls];
  if (engine === 'ws') {
    layers = [tls, ownConnect(scenario) ?? ws];
  }
  const set = layers.map((l) => (isRecord(l) ? l.rejectUnauthorized : undefined)).filter((v) => v !== undefined);
  return set[set.length - 1] === false;
}

/**
 * Where a ws script keeps certificate checks on although `config.tls.rejectUnauthorized` is false (its own, or set by
 * -k): Artillery's ws engine applies `config.ws` (or the keys of a `connect: {…}` first step) over `config.tls`
 * (engine_ws.ts getWsConfig), so `rejectUnauthorized: true` there wins, and plain `artillery run -k` fails every vuser
 * on an untrusted certificate. The key's place (`config.ws.rejectUnauthorized`), else undefined. Pure.
 */
export function certificateCheckKeptBy(script: ArtilleryScript): string | undefined {
  const scenario = probedScenario(script) as { flow?: unknown };
  if (scenarioEngine(script, scenario) !== 'ws' || !isRecord(script.config.tls) || script.config.tls.rejectUnauthorized !== false) return undefined;
  const connect = ownConnect(scenario);
  if (connect) return connect.rejectUnauthorized === true ? `scenarios[${script.scenarios.indexOf(scenario)}].flow[0].connect.rejectUnauthorized` : undefined;
  return isRecord(script.config.ws) && script.config.ws.rejectUnauthorized === true ? 'config.ws.rejectUnauthorized' : undefined;
}

/**
 * A ws scenario's `connect: {…}` first step when its keys are what the connection uses: Artillery's ws engine
 * (engine_ws.ts getWsInstance) opens a `connect: { function }` step's connection with `config.ws`, and the processor
 * check refuses a function the processor does not export, so such a step is left to `config.ws`.
 */
function ownConnect(scenario: { flow?: unknown }): Record<string, unknown> | undefined {
  const connect = Array.isArray(scenario.flow) && isRecord(scenario.flow[0]) ? scenario.flow[0].connect : undefined;
  return isRecord(connect) && connect.function === undefined ? connect : undefined;
}

/** The fix an untrusted certificate's refusal names for a script {@link certificateCheckKeptBy} finds, else undefined. */
export function untrustedCertFix(script: ArtilleryScript): string | undefined {
  const key = certificateCheckKeptBy(script);
  if (!key) return undefined;
  return `the target's certificate is not trusted here, and -k (config.tls.rejectUnauthorized: false) does not reach this script's websocket connections: its ${key}: true applies over config.tls (Artillery's ws engine; plain artillery run -k fails every vuser on this certificate too); remove that key, or trust the certificate with NODE_EXTRA_CA_CERTS=cert.pem`;
}

/** The probe's answer. */
export type ProbeResult =
  | { readonly ok: true; readonly steps: string[]; readonly ms: number }
  | { readonly ok: false; readonly steps: string[]; readonly ms: number; readonly step: string; readonly message: string; readonly config: boolean };

/** Run-store keys of the AWS probe's input and output. */
export const PREFLIGHT_SPEC_KEY = probeModule.SPEC_KEY;
export const PREFLIGHT_RESULT_KEY = probeModule.RESULT_KEY;

/** Per-step timeout: short, a reachable target answers each step in milliseconds. */
export const PREFLIGHT_STEP_TIMEOUT_MS = 5000;

/** Processor functions of the built-in scenarios (load-generators/processors/connect.js) and what they do. */
const [BUILT_IN_COOKIE_STEP, BUILT_IN_SOCKET_STEP] = RIG_CONNECT_FUNCTIONS;

/** A target's path without its trailing slashes ('' for none); '' for a URL that does not parse (checked elsewhere). */
function targetPathPrefix(target: string): string {
  try {
    return new URL(target).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/**
 * What to probe for a script (after `applyOptions`) against `target`: the first flow step that is an HTTP
 * request (Artillery's `get`/`post`/…, or the built-in processors' `fetchCookie`, a GET /set-cookie), and the
 * handshake of the scenario's engine (`socketio`, `ws`, or the built-in `openSocket`, a Socket.IO connect).
 * A step the probe cannot know (a user's own function) is not guessed at: DNS and TCP still run. `rigConnect`: the
 * flows' `fetchCookie` and `openSocket` are the rig's own (a built-in scenario, or a script keeping one's processor:
 * scripts/rig-processor.ts); a user's own functions of those names are not guessed at either. `testRunId`: the run's
 * `{{ $testId }}`, rendered in a ws `connect` URL as every vuser renders it.
 */
export function preflightSpec(script: ArtilleryScript, target: string, rigConnect = true, testRunId?: string): ProbeSpec {
  const scenario = probedScenario(script) as { engine?: unknown; flow?: unknown[]; socketio?: unknown };
  const flow = Array.isArray(scenario.flow) ? scenario.flow : [];
  const vars = (script.config.variables ?? {}) as Record<string, unknown>;
  let http: ProbeSpec['http'];
  let httpNotProbed: string | undefined;
  let realtime: ProbeSpec['realtime'];
  // The rig's own first request is judged (every vuser fails on a non-200 there, COOKIE_HTTP_…); a user's is reported.
  let httpIsRig = false;
  let rigSocket = false;
  for (const raw of flow) {
    const step = (raw ?? {}) as Record<string, unknown>;
    const method = ['get', 'post', 'put', 'patch', 'delete', 'head'].find((m) => step[m] !== undefined);
    if (!http && !httpNotProbed && method) {
      const url = (step[method] as { url?: unknown } | undefined)?.url;
      const safe = method === 'get' || method === 'head';
      if (typeof url === 'string' && !url.includes('{{')) {
        if (safe) http = { method: method.toUpperCase(), path: url };
        else httpNotProbed = `${method.toUpperCase()} ${url}`;
      }
    }
    if (rigConnect && !http && !httpNotProbed && step.function === BUILT_IN_COOKIE_STEP) {
      http = { method: 'GET', path: '/set-cookie' };
      httpIsRig = true;
    }
    if (rigConnect && step.function === BUILT_IN_SOCKET_STEP) {
      realtime = 'socketio';
      rigSocket = true;
    }
  }
  const engine = scenarioEngine(script, scenario);
  // Artillery's own Socket.IO engine connects as Artillery does (the target's path is the namespace), not as openSocket.
  if (engine === 'socketio' || engine === 'socketio-v3') [realtime, rigSocket] = ['socketio', false];
  if (engine === 'ws') realtime = 'websocket';
  // Polling first only for Artillery's own engine: the socketio-v3 plugin takes its options from elsewhere (config.engines).
  const handshake = realtime ? handshakeOptions(script, realtime, flow[0], target, engine === 'socketio', testRunId) : {};
  const socketPath = typeof vars.socketPath === 'string' ? vars.socketPath : handshake.path;
  // The built-ins append socketPath to the target's path as text, as they append /set-cookie (connect.js).
  const atOrigin = rigSocket;
  const realtimePath = atOrigin ? `${targetPathPrefix(target)}${socketPath ?? '/socket.io'}` : socketPath;
  return {
    // A ws scenario whose first step connects to its own URL never contacts the target (engine_ws.js getWsInstance).
    target: handshake.options?.url ?? target,
    ...(http ? { http } : {}),
    ...(realtime ? { realtime } : {}),
    ...(realtime === 'socketio' && realtimePath ? { realtimePath } : {}),
    ...(atOrigin ? { realtimeAtOrigin: true } : {}),
    ...(handshake.options ? { realtimeOptions: handshake.options } : {}),
    ...(handshake.unknown ? { realtimeUnknown: handshake.unknown } : {}),
    ...(handshake.urlOfTarget ? { connectUrlOfTarget: handshake.urlOfTarget } : {}),
    ...(httpNotProbed ? { httpNotProbed } : {}),
    timeoutMs: PREFLIGHT_STEP_TIMEOUT_MS,
    ...(httpIsRig ? {} : { httpStatusAdvisory: true }),
    ...(scriptAcceptsAnyCertificate(script) ? { insecureTls: true } : {}),
    ...(untrustedCertFix(script) ? { untrustedCertFix: untrustedCertFix(script) } : {}),
  };
}

const templated = (v: unknown): boolean => JSON.stringify(v ?? null).includes('{{');
const strings = (v: unknown): Record<string, string> | undefined => (isRecord(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)])) : undefined);

/** The scenario the preflight probes: the first Artillery can pick (one of weight 0 never runs). */
function probedScenario(script: ArtilleryScript): Record<string, unknown> {
  const sc = script.scenarios.find(scenarioCanRun) ?? script.scenarios[0];
  return isRecord(sc) ? sc : {};
}

/**
 * The Socket.IO options every vuser of the script's scenarios connects with. Artillery 2.0.34's socketio engine is one
 * instance per run whose options start as `config.socketio`; compiling each Socket.IO scenario spreads that
 * scenario's own `socketio` over them (engine_socketio.js createScenario: `this.socketioOpts = { ...this.socketioOpts,
 * ...scenarioSpec.socketio }`), and the runner compiles every scenario, in script order, before the first vuser
 * (runner.js) — so all of them connect with the last merge, whichever scenario a vuser runs. A `before`/`after`
 * section runs on its own: `config.socketio` with its own over it (`hook`).
 */
function socketioOptions(script: ArtilleryScript, hook?: unknown): Record<string, unknown> {
  const own = (part: unknown) => (isRecord(part) && isRecord(part.socketio) ? part.socketio : {});
  const layers = hook !== undefined ? [own(hook)] : script.scenarios.filter((sc) => scenarioEngine(script, sc) === 'socketio').map(own);
  return Object.assign({}, isRecord(script.config.socketio) ? script.config.socketio : {}, ...layers);
}

/**
 * The handshake options of the script's engine (see ProbeSpec.realtimeOptions), or why they cannot be known before
 * the run. Socket.IO's are what every vuser connects with ({@link socketioOptions}).
 */
function handshakeOptions(
  script: ArtilleryScript,
  realtime: 'socketio' | 'websocket',
  first: unknown,
  target: string,
  socketioEngine = false,
  testRunId?: string,
): { options?: ProbeSpec['realtimeOptions']; path?: string; unknown?: string; urlOfTarget?: string } {
  if (realtime === 'socketio') {
    const sio = socketioOptions(script);
    // The transports the vusers connect with. Artillery's socketio engine leaves Socket.IO's default (long-polling,
    // then an upgrade to WebSocket when the server and the proxies allow one, else polling on), so a script naming
    // none runs on a server that allows only polling, or behind a proxy that drops upgrades, as plain `artillery
    // run` runs it: the probe connects the same way. The built-ins' connect step (and a script naming websocket
    // alone) connects over WebSocket, and so does the probe.
    const named = Array.isArray(sio.transports) && sio.transports.length ? sio.transports.map(String) : undefined;
    const transports = named ?? (socketioEngine ? ['polling', 'websocket'] : undefined);
    const picked = { headers: strings(sio.extraHeaders), query: strings(sio.query), auth: isRecord(sio.auth) ? sio.auth : undefined, transports };
    if (templated(picked) || templated(sio.path)) return { unknown: 'config.socketio is templated per vuser' };
    const options = Object.fromEntries(Object.entries(picked).filter(([, v]) => v !== undefined));
    return { ...(Object.keys(options).length ? { options } : {}), ...(typeof sio.path === 'string' ? { path: sio.path } : {}) };
  }
  const ws = isRecord(script.config.ws) ? script.config.ws : {};
  const connect = isRecord(first) ? first.connect : undefined;
  if (isRecord(connect) && connect.function !== undefined) return { unknown: 'its connect step is a function' };
  const from = isRecord(connect) ? connect : ws;
  const sent = {
    ...(strings(from.headers ?? ws.headers) ? { headers: strings(from.headers ?? ws.headers) } : {}),
    ...(Array.isArray(from.subprotocols ?? ws.subprotocols) ? { subprotocols: (from.subprotocols ?? ws.subprotocols) as unknown[] as string[] } : {}),
  };
  if (templated(sent)) return { unknown: 'its handshake options are templated per vuser' };
  const written = typeof connect === 'string' ? connect : isRecord(connect) && typeof connect.target === 'string' ? connect.target : undefined;
  if (written === undefined) return Object.keys(sent).length ? { options: sent } : {};
  // `{{ $testId }}` is the run's one test id, known before the run (scripts/run-id.ts): each vuser's context has it
  // (runner.js createContext), under the script's own variable of that name, which wins there too.
  const variables = { ...(testRunId !== undefined ? { $testId: testRunId } : {}), ...(isRecord(script.config.variables) ? script.config.variables : {}) };
  const url = renderConnectUrl(written, target, variables);
  if ('unknown' in url) return { unknown: `its connect URL uses ${url.unknown}` };
  // Artillery would open what it renders; one that is not a URL is bad input, found before anything starts.
  // The line names the template as written (the user fixes that, or a variable it reads), then what it rendered.
  if (url.url !== written) {
    try {
      checkTargetUrl(url.url, `the connect step's URL ${JSON.stringify(redactUrl(written))} rendered to`, true);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      // The fix is in the template or the variables it reads, not in the rendered text the generic hint rewrites.
      throw new UsageError(`${err.message.split('; ')[0]}; make the template (or the variables it reads) render a whole URL with its scheme, e.g. ws://127.0.0.1:3000/path`);
    }
  }
  return { options: { ...sent, url: url.url }, ...(url.ofTarget ? { urlOfTarget: url.ofTarget } : {}) };
}

/** A template's placeholders, as Artillery's engine_util renderVariables finds them (`{{ name }}`, `{{{ name }}}`). */
const PLACEHOLDER = /\{\{\{?([^{}]*)\}\}\}?/g;
const TARGET_NAME = 'target';

/** Why a placeholder's value is not known before the run, or undefined when it is (a variable holding one value). */
function unknownWhy(name: string, variables: Readonly<Record<string, unknown>>): string | undefined {
  if (name === TARGET_NAME) return undefined;
  if (/^\$(env|processEnvironment)\b/.test(name)) return "the generator's environment";
  if (!Object.prototype.hasOwnProperty.call(variables, name)) {
    return name.startsWith('$') ? 'made per vuser' : 'not in config.variables: a payload column, a capture or a processor sets it';
  }
  const value = variables[name];
  if (Array.isArray(value)) return 'a list, picked per vuser';
  if (typeof value === 'string' && value.includes('{{')) return 'itself a template, rendered per vuser';
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? undefined : 'not one text or number';
}

/**
 * A ws `connect` URL as every vuser renders it (engine_ws.js: `template(connect, context)`), when its placeholders
 * are known before the run: `{{ target }}` (the run's target) and variables holding one value. `ofTarget`: the URL
 * with only `{{ target }}` left, when it uses the target. Otherwise the placeholders that are not known, with why.
 */
function renderConnectUrl(template: string, target: string, variables: Readonly<Record<string, unknown>>): { url: string; ofTarget?: string } | { unknown: string } {
  const unknown = [...template.matchAll(PLACEHOLDER)]
    .map((m) => (m[1] ?? '').trim())
    .map((name) => ({ name, why: unknownWhy(name, variables) }))
    .filter((u) => u.why !== undefined);
  if (unknown.length > 0) return { unknown: [...new Map(unknown.map((u) => [u.name, `{{ ${u.name} }} (${u.why})`])).values()].join(', ') };
  let usesTarget = false;
  const ofTarget = template.replace(PLACEHOLDER, (whole, name: string) => {
    if (name.trim() !== TARGET_NAME) return String(variables[name.trim()]);
    usesTarget = true;
    return whole;
  });
  return { url: withTarget(ofTarget, target), ...(usesTarget ? { ofTarget } : {}) };
}

/** A connect URL's `{{ target }}` placeholders filled with `target`. */
const withTarget = (ofTarget: string, target: string): string => ofTarget.replace(PLACEHOLDER, () => target);

/**
 * The spec for generators that load another target (another region's, the target's public URL): the target
 * replaced, and a ws connect URL made from `{{ target }}` rendered with it; a connect URL of the script's own, as
 * written or made from its variables, is opened as it is from everywhere, so it stays.
 */
export function probeSpecFor(spec: ProbeSpec, target: string): ProbeSpec {
  if (spec.connectUrlOfTarget !== undefined) {
    const url = withTarget(spec.connectUrlOfTarget, target);
    return { ...spec, target: url, realtimeOptions: { ...spec.realtimeOptions, url } };
  }
  return spec.realtimeOptions?.url !== undefined ? spec : { ...spec, target };
}

/** How to make a polling-first script connect by websocket (load-generators/lib/probe-steps.js, where the probe reads it too). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const POLLING_FIX: string = (require('../load-generators/lib/probe-steps') as { POLLING_FIX: string }).POLLING_FIX;

/**
 * Whether the script's Socket.IO clients start with HTTP long-polling (Artillery's socketio engine with the
 * client's default transports): a server of several processes without sticky sessions cannot serve that. Read from
 * the options the scenarios' vusers connect with ({@link socketioOptions}: every Socket.IO scenario's own spread over
 * `config.socketio`, the last winning) and a Socket.IO `before`/`after` section's own.
 */
export function socketIoPolls(script: ArtilleryScript): boolean {
  if (!enginesUsed(script).has('socketio')) return false;
  const polls = (sio: Record<string, unknown>) => !(Array.isArray(sio.transports) && sio.transports.length > 0 && sio.transports.every((t) => t === 'websocket'));
  const hooks = [script.before, script.after].filter((h) => isRecord(h) && h.engine === 'socketio');
  const scenarios = script.scenarios.some((sc) => scenarioEngine(script, sc) === 'socketio');
  return (scenarios && polls(socketioOptions(script))) || hooks.some((h) => polls(socketioOptions(script, h)));
}

/** One line for a passed probe. */
export function preflightPassedLine(result: ProbeResult, from: string): string {
  return `preflight from ${from}: ok in ${result.ms} ms (${result.steps.join('; ')})`;
}

/**
 * The error a failed probe stops the run with: one line naming the step, what failed and the likely cause.
 * A configuration fault (the name, the path, auth) is bad input (exit 2); anything else is the target's (exit 3,
 * printed as `target failure:`).
 */
export function preflightError(result: ProbeResult, from: string): UsageError | TargetFailure | undefined {
  if (result.ok) return undefined;
  const line = `preflight from ${from} failed at ${result.step}: ${result.message}`;
  return result.config ? new UsageError(line) : new TargetFailure(line);
}

/**
 * Probes from this machine (the local platform); throws the run-stopping error on failure. Once `signal` aborts (the
 * run's Ctrl-C), the probe closes its connections and this throws InterruptedBeforeStart at once, having said nothing:
 * not even a probe that passed with the signal. Its `abandonedWork` is set only when a DNS lookup is still running,
 * which Node cannot cancel (load-generators/lib/preflight.js `probe`).
 */
export async function preflightHere(spec: ProbeSpec, log: (line: string) => void, authToken?: string, signal?: AbortSignal): Promise<void> {
  let result: ProbeResult;
  try {
    result = await probeModule.probe(spec, { ...(authToken ? { authToken } : {}), ...(signal ? { signal } : {}) });
  } catch (err) {
    if (signal?.aborted) throw new InterruptedBeforeStart(undefined, (err as { lookupInFlight?: boolean }).lookupInFlight === true);
    throw err;
  }
  const err = preflightError(result, 'this machine');
  if (err) throw err;
  log(preflightPassedLine(result, 'this machine'));
}
