/**
 * The preflight: before the fleet starts, one client proves it reaches the target (DNS, TCP, TLS, the
 * scenario's first HTTP step, the Socket.IO/WebSocket handshake). What to probe is read from the scenario
 * here (pure); the probe itself is load-generators/lib/preflight.js, the same code in-process for local
 * runs and on the first ready generator for AWS runs (scripts/platforms/aws/fleet.ts).
 */
import { TargetFailure, UsageError } from './errors';
import type { ArtilleryScript } from './scenario';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const probeModule = require('../load-generators/lib/preflight') as {
  probe(spec: ProbeSpec, opts?: { localAddress?: string; authToken?: string }): Promise<ProbeResult>;
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
  /** Socket.IO path, or the WebSocket path. */
  readonly realtimePath?: string;
  /** Per step, ms. */
  readonly timeoutMs?: number;
  /** A user's own script: its first HTTP step's status is the target's answer (a script may expect a 404), reported, not judged. */
  readonly httpStatusAdvisory?: boolean;
  /** The script's `config.tls.rejectUnauthorized` is false: the probe accepts any certificate, as Artillery does. */
  readonly insecureTls?: boolean;
}

/** Whether a script turns certificate checks off (`config.tls.rejectUnauthorized: false`, Artillery's setting). */
export function scriptAcceptsAnyCertificate(script: ArtilleryScript): boolean {
  const tls = (script.config as { tls?: unknown }).tls;
  return !!tls && typeof tls === 'object' && (tls as { rejectUnauthorized?: unknown }).rejectUnauthorized === false;
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
const BUILT_IN_COOKIE_STEP = 'fetchCookie';
const BUILT_IN_SOCKET_STEP = 'openSocket';

/**
 * What to probe for a script (after `applyOptions`) against `target`: the first flow step that is an HTTP
 * request (Artillery's `get`/`post`/…, or the built-in processors' `fetchCookie`, a GET /set-cookie), and the
 * handshake of the scenario's engine (`socketio`, `ws`, or the built-in `openSocket`, a Socket.IO connect).
 * A step the probe cannot know (a user's own function) is not guessed at: DNS and TCP still run.
 */
export function preflightSpec(script: ArtilleryScript, target: string, builtIn = true): ProbeSpec {
  const scenario = (script.scenarios[0] ?? {}) as { engine?: unknown; flow?: unknown[] };
  const flow = Array.isArray(scenario.flow) ? scenario.flow : [];
  const vars = (script.config.variables ?? {}) as Record<string, unknown>;
  let http: ProbeSpec['http'];
  let realtime: ProbeSpec['realtime'];
  for (const raw of flow) {
    const step = (raw ?? {}) as Record<string, unknown>;
    const method = ['get', 'post', 'put', 'patch', 'delete', 'head'].find((m) => step[m] !== undefined);
    if (!http && method) {
      const url = (step[method] as { url?: unknown } | undefined)?.url;
      if (typeof url === 'string' && !url.includes('{{')) http = { method: method.toUpperCase(), path: url };
    }
    if (!http && step.function === BUILT_IN_COOKIE_STEP) http = { method: 'GET', path: '/set-cookie' };
    if (step.function === BUILT_IN_SOCKET_STEP) realtime = 'socketio';
  }
  const engine = String(scenario.engine ?? '');
  if (engine === 'socketio' || engine === 'socketio-v3') realtime = 'socketio';
  if (engine === 'ws') realtime = 'websocket';
  const socketPath = typeof vars.socketPath === 'string' ? vars.socketPath : undefined;
  return {
    target,
    ...(http ? { http } : {}),
    ...(realtime ? { realtime } : {}),
    ...(realtime === 'socketio' && socketPath ? { realtimePath: socketPath } : {}),
    timeoutMs: PREFLIGHT_STEP_TIMEOUT_MS,
    ...(builtIn ? {} : { httpStatusAdvisory: true }),
    ...(scriptAcceptsAnyCertificate(script) ? { insecureTls: true } : {}),
  };
}

/** One line for a passed probe. */
export function preflightPassedLine(result: ProbeResult, from: string): string {
  return `preflight from ${from}: ok in ${result.ms} ms (${result.steps.join('; ')})`;
}

/**
 * The error a failed probe stops the run with: one line naming the step, what failed and the likely cause.
 * A configuration fault (the name, the path, auth) is bad input (exit 2); anything else is the rig's (exit 3).
 */
export function preflightError(result: ProbeResult, from: string): UsageError | TargetFailure | undefined {
  if (result.ok) return undefined;
  const line = `preflight from ${from} failed at ${result.step}: ${result.message}`;
  return result.config ? new UsageError(line) : new TargetFailure(line);
}

/** Probes from this machine (the local platform); throws the run-stopping error on failure. */
export async function preflightHere(spec: ProbeSpec, log: (line: string) => void, authToken?: string): Promise<void> {
  const result = await probeModule.probe(spec, authToken ? { authToken } : {});
  const err = preflightError(result, 'this machine');
  if (err) throw err;
  log(preflightPassedLine(result, 'this machine'));
}
