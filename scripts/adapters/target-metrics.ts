/**
 * Target-side samples (edge adapter): polls the reference target's `GET /metrics` every few seconds
 * during a run and keeps each answer in the run store under `target/metrics/<ts>.json`, so the report
 * can show target CPU, instance (worker) count and connections on the same time axis as the load.
 * Only the rig's own reference target is polled: a user's `--target` gets no request the script does not make.
 */
import { TARGET_METRICS_PREFIX, targetMetricsKey } from '../../load-generators/lib/run-protocol';
import type { CloudWatchSection, LoadWindow, MetricsSource, RunStore } from '../contracts';
import { readRunFile } from '../report/run-files';
import { getJson } from './get-json';

/** One target sample as the report shows it (a subset of the reference target's /metrics). */
export interface TargetSample {
  readonly at: number;
  /** Instances serving (worker processes locally, tasks/instances on AWS). */
  readonly instances?: number;
  readonly connections?: number;
  /** % of one core, summed over workers. */
  readonly cpuPercent?: number;
  readonly rssBytes?: number;
  readonly eventLoopLagMs?: number;
  readonly messagesOut?: number;
  readonly peakSendRatePerSec?: number;
}

/** A running sampler. */
export interface TargetSampler {
  /** Stops polling and waits for the sample in flight to be stored. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startTargetSampler}. */
export interface TargetSamplerProps {
  readonly url: string;
  readonly store: RunStore;
  /** @default 5000 */
  readonly intervalMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/** Starts polling `<url>/metrics`; the first poll is immediate. */
export function startTargetSampler(props: TargetSamplerProps): TargetSampler {
  const intervalMs = props.intervalMs ?? 5000;
  const now = props.now ?? Date.now;
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const sample = async () => {
    try {
      const body = await getJson(`${props.url.replace(/\/+$/, '')}/metrics`, Math.min(4000, intervalMs));
      const at = now();
      await props.store.put(targetMetricsKey(at), JSON.stringify({ at, metrics: body }));
    } catch {
      // a missed sample is a gap in the chart, not a failed run
    }
  };
  const poll = () => {
    inFlight = sample();
    void inFlight.then(() => {
      if (!stopped) timer = setTimeout(poll, intervalMs);
    });
  };
  poll();
  return {
    async stop() {
      if (stopped) return inFlight;
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
      // One last sample once the load has stopped: the target's final counts (e.g. after a Ctrl-C).
      inFlight = sample();
      await inFlight;
    },
  };
}

/** Options of {@link targetMetricsSource}. */
export interface TargetMetricsSourceProps extends TargetSamplerProps {
  /**
   * Whether the target is the rig's reference target, whose `/metrics` is polled. A user's own target (`--target`)
   * is not: it got a `GET /metrics` every 5 s its script never made (a Prometheus endpoint, a 404 in its logs).
   */
  readonly referenceTarget: boolean;
  /** What the platform measures besides the target's /metrics for the load's window (AWS: CloudWatch). */
  readonly extra?: (window: LoadWindow | undefined) => Promise<CloudWatchSection | undefined>;
}

/**
 * The metrics source every platform builds on: the target's /metrics sampled into the store from
 * `start()` until `collect()`, then the platform's own extra figures.
 */
export function targetMetricsSource(props: TargetMetricsSourceProps): MetricsSource {
  let sampler: TargetSampler | undefined;
  let collected: Promise<CloudWatchSection | undefined> | undefined;
  return {
    start() {
      if (props.referenceTarget && !sampler && !collected) sampler = startTargetSampler(props);
    },
    collect(window) {
      collected ??= (async () => {
        await sampler?.stop();
        return props.extra ? props.extra(window) : undefined;
      })();
      return collected;
    },
  };
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Maps one stored /metrics answer to a {@link TargetSample}. */
export function toTargetSample(at: number, m: unknown): TargetSample {
  const r = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
  const memory = (typeof r.memory === 'object' && r.memory !== null ? r.memory : {}) as Record<string, unknown>;
  // `cpu` is the whole target (workers + primary), % of one core.
  const cpuSum = num(r.cpu);
  return {
    at,
    instances: num(r.workers),
    connections: num(r.connections),
    cpuPercent: cpuSum === undefined ? undefined : Math.round(cpuSum * 10) / 10,
    rssBytes: num(memory.rss),
    eventLoopLagMs: num(r.eventLoopLagMs),
    messagesOut: num(r.messagesOut),
    peakSendRatePerSec: num(r.peakSendRatePerSec),
  };
}

/** Reads every stored target sample back, sorted by time; a bad one is skipped, said through `note`. */
export async function readTargetSamples(store: RunStore, note: (line: string) => void = () => undefined): Promise<TargetSample[]> {
  const out: TargetSample[] = [];
  for (const key of await store.list(TARGET_METRICS_PREFIX)) {
    if (!key.endsWith('.json')) continue;
    const sample = await readRunFile<{ at: number; metrics?: unknown }>(store, key, 'target-metrics', note);
    if (sample) out.push(toTargetSample(sample.at, sample.metrics));
  }
  return out.sort((a, b) => a.at - b.at);
}
