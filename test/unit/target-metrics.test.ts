/**
 * The GETs of the reference target's /metrics (the run's sampler, the bench's figures) settle whatever the answer
 * does: they settled only on the answer's end or the request's error, so an answer cut off after its headers (no
 * error reaches a response nothing listens to) or one that streams on left them pending, and `sampler.stop()`, which
 * the run's report waits for, never returned.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { TARGET_METRICS_PREFIX } from '../../load-generators/lib/run-protocol';
import { localStore } from '../../load-generators/lib/run-store';
import { startTargetSampler } from '../../scripts/adapters/target-metrics';
import { targetMetrics } from '../../scripts/bench/sampling';
import { loopbackHttpServer } from '../helpers/http-server';
import { settlesWithin } from '../helpers/wait';

const METRICS = JSON.stringify({ connections: 7, memory: { rss: 1234 } });

/** /metrics answered by `how`: whole, cut off after its headers and a part, silent after its headers, or a trickle. */
type How = 'whole' | 'cut' | 'silent' | 'trickle';
/** The broken answers, as the tests name them. */
const BROKEN = [
  ['cut off after its headers', 'cut'],
  ['silent after its headers', 'silent'],
  ['trickling on (a byte every 100 ms)', 'trickle'],
] as const;
let how: How = 'whole';
const handler: http.RequestListener = (_req, res) => {
  if (how === 'whole') return res.writeHead(200, { 'content-type': 'application/json' }).end(METRICS);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(METRICS.length + 1000) }).flushHeaders();
  if (how === 'cut') res.write(METRICS.slice(0, 5), () => res.socket?.destroy());
  if (how === 'trickle') {
    const timer = setInterval(() => res.write(' '), 100);
    res.on('close', () => clearInterval(timer));
  }
};
let base = '';
let server: Awaited<ReturnType<typeof loopbackHttpServer>> | undefined;
beforeAll(async () => {
  server = await loopbackHttpServer(handler);
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => server?.close());

describe("the run's target sampler: stop() returns whatever /metrics does", () => {
  /** Samples once at start and once at stop (the interval is never reached); the samples stored. */
  async function sampleTwice(): Promise<string[]> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-target-metrics-'));
    const store = localStore(dir);
    const sampler = startTargetSampler({ url: base, store, intervalMs: 1000 });
    await settlesWithin(sampler.stop(), 10_000);
    const keys = await store.list(TARGET_METRICS_PREFIX);
    return Promise.all(keys.map(async (k) => (await store.get(k)) as string));
  }

  test('a whole answer is stored', async () => {
    how = 'whole';
    const samples = await sampleTwice();
    expect(samples).toHaveLength(2);
    expect(JSON.parse(samples[0] as string)).toMatchObject({ metrics: { connections: 7 } });
  });

  test.each(BROKEN)('an answer %s: no sample, and stop() returns within the sample timeout', async (_answer, h) => {
    how = h;
    expect(await sampleTwice()).toEqual([]);
  });
});

describe("the bench's target figures (scripts/bench/sampling.ts)", () => {
  test('a whole answer: its rss and connections', async () => {
    how = 'whole';
    expect(await settlesWithin(targetMetrics(base), 10_000)).toEqual({ rss: 1234, connections: 7 });
  });

  test.each(BROKEN)('an answer %s: none, within the 2-s timeout', async (_answer, h) => {
    how = h;
    expect(await settlesWithin(targetMetrics(base), 10_000)).toEqual({});
  });
});
