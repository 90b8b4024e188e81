/**
 * The pieces that make several regions one run: discovery of the regional stacks, the store that routes each
 * generator to its region and writes the control keys (one start instant) to every region, the fleet over the
 * regions' fleets, and the composed platform (per-region preflight URL, finish in every region).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { localStore } from '../../load-generators/lib/run-store';
import type { Fleet } from '../../scripts/contracts';
import type { Platform } from '../../scripts/platforms/platform';
import { parseOutputsFile } from '../../scripts/platforms/aws/discovery';
import { multiRegionPlatform, natWarning, remoteOutputs, remoteTargetUrl } from '../../scripts/platforms/aws/multi-region';
import { regionalFleet, regionalStore } from '../../scripts/platforms/aws/regional';
import { planRegions } from '../../scripts/core/regions';
import { tempDir } from '../helpers/cli';

const GEN = { GeneratorAsgName: 'home-asg', GeneratorAgentHome: '/opt/a', ResultsBucketName: 'home-bucket', Region: 'eu-west-2', MaxGenerators: '10' };
const EU = { GeneratorAsgName: 'us-asg', GeneratorAgentHome: '/opt/a', ResultsBucketName: 'us-bucket', Region: 'us-east-1', MaxGenerators: '4', RegionWeight: '1', EgressAddress1: '198.51.100.2', EgressAddress0: '198.51.100.1' };
/** Outputs a region's cost estimate reads (no target: the estimate counts only the generators). */
const OUTPUTS_FOR_COST = { source: 'test', generatorAsgName: 'g', generatorAgentHome: '/opt', resultsBucketName: 'b', stackNames: [] };

describe('discovery of generator regions', () => {
  test('the outputs file names every region\'s stack, weight and public target URL', () => {
    const o = parseOutputsFile(JSON.stringify({
      'LoadTestRig-Generators-us-east-1': EU,
      'LoadTestRig-Generators': { ...GEN, RegionWeight: '3', RemoteGeneratorRegions: 'us-east-1' },
      'LoadTestRig-Target': { TargetUrl: 'http://internal', PublicTargetUrl: 'http://public' },
    }), 'f.json');
    expect(o).toMatchObject({ regionWeight: 3, publicTargetUrl: 'http://public', remoteRegionNames: ['us-east-1'] });
    expect(o?.regions).toEqual([{ stackName: 'LoadTestRig-Generators-us-east-1', region: 'us-east-1', weight: 1, egressAddresses: ['198.51.100.1', '198.51.100.2'], generatorAsgName: 'us-asg', generatorAgentHome: '/opt/a', resultsBucketName: 'us-bucket', maxGenerators: 4, generatorInstanceType: undefined, generatorSecondaryIps: undefined, safetyNetFunctionName: undefined }]);
    expect(remoteOutputs(o!, o!.regions![0]!)).toMatchObject({ region: 'us-east-1', generatorAsgName: 'us-asg', targetUrl: 'http://public', stackNames: ['LoadTestRig-Generators-us-east-1'] });
    expect(remoteTargetUrl(o!, undefined)).toBe('http://public');
    expect(remoteTargetUrl(o!, 'http://mine')).toBe('http://mine');
  });

  test('a region the home stack names but that is not deployed: one line saying to deploy', () => {
    expect(() => parseOutputsFile(JSON.stringify({ 'LoadTestRig-Generators': { ...GEN, RemoteGeneratorRegions: 'us-east-1' } }), 'f.json'))
      .toThrow(/^f\.json: the generator stacks of LoadTestRig-Generators-us-east-1 are not deployed \(LoadTestRig-Generators names them\); run `npm run deploy`$/);
  });

  test('a target without PublicTargetUrl cannot be reached from another region: one line saying to redeploy', () => {
    const o = parseOutputsFile(JSON.stringify({ 'LoadTestRig-Generators-us-east-1': EU, 'LoadTestRig-Generators': GEN, 'LoadTestRig-Target': { TargetUrl: 'http://internal' } }), 'f.json');
    expect(() => remoteTargetUrl(o!, undefined)).toThrow(/no PublicTargetUrl output, so generators in us-east-1 cannot reach it; redeploy/);
  });
});

describe('regionalStore', () => {
  test('generator keys go to their region, control keys to every region (one start instant), list is the union', async () => {
    const [home, eu] = [tempDir('rig-home-'), tempDir('rig-eu-')];
    const store = regionalStore([
      { region: 'eu-west-2', store: localStore(home), generatorIds: ['g01', 'g02'] },
      { region: 'us-east-1', store: localStore(eu), generatorIds: ['g03'] },
    ]);
    await store.put('generators/g03/slice.json', '{"g":3}');
    await store.put('generators/g01/slice.json', '{"g":1}');
    await store.put('control/start.json', '{"startAt":42}');
    expect(fs.existsSync(path.join(eu, 'generators/g03/slice.json'))).toBe(true);
    expect(fs.existsSync(path.join(home, 'generators/g03/slice.json'))).toBe(false);
    for (const dir of [home, eu]) expect(fs.readFileSync(path.join(dir, 'control/start.json'), 'utf8')).toBe('{"startAt":42}');
    // An agent in us-east-1 writes its ready marker to its own bucket; the orchestrator reads it through the store.
    await localStore(eu).put('generators/g03/ready.json', '{}');
    expect(await store.get('generators/g03/ready.json')).toBe('{}');
    expect(await store.list('generators/')).toEqual(['generators/g01/slice.json', 'generators/g03/ready.json', 'generators/g03/slice.json']);
    // The copies of a shared key are one key; us-east-1's own keys (its SSM output) appear under regions/us-east-1/.
    await localStore(eu).put('ssm/preflight/stdout', 'ok from us-east-1');
    await localStore(home).put('ssm/preflight/stdout', 'ok from eu-west-2');
    expect(await store.list('control/')).toEqual(['control/start.json']);
    expect(await store.list('ssm/')).toEqual(['ssm/preflight/stdout']);
    expect(await store.list('regions/us-east-1/ssm/')).toEqual(['regions/us-east-1/ssm/preflight/stdout']);
    expect(await store.get('regions/us-east-1/ssm/preflight/stdout')).toBe('ok from us-east-1');
    expect(await store.get('ssm/preflight/stdout')).toBe('ok from eu-west-2');
  });
});

function fakeFleet(log: string[], name: string, fail = false): Fleet {
  const status = new Map<string, number | null | undefined>();
  return {
    async launch(ids) {
      log.push(`${name} launch ${ids.join(',')}`);
      if (fail) throw new Error(`${name} failed`);
      for (const id of ids) status.set(id, 0);
    },
    status: () => status,
    exitReason: () => undefined,
    async stop() {
      log.push(`${name} stop`);
    },
  };
}

test('regionalFleet launches each region\'s own generators, merges status, surfaces a region\'s failure, stops all', async () => {
  const log: string[] = [];
  const fleet = regionalFleet([{ region: 'a', fleet: fakeFleet(log, 'a'), generatorIds: ['g01'] }, { region: 'b', fleet: fakeFleet(log, 'b'), generatorIds: ['g02', 'g03'] }]);
  await fleet.launch(['g01', 'g03']);
  expect(log).toEqual(['a launch g01', 'b launch g03']);
  expect([...fleet.status().keys()].sort()).toEqual(['g01', 'g03']);
  await fleet.stop();
  expect(log.slice(-2)).toEqual(['a stop', 'b stop']);
  const failing = regionalFleet([{ region: 'a', fleet: fakeFleet([], 'a'), generatorIds: ['g01'] }, { region: 'b', fleet: fakeFleet([], 'b', true), generatorIds: ['g02'] }]);
  await expect(failing.launch(['g01', 'g02'])).rejects.toThrow('b failed');
});

test('multiRegionPlatform: each region probes the URL its generators load, other regions\' generators are retargeted, every region closes even when one fails', async () => {
  const limits = { processes: 1, openFiles: 60_000, ephemeralPorts: 60_000, sourceAddresses: 1, memoryBytes: 4e9, bytesPerVuser: 50_000, socketsPerVuser: 1 };
  const probes: string[] = [];
  const finished: string[] = [];
  const sessions: string[] = [];
  const part = (region: string, failClose = false): Platform => ({
    name: 'aws', limits, maxGenerators: 4, portRange: 64_512, secretsInEnvironment: false,
    sourceAddress: () => undefined,
    open: async ({ sessionSeconds }) => (sessions.push(`${region} ${String(sessionSeconds)}`), {
      target: { url: 'http://internal', stop: async () => undefined },
      store: localStore(tempDir(`rig-${region}-`)),
      fleet: fakeFleet([], region),
      metrics: { start: () => undefined, collect: async () => undefined },
      timings: { readyTimeoutMs: 1000, startLeadMs: 100 },
      preflight: async (spec) => void probes.push(`${region} ${spec.target}`),
      copyToRunDir: async () => undefined,
      close: async () => {
        finished.push(region);
        if (failClose) throw new Error('teardown failed');
      },
    }),
  });
  const cost = { outputs: OUTPUTS_FOR_COST, externalTarget: true };
  const p = multiRegionPlatform([{ region: 'eu-west-2', weight: 3, platform: part('eu-west-2', true), cost }, { region: 'us-east-1', weight: 1, platform: part('us-east-1'), cost }], 'http://public');
  expect(p.regions.map((r) => [r.region, r.weight, r.maxGenerators])).toEqual([['eu-west-2', 3, 4], ['us-east-1', 1, 4]]);
  const regional = planRegions({ phases: [{ duration: 10, arrivalCount: 40 }], sessionSeconds: 1, generators: 3, regions: p.regions });
  p.useRegions(regional);
  const run = await p.open({ runId: 'r1', runDir: tempDir('rig-regions-'), plan: regional.plan, sessionSeconds: 3600 });
  // Every region's fleet plans its command timeout, lifetime check and scale-in deadline with the session (--hold).
  expect(sessions).toEqual(['eu-west-2 3600', 'us-east-1 3600']);
  await run.preflight({ target: 'http://internal' });
  expect(probes).toEqual(['eu-west-2 http://internal', 'us-east-1 http://public']);
  expect([0, 1, 2].map((i) => p.generatorTarget(i))).toEqual([undefined, undefined, 'http://public']);
  await run.close();
  expect(finished.sort()).toEqual(['eu-west-2', 'us-east-1']);
});

test('--max-cost caps the run, not each region: three regions each under the cap but above it together are refused before any region opens', async () => {
  const limits = { processes: 2, openFiles: 60_000, ephemeralPorts: 60_000, sourceAddresses: 1, memoryBytes: 4e9, bytesPerVuser: 50_000, socketsPerVuser: 1 };
  const opened: string[] = [];
  const part = (region: string): Platform => ({
    name: 'aws', limits, maxGenerators: 10, portRange: 64_512, secretsInEnvironment: false,
    sourceAddress: () => undefined,
    open: async () => {
      opened.push(region);
      throw new Error('not in this test');
    },
  });
  const regions = ['eu-west-2', 'us-east-1', 'ap-south-1'];
  const build = (maxCost?: number, lines: string[] = []) => {
    const p = multiRegionPlatform(regions.map((region, k) => ({
      region, weight: 1, platform: part(region), ...(k > 0 ? { natAddresses: 2 } : {}),
      cost: { outputs: { ...OUTPUTS_FOR_COST, generatorInstanceType: 'c5.large' }, externalTarget: true },
    })), 'http://public', (l) => lines.push(l), maxCost);
    const regional = planRegions({ phases: [{ duration: 600, arrivalCount: 30_000 }], sessionSeconds: 600, generators: 6, regions: p.regions });
    p.useRegions(regional);
    return { p, plan: regional.plan, lines };
  };
  // What the run costs, all regions summed, and what each region costs alone.
  const { p: free, plan, lines } = build();
  await expect(free.open({ runId: 'r0', runDir: tempDir('rig-cost-'), plan })).rejects.toThrow('not in this test');
  const total = Number(/^estimated cost of this run: \$(\d+\.\d\d) \(eu-west-2 \$[\d.]+ \+ us-east-1 \$[\d.]+ \+ ap-south-1 \$[\d.]+\)$/.exec(lines[0] ?? '')?.[1]);
  const each = [...(lines[0] ?? '').matchAll(/ \$(\d+\.\d\d)/g)].slice(1).map((m) => Number(m[1]));
  expect(each).toHaveLength(3);
  expect(total).toBeCloseTo(each.reduce((a, b) => a + b, 0), 2);
  // The other regions' generators leave through NAT: their boot downloads and load are priced there.
  expect(lines.some((l) => l.startsWith('  us-east-1 NAT gateway data: $'))).toBe(true);
  expect(lines.some((l) => l.startsWith('  eu-west-2 NAT gateway data'))).toBe(false);

  opened.length = 0;
  const cap = Math.max(...each) + 0.01; // every region fits alone
  const capped = build(cap);
  await expect(capped.p.open({ runId: 'r1', runDir: tempDir('rig-cost-'), plan: capped.plan })).rejects.toThrow(`the run is estimated at $${total.toFixed(2)} (all 3 regions), above --max-cost ${cap}; lower --vusers, --ramp/--hold or --generators, or raise --max-cost`);
  expect(opened).toEqual([]);
});

test('a region planned past its NAT addresses\' connections to one destination gets a warning naming the bound', () => {
  expect(natWarning('us-east-1', 110_000, 2)).toBeUndefined();
  expect(natWarning('eu-west-2', 1_000_000, undefined)).toBeUndefined(); // the home region has no NAT
  expect(natWarning('us-east-1', 110_001, 2)).toBe('region us-east-1 plans 110,001 vusers at once, but its 2 NAT address(es) hold 55,000 connections each to one load balancer address (110,000 to one, 220,000 spread over two): expect connect errors past that; lower the region\'s weight or add NAT addresses');
});
