/**
 * The run sequence, the same for every platform: write the slices → launch the fleet → ready barrier
 * → shared start instant → watch periods live → collect → merge → report. Everything that touches
 * the outside world comes in through {@link OrchestratorDeps}.
 */
import { backoff } from '../load-generators/lib/backoff';
import { isTransient } from '../load-generators/lib/store-tolerance';
import { BEFORE_FAILED, CONTROL, DEFAULTS, COMPLETED, generatorKeys } from '../load-generators/lib/run-protocol';
import type { AbortControl, Clock, DoneMarker, ErrorMarker, Fleet, Heartbeat, ReadyMarker, RunStore, Slice, StartControl } from './contracts';
import { RigError, ScriptFailure } from './errors';
import { LiveMerger } from './live';
import type { Plan } from './core/plan';
import type { ArtilleryScript } from './scenario';

/** What the CLI shows; the orchestrator only emits. */
export type ProgressEvent =
  | { readonly kind: 'info'; readonly message: string }
  | { readonly kind: 'period'; readonly line: string };

/** The outside world the orchestrator uses. */
export interface OrchestratorDeps {
  readonly store: RunStore;
  readonly fleet: Fleet;
  readonly clock: Clock;
  readonly progress: (e: ProgressEvent) => void;
  /** Resolves when the user interrupts (Ctrl-C); never resolves otherwise. */
  readonly interrupted: Promise<void>;
  /** Told once the start instant is set: from then on the run has measurements to report. */
  readonly onStart?: () => void;
}

/** One generator's part of the run, as written to its slice.json. */
export interface GeneratorSpec {
  readonly id: string;
  /**
   * One Artillery script per load process, each with its own source address; `osChoice`: the script's connections
   * come from Artillery's own engines, which bind none (a user's script), so it gets none.
   */
  readonly processes: ReadonlyArray<{ readonly script: ArtilleryScript; readonly sourceAddress?: string; readonly osChoice?: true }>;
}

/** The run as planned. */
export interface RunSpec {
  readonly runId: string;
  /**
   * Artillery's test run id (`{{ $testId }}`), the same in every load process of the run (written into each slice);
   * default: `runId`.
   */
  readonly testRunId?: string;
  readonly scriptDir: string;
  readonly plan: Plan;
  readonly generators: readonly GeneratorSpec[];
  /** Seconds from start until every phase and session should be over. */
  readonly expectedSeconds: number;
  readonly heartbeatTimeoutMs: number;
  readonly readyTimeoutMs: number;
  /** Lead time between the last agent reporting ready and the shared start. */
  readonly startLeadMs: number;
  readonly meta: Record<string, unknown>;
  /**
   * The target URL with credentials, when the processes' scripts carry it redacted: handed to the agents
   * at launch (never written to the store).
   */
  readonly secretTargetUrl?: string;
}

/** How the run ended, before any report is built. */
export interface RunOutcome {
  readonly startAt?: number;
  readonly endedAt: number;
  readonly interrupted: boolean;
  readonly timedOut: boolean;
  /** Generators whose agent failed or vanished, with why. */
  readonly lostGenerators: ReadonlyArray<{ readonly id: string; readonly reason: string }>;
}

/** How an agent ended, in words: `exit 3`, or `killed by SIGKILL` (never a bare 128+n). */
function exitText(fleet: Fleet, id: string, code: number | null): string {
  const end = fleet.exitReason(id);
  const how = end?.signal ? `killed by ${end.signal}` : `exit ${end?.code ?? code}`;
  return end?.detail ? `${how}, ${end.detail}` : how;
}

/** The reason an agent wrote into its done.json (e.g. which load process failed and how), if any. */
async function agentReason(store: RunStore, id: string): Promise<string | undefined> {
  try {
    const done = await store.get(generatorKeys(id).done);
    const reason: unknown = done ? (JSON.parse(done) as Partial<DoneMarker>).reason : undefined;
    return typeof reason === 'string' && reason !== COMPLETED ? reason : undefined;
  } catch {
    return undefined;
  }
}

/** How the run rides out a failing run store (see {@link storeOutage}). */
interface StoreOutage {
  /** The store answered `op` (a heartbeat, a read): once every failing op has, the outage is over and said so. */
  ok(op: string): void;
  /** `op` failed: said once when the outage begins. */
  failed(op: string, err: unknown): void;
  /** @throws an error no retry gets past (a full disk, expired credentials), or the last once the outage outlasts the budget */
  check(): void;
}

/**
 * A run store that fails for a while (an S3 503 that outlived the SDK's attempts, seconds of lost Wi-Fi) does not
 * end the run: failures in a row are ridden out for up to `budgetMs`, one line when they begin and one when the
 * store answers again. The budget is below the agents' heartbeat timeout: past it, they stop themselves anyway.
 * An error no retry gets past (a full disk, a refused or expired-credentials request) ends the run at once.
 */
function storeOutage(clock: Clock, budgetMs: number, progress: OrchestratorDeps['progress']): StoreOutage {
  const failing = new Set<string>();
  let since = 0;
  let last: unknown;
  let fatal: { readonly err: unknown } | undefined;
  return {
    ok(op) {
      if (!failing.delete(op) || failing.size) return;
      progress({ kind: 'info', message: `the run store answers again (after ${Math.round((clock.now() - since) / 1000)} s of errors); the run goes on` });
    },
    failed(op, err) {
      last = err;
      if (!isTransient(err)) fatal ??= { err };
      if (fatal) return;
      if (failing.size === 0) {
        since = clock.now();
        const e = err as Partial<Error> | undefined;
        progress({ kind: 'info', message: `the run store is failing (${e?.name ?? 'Error'}: ${String(e?.message ?? err).split('\n')[0]}); retrying for up to ${Math.round(budgetMs / 1000)} s, within the agents' heartbeat timeout` });
      }
      failing.add(op);
    },
    check() {
      if (fatal) throw fatal.err;
      if (failing.size && clock.now() - since > budgetMs) throw last;
    },
  };
}

/** Runs `op` until it succeeds, backing off, within the outage budget (@throws its error past the budget). */
async function retrying<T>(name: string, op: () => Promise<T>, clock: Clock, outage: StoreOutage): Promise<T> {
  const wait = backoff({ initialMs: 250, ceilingMs: 2000 });
  for (;;) {
    try {
      const result = await op();
      outage.ok(name);
      return result;
    } catch (err) {
      outage.failed(name, err);
      outage.check();
      await clock.sleep(wait.next());
    }
  }
}

/** Writes the run's record and one slice per generator into the store. */
async function writeSlices(spec: RunSpec, store: RunStore, clock: Clock): Promise<void> {
  await store.put(CONTROL.run, JSON.stringify({ runId: spec.runId, plan: spec.plan, createdAt: clock.now(), ...spec.meta }, null, 2));
  for (const [index, g] of spec.generators.entries()) {
    const slice: Slice = {
      generator: g.id,
      index,
      count: spec.generators.length,
      scriptDir: spec.scriptDir,
      processes: [...g.processes],
      heartbeatTimeoutMs: spec.heartbeatTimeoutMs,
      // Agents poll control/start.json at most every quarter of this (≤ 1 s), so they learn the instant in time.
      startLeadMs: spec.startLeadMs,
      ...(spec.secretTargetUrl ? { targetFromEnv: true } : {}),
      testRunId: spec.testRunId || spec.runId,
    };
    await store.put(generatorKeys(g.id).slice, JSON.stringify(slice));
  }
}

/** Beats the heartbeat now and every interval until the returned stop is called (it waits for the loop to end). */
async function startHeartbeat(store: RunStore, clock: Clock, outage: StoreOutage): Promise<() => Promise<void>> {
  const beat = () => store.put(CONTROL.heartbeat, JSON.stringify({ at: clock.now() } satisfies Heartbeat));
  await beat();
  let beating = true;
  const heartbeatLoop = (async () => {
    while (beating) {
      await clock.sleep(DEFAULTS.heartbeatIntervalMs);
      // A failed beat is the outage's to judge (the run's loops check it): the next one may pass.
      if (beating) await beat().then(() => outage.ok('heartbeat'), (err: unknown) => outage.failed('heartbeat', err));
    }
  })();
  return async () => {
    beating = false;
    await heartbeatLoop.catch(() => undefined);
  };
}

/**
 * Ready barrier: waits until every agent has its load processes loaded and blocked before the start (or the
 * user interrupts). @throws RigError when an agent stops first or the fleet is not ready in time
 */
async function awaitReady(spec: RunSpec, deps: OrchestratorDeps, ids: readonly string[], isInterrupted: () => boolean, outage: StoreOutage): Promise<void> {
  const { store, fleet, clock } = deps;
  const readyDeadline = clock.now() + spec.readyTimeoutMs;
  // Only the generators not yet ready are read, backing off to half the start lead (≤ 2 s): a booting
  // 100-generator fleet costs ~1 GET/s per generator at most, not 10.
  const seenReady = new Set<string>();
  const readyPoll = backoff({ initialMs: 100, ceilingMs: Math.min(2000, Math.max(100, spec.startLeadMs / 2)) });
  for (;;) {
    if (isInterrupted()) break;
    await Promise.all(ids.filter((id) => !seenReady.has(id)).map(async (id) => {
      if ((await store.get(generatorKeys(id).ready)) !== undefined) seenReady.add(id);
    })).then(() => outage.ok('ready'), (err: unknown) => outage.failed('ready', err));
    outage.check();
    const ready = ids.map((id) => seenReady.has(id));
    if (ready.every(Boolean)) break;
    for (const [id, code] of fleet.status()) {
      if (code === undefined) continue;
      const error = await store.get(generatorKeys(id).error).then((t) => (t ? String((JSON.parse(t) as Partial<ErrorMarker>).message ?? '') : ''), () => '');
      const why = error || (await agentReason(store, id)) || '';
      if (why.startsWith(BEFORE_FAILED)) throw new ScriptFailure(`${why.slice(BEFORE_FAILED.length).replace(/^: /, `${BEFORE_FAILED} on generator ${id}, `)}; the load never started (plain artillery run stops there too, exit 1); fix the section or its target and run again (logs in ${store.location})`);
      throw new RigError(`generator ${id} stopped before it was ready (${exitText(fleet, id, code)})${why ? `: ${why}` : ''}; see ${generatorKeys(id).agentLog} and p0/artillery.log in ${store.location}`);
    }
    if (clock.now() > readyDeadline) {
      const missing = ids.filter((_, i) => !ready[i]);
      throw new RigError(`generator${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not ready within ${spec.readyTimeoutMs / 1000} s`);
    }
    await clock.sleep(readyPoll.next());
  }
}

/** What the agents want said about the run (e.g. no scenario secrets), once however many say it. */
async function readyNotes(store: RunStore, ids: readonly string[]): Promise<Set<string>> {
  const notes = new Set<string>();
  for (const id of ids) {
    const text = await store.get(generatorKeys(id).ready).catch(() => undefined);
    try {
      for (const n of (text ? (JSON.parse(text) as Partial<ReadyMarker>).notes : undefined) as unknown[] ?? []) if (typeof n === 'string') notes.add(n);
    } catch {
      /* an unreadable ready marker carries no notes */
    }
  }
  return notes;
}

/**
 * Watches the started run: each period's merged line as it closes, each generator lost on the way (into
 * `lost`), until every agent has exited, the user interrupts, or the run overruns. Returns whether it overran.
 */
async function watchRun(spec: RunSpec, deps: OrchestratorDeps, startAt: number, lost: Map<string, string>, isInterrupted: () => boolean, outage: StoreOutage): Promise<boolean> {
  const { store, fleet, clock, progress } = deps;
  const live = new LiveMerger(store, spec.generators.map((g) => ({ id: g.id, processes: g.processes.length })), () => clock.now());
  const deadline = startAt + (spec.expectedSeconds + 120) * 1000;
  let timedOut = false;
  for (;;) {
    if (isInterrupted()) break;
    const status = fleet.status();
    for (const [id, code] of status) {
      if (code !== undefined && code !== 0 && !lost.has(id)) {
        const agentSaid = await agentReason(store, id);
        const why = [`agent ${exitText(fleet, id, code)}`, agentSaid].filter(Boolean).join(': ');
        lost.set(id, why);
        live.markDone(id);
        progress({ kind: 'info', message: `generator ${id} lost (${why}); the run continues on the others` });
      } else if (code === 0) live.markDone(id);
    }
    try {
      for (const line of await live.poll()) progress({ kind: 'period', line });
      outage.ok('poll');
    } catch (err) {
      outage.failed('poll', err);
    }
    outage.check();
    if ([...status.values()].every((c) => c !== undefined)) break;
    if (clock.now() > deadline) {
      timedOut = true;
      progress({ kind: 'info', message: `the run overran its expected ${spec.expectedSeconds} s by 2 minutes; stopping it` });
      break;
    }
    await clock.sleep(500);
  }
  for (const line of await retrying('poll', () => live.flush(), clock, outage)) progress({ kind: 'period', line });
  return timedOut;
}

/** Runs the load test; always stops the fleet, whatever happens. */
export async function orchestrate(spec: RunSpec, deps: OrchestratorDeps): Promise<RunOutcome> {
  const { store, fleet, clock, progress } = deps;
  let interrupted = false;
  void deps.interrupted.then(() => {
    interrupted = true;
  });
  const isInterrupted = () => interrupted;
  const ids = spec.generators.map((g) => g.id);

  await writeSlices(spec, store, clock);
  // Agents stop when they have not seen a new beat for their timeout; one beat interval is the margin they read in.
  const outage = storeOutage(clock, Math.max(1000, spec.heartbeatTimeoutMs - DEFAULTS.heartbeatIntervalMs), progress);
  const stopHeartbeat = await startHeartbeat(store, clock, outage);

  const lost = new Map<string, string>();
  let startAt: number | undefined;
  let timedOut = false;
  try {
    progress({ kind: 'info', message: `launching ${ids.length} generator${ids.length === 1 ? '' : 's'}` });
    await fleet.launch(ids, spec.secretTargetUrl ? { targetUrl: spec.secretTargetUrl } : {});
    await awaitReady(spec, deps, ids, isInterrupted, outage);
    if (!interrupted) {
      for (const n of await readyNotes(store, ids)) progress({ kind: 'info', message: n });
      // One instant, one body, however often the write is retried: a PUT that failed after S3 stored it (a lost
      // answer) may already have been read by some agents, and a later instant would give the fleet two starts.
      const at = clock.now() + spec.startLeadMs;
      const body = JSON.stringify({ startAt: at } satisfies StartControl);
      startAt = await retrying('start', async () => {
        await store.put(CONTROL.start, body);
        return at;
      }, clock, outage);
      deps.onStart?.();
      progress({ kind: 'info', message: `all generators ready; shared start at ${new Date(startAt).toISOString()}` });
      timedOut = await watchRun(spec, deps, startAt, lost, isInterrupted, outage);
    }
  } finally {
    if (interrupted || timedOut || [...fleet.status().values()].some((c) => c === undefined)) {
      await store.put(CONTROL.abort, JSON.stringify({ at: clock.now(), reason: interrupted ? 'interrupted' : 'stopped' } satisfies AbortControl)).catch(() => undefined);
    }
    await fleet.stop();
    await stopHeartbeat();
  }
  return {
    startAt,
    endedAt: clock.now(),
    interrupted,
    timedOut,
    lostGenerators: [...lost].map(([id, reason]) => ({ id, reason })),
  };
}
