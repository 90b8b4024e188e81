/**
 * Each generator region probes what its generators will connect to. Generators in other regions load the target's
 * public URL instead of --target (multi-region.ts generatorTarget), so their probe does too; but a ws scenario whose
 * connect step names its own URL opens that URL in every region, so it is probed as written there. Before, the
 * remote regions' probe replaced it with the public target URL.
 */
import { localStore } from '../../load-generators/lib/run-store';
import type { Fleet } from '../../scripts/contracts';
import { planRegions } from '../../scripts/core/regions';
import { multiRegionPlatform } from '../../scripts/platforms/aws/multi-region';
import type { Platform } from '../../scripts/platforms/platform';
import { preflightSpec, type ProbeSpec } from '../../scripts/preflight';
import type { ArtilleryScript } from '../../scripts/scenario';
import { tempDir } from '../helpers/cli';

const limits = { processes: 1, openFiles: 60_000, ephemeralPorts: 60_000, sourceAddresses: 1, memoryBytes: 4e9, bytesPerVuser: 50_000, socketsPerVuser: 1 };
const cost = { outputs: { source: 'test', generatorAsgName: 'g', generatorAgentHome: '/opt', resultsBucketName: 'b', stackNames: [] }, externalTarget: true };

/** The probe each region ran: region → the spec's target and handshake URL. */
async function probesOf(spec: ProbeSpec): Promise<string[]> {
  const probes: string[] = [];
  const part = (region: string): Platform => ({
    name: 'aws', limits, maxGenerators: 4, portRange: 64_512, secretsInEnvironment: false,
    sourceAddress: () => undefined,
    open: async () => ({
      target: { url: 'ws://internal', stop: async () => undefined },
      store: localStore(tempDir(`rig-${region}-`)),
      fleet: { launch: async () => undefined, status: () => new Map(), exitReason: () => undefined, stop: async () => undefined } as unknown as Fleet,
      metrics: { start: () => undefined, collect: async () => undefined },
      timings: { readyTimeoutMs: 1000, startLeadMs: 100 },
      preflight: async (s) => void probes.push(`${region} ${s.target} ${s.realtimeOptions?.url ?? '-'}`),
      copyToRunDir: async () => undefined,
      close: async () => undefined,
    }),
  });
  const p = multiRegionPlatform([{ region: 'eu-west-2', weight: 1, platform: part('eu-west-2'), cost }, { region: 'us-east-1', weight: 1, platform: part('us-east-1'), cost }], 'ws://public');
  const regional = planRegions({ phases: [{ duration: 10, arrivalCount: 40 }], sessionSeconds: 1, generators: 2, regions: p.regions });
  p.useRegions(regional);
  const run = await p.open({ runId: 'r1', runDir: tempDir('rig-regions-'), plan: regional.plan, sessionSeconds: 10 });
  await run.preflight(spec);
  await run.close();
  return probes;
}

const ws = (connect?: unknown, variables: Record<string, unknown> = {}) =>
  ({ config: { variables }, scenarios: [{ engine: 'ws', flow: [...(connect === undefined ? [] : [{ connect }]), { send: 'hi' }] }] }) as unknown as ArtilleryScript;

test("a connect step's own URL is probed as written in every region", async () => {
  expect(await probesOf(preflightSpec(ws('wss://feed.example/live'), 'ws://internal', false))).toEqual([
    'eu-west-2 wss://feed.example/live wss://feed.example/live',
    'us-east-1 wss://feed.example/live wss://feed.example/live',
  ]);
  expect(await probesOf(preflightSpec(ws({ target: 'ws://{{ host }}/live' }, { host: 'feed.example' }), 'ws://internal', false))).toEqual([
    'eu-west-2 ws://feed.example/live ws://feed.example/live',
    'us-east-1 ws://feed.example/live ws://feed.example/live',
  ]);
});

test('what comes from the target follows it: the target itself, and a connect URL made from {{ target }}', async () => {
  expect(await probesOf(preflightSpec(ws(), 'ws://internal', false))).toEqual(['eu-west-2 ws://internal -', 'us-east-1 ws://public -']);
  expect(await probesOf(preflightSpec(ws('{{ target }}/live/{{ feed }}', { feed: 'a' }), 'ws://internal', false))).toEqual([
    'eu-west-2 ws://internal/live/a ws://internal/live/a',
    'us-east-1 ws://public/live/a ws://public/live/a',
  ]);
});
