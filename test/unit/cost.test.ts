/** The run's cost estimate (pure) and --max-cost. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { validateFlags } from '../../scripts/options';
import { loadSecondsOf } from '../../scripts/platforms/aws/before-scaling';
import { BOOT_DOWNLOAD_GB, CW_AGENT_METRICS, FLOW_LOG, INSTANCE_PRICE_USD_PER_HOUR, PRICES, costLines, estimateRunCost, maxCostRefusal, sumRegions } from '../../scripts/platforms/aws/cost';
import { buildTestRig } from '../cdk/helpers';
import { Template } from 'aws-cdk-lib/assertions';
import type { CostInputs } from '../../scripts/platforms/aws/cost';
import { rigOutputsFrom } from '../../scripts/platforms/aws/discovery';
import { checkRunCost, remoteOutputs } from '../../scripts/platforms/aws/multi-region';
import type { Plan } from '../../scripts/core/plan';
import type { Platform } from '../../scripts/platforms/platform';

// The 96,000-vuser run: 20-minute ramp, every vuser held to the end, 2 c5.large generators, up to 4 t3.small targets.
const RUN: CostInputs = {
  region: 'us-east-1',
  generatorInstanceType: 'c5.large',
  generators: 2,
  processesPerGenerator: 2,
  loadSeconds: 2400,
  peakConnections: 96_000,
  peakArrivalRate: 80,
  target: { kind: 'ec2', instanceType: 't3.small', maxCapacity: 4 },
  viaLoadBalancer: true,
  connectionsOpened: 96_000,
  // The deploy's default (cdk.json flowLogTraffic).
  flowLogTraffic: 'REJECT',
};

test('each item is priced from its stated basis; the total is their sum', () => {
  const e = estimateRunCost(RUN);
  const by = Object.fromEntries(e.lines.map((l) => [l.item, l.usd]));
  const genHours = (2400 + 900) / 3600;
  expect(by.generators).toBeCloseTo(2 * genHours * 0.085, 2);
  expect(by['target instances (at most)']).toBeCloseTo(4 * (2400 / 3600) * 0.0208, 2);
  // 96,000 active connections / 3,000 = 32 LCU, above 80 new/s / 25 = 3.2.
  expect(by['load balancer capacity units']).toBeCloseTo(32 * (2400 / 3600) * PRICES.albLcuHour, 2);
  // The rig's 12 RunId metrics, the agent's 4 rollups, and per generator 7 detailed-monitoring + the agent's 4.
  expect(e.lines.find((l) => l.item === 'CloudWatch metrics')?.basis).toMatch(/^38 metrics × 1 h prorated/);
  expect(e.totalUsd).toBeCloseTo(e.lines.reduce((a, l) => a + l.usd, 0), 1);
  expect(e.totalUsd).toBeGreaterThan(0.3);
  expect(e.totalUsd).toBeLessThan(2);
  expect(e.unpriced).toEqual([]);
  const text = costLines(e).join('\n');
  expect(text).toMatch(/^estimated cost of this run: \$\d+\.\d\d\n/);
  expect(text).toContain('2 × c5.large × 0.92 h × $0.085/h');
  expect(text).toMatch(/assumptions: us-east-1 On-Demand list prices; generators bill 15 min beyond the 40 min of load/);
});

// Flow logs bill as vended logs per GB delivered ("Amazon CloudWatch Pricing"). A record is one flow, "characterized by a
// 5-tuple on a per network interface basis", per aggregation interval, and "When a network interface is attached to a
// Nitro-based instance, the aggregation interval is always 1 minute or less, regardless of the specified maximum
// aggregation interval" (VPC User Guide, "Flow log records"): the estimate priced 10-minute windows (the template's
// maximum), a tenth of what c5/t3 interfaces log, and one record per held connection, none for short-lived ones.
const ALL: CostInputs = { ...RUN, flowLogTraffic: 'ALL' };
const flowLine = (inputs: CostInputs) => estimateRunCost(inputs).lines.find((l) => l.item.startsWith('VPC flow logs'));

test('flowLogTraffic=ALL: each flow, both directions, on each interface it crosses, every minute ("Nitro … always 1 minute or less", VPC User Guide "Flow log records"), plus one window per connection opened', () => {
  // 96,000 held through 40 one-minute windows, and each opened once: 3,936,000 flows × 2 directions × 4 interfaces.
  expect(flowLine(ALL)?.item).toBe('VPC flow logs (all traffic)');
  expect(flowLine(ALL)?.basis).toBe('(96000 held × 40 1-min window(s) + 96000 opened) × 2 directions × 4 interface(s) × 150 B = 4.72 GB × $0.5/GB');
  expect(flowLine(ALL)?.usd).toBeCloseTo(((96_000 * 40 + 96_000) * 2 * 4 * FLOW_LOG.recordBytes / 1e9) * PRICES.vendedLogsGb, 2);
  expect(flowLine(ALL)!.usd).toBeGreaterThan(2);
  // The run's largest item: the estimate must not leave it out.
  expect(Math.max(...estimateRunCost(ALL).lines.map((l) => l.usd))).toBe(flowLine(ALL)?.usd);
  // Short connections: 500,000 vusers opening one each over 10 minutes, 1,000 at a time, are 500,000 flows, not 1,000 × 10.
  const short = flowLine({ ...ALL, peakConnections: 1000, connectionsOpened: 500_000, loadSeconds: 600 });
  expect(short?.basis).toMatch(/^\(1000 held × 10 1-min window\(s\) \+ 500000 opened\) × 2 directions × 4 interface\(s\)/);
  expect(short?.usd).toBeCloseTo(((1000 * 10 + 500_000) * 2 * 4 * FLOW_LOG.recordBytes / 1e9) * PRICES.vendedLogsGb, 2);
  // Another target: only the generator's interface is in the rig's VPC; behind NAT, the gateway's interface too.
  expect(flowLine({ ...ALL, target: undefined, viaLoadBalancer: false })?.basis).toMatch(/× 1 interface\(s\) ×/);
  expect(flowLine({ ...ALL, viaNat: true })?.basis).toMatch(/× 5 interface\(s\) ×/);
  expect(estimateRunCost(ALL).assumptions).toContain('VPC flow logs of all traffic (flowLogTraffic=ALL): a record per flow per minute on each interface (Nitro instances aggregate at most 1 minute), 150 bytes each, at least one connection per vuser');
  // Stacks deployed before they said what they log (no FlowLogTraffic output) logged all traffic: priced so.
  const { flowLogTraffic: _unsaid, ...older } = ALL;
  expect(flowLine(older)?.usd).toBe(flowLine(ALL)?.usd);
  expect(estimateRunCost(older).assumptions.some((a) => a.startsWith('VPC flow logs of all traffic (stacks deployed before they said what they log)'))).toBe(true);
});

test('flowLogTraffic=ALL over several regions: the other regions\' connections cross the home load balancer\'s two sides and the target, logged (and billed) at home', () => {
  const home = flowLine({ ...ALL, remoteLoad: { peakConnections: 48_000, connectionsOpened: 48_000 } });
  expect(home?.basis).toBe('(96000 held × 40 1-min window(s) + 96000 opened) × 2 directions × 4 interface(s) + (48000 held × 40 1-min window(s) + 48000 opened) from other regions × 2 directions × 3 interfaces (load balancer\'s two sides, target) × 150 B = 6.49 GB × $0.5/GB');
  expect(home?.usd).toBeCloseTo((((96_000 * 40 + 96_000) * 4 + (48_000 * 40 + 48_000) * 3) * 2 * FLOW_LOG.recordBytes / 1e9) * PRICES.vendedLogsGb, 2);
  // --target elsewhere: nobody loads the rig's target.
  expect(flowLine({ ...ALL, target: undefined, viaLoadBalancer: false, remoteLoad: { peakConnections: 48_000, connectionsOpened: 48_000 } })?.basis).not.toMatch(/other regions/);
});

/** checkRunCost's lines for a home region (us-east-1, the rig's target) and eu-west-2 behind NAT, each with its plan. */
function twoRegionLines(flowLogTraffic: 'ALL' | 'REJECT', plans: readonly [{ peak: number; rate: number }, { peak: number; rate: number }]): string[] {
  const plan = ({ peak, rate }: { peak: number; rate: number }) => ({ generators: [], processes: [], totalArrivals: peak, peakConcurrent: peak, capacityPerGenerator: 50000, bindingLimit: 'memory', generatorsNeeded: 1, peakArrivalRate: rate, warnings: [] }) as unknown as Plan;
  const outputs = { source: 'test', generatorAsgName: 'g', generatorAgentHome: '/opt', resultsBucketName: 'b', stackNames: [], flowLogTraffic };
  const platform = { limits: { processes: 2 } } as unknown as Platform;
  const lines: string[] = [];
  checkRunCost([
    { region: 'us-east-1', weight: 2, platform, cost: { outputs: { ...outputs, targetAsgName: 't', targetInstanceType: 't3.small', targetMaxCapacity: 4 }, externalTarget: false } },
    { region: 'eu-west-2', weight: 1, platform, natAddresses: 2, cost: { outputs, externalTarget: true } },
  ], (k) => plan(plans[k === 0 ? 0 : 1]), undefined, (l) => lines.push(l));
  return lines;
}

test('checkRunCost gives the home region the other regions\' load on its target (flow logs of all traffic)', () => {
  const lines = twoRegionLines('ALL', [{ peak: 64_000, rate: 80 }, { peak: 32_000, rate: 80 }]);
  expect(lines.find((l) => l.startsWith('  us-east-1 VPC flow logs'))).toMatch(/\+ \(32000 held × \d+ 1-min window\(s\) \+ 32000 opened\) from other regions/);
  expect(lines.find((l) => l.startsWith('  eu-west-2 VPC flow logs'))).not.toMatch(/other regions/);
});

// The default: REJECT. cdk-nag's AwsSolutions-VPC7 ("The VPC does not have an associated Flow Log") is met by any flow
// log on the VPC, and refused connections are what the rig's flow logs are read for (a security group or NACL blocking
// the load); a working run's own connections are all accepted.
test('flowLogTraffic=REJECT (the default): the run\'s own connections log nothing; internet scans of the public addresses at an assumed rate, well under a cent', () => {
  const reject = { ...ALL, flowLogTraffic: 'REJECT' as const };
  expect(flowLine(reject)?.item).toBe('VPC flow logs (rejected traffic only)');
  // 2 generators and up to 4 target instances, 55 minutes, 1 refused flow a second each.
  expect(flowLine(reject)?.basis).toBe('6 public address(es) × 3300 s × 1 refused flow/s (internet scans, assumed) × 150 B = 0.003 GB × $0.5/GB; the run\'s own connections are accepted and not logged');
  expect(flowLine(reject)!.usd).toBeLessThan(0.01);
  // Behind NAT the generators have no address of their own: the region's NAT gateways' are scanned.
  expect(flowLine({ ...reject, target: undefined, viaLoadBalancer: false, viaNat: true, natAddresses: 2 })?.basis).toMatch(/^2 public address\(es\) ×/);
  expect(estimateRunCost(reject).assumptions).toContain('VPC flow logs of rejected traffic only (flowLogTraffic=REJECT): none from a working run\'s own connections, internet scans at an assumed 1 refused flow/s per public address, 150 bytes per record');
  expect(estimateRunCost(ALL).totalUsd - estimateRunCost(reject).totalUsd).toBeGreaterThan(2);
});

test('the flow logs priced are the ones the stacks deploy: rejected traffic unless -c flowLogTraffic=ALL, to CloudWatch Logs, said by each VPC\'s stack and read back by discovery', () => {
  for (const [context, traffic] of [[{}, 'REJECT'], [{ flowLogTraffic: 'ALL' }, 'ALL'], [{ flowLogTraffic: 'all' }, 'ALL']] as const) {
    const { rig } = buildTestRig({ generatorRegions: 'eu-west-2,us-east-1', ...context });
    for (const stack of [rig.network, ...rig.regional]) {
      const t = Template.fromStack(stack);
      const logs = Object.values(t.findResources('AWS::EC2::FlowLog')) as Array<{ Properties: Record<string, unknown> }>;
      // 10 minutes is the maximum; a Nitro instance's interface aggregates at most 1 minute whatever it says (priced so).
      expect(logs.map((l) => [l.Properties.ResourceType, l.Properties.TrafficType, l.Properties.MaxAggregationInterval, l.Properties.LogDestinationType])).toEqual([['VPC', traffic, 600, 'cloud-watch-logs']]);
      expect(t.findOutputs('FlowLogTraffic')).toEqual({ FlowLogTraffic: expect.objectContaining({ Value: traffic }) });
    }
  }
  expect(FLOW_LOG.windowSeconds).toBe(60);
  const gen = { GeneratorAsgName: 'g', GeneratorAgentHome: '/opt', ResultsBucketName: 'b', RemoteGeneratorRegions: 'us-east-1' };
  const outputs = rigOutputsFrom({ 'LoadTestRig-Network': { FlowLogTraffic: 'REJECT' }, 'LoadTestRig-Generators': gen, 'LoadTestRig-Generators-us-east-1': { ...gen, FlowLogTraffic: 'ALL' } }, 'test');
  expect(outputs?.flowLogTraffic).toBe('REJECT');
  expect(outputs?.regions?.[0]?.flowLogTraffic).toBe('ALL');
  expect(remoteOutputs(outputs!, outputs!.regions![0]!).flowLogTraffic).toBe('ALL');
  // Stacks deployed before the output: unsaid, priced as all traffic.
  expect(rigOutputsFrom({ 'LoadTestRig-Generators': gen, 'LoadTestRig-Generators-us-east-1': gen }, 'test')?.flowLogTraffic).toBeUndefined();
}, 120_000);

test("the CloudWatch agent's metrics counted are the ones its config on the generators collects", () => {
  const install = fs.readFileSync(path.join(__dirname, '..', '..', 'load-generators', 'install-generator.sh'), 'utf8');
  const config = JSON.parse(/cat > "\$CW_CONFIG" <<'EOF'\n([\s\S]*?)\nEOF/.exec(install)?.[1] ?? '{}') as { metrics: { metrics_collected: Record<string, { measurement?: string[] }>; aggregation_dimensions: string[][] } };
  // One rollup besides the per-instance series: the estimate counts each metric twice, once per instance and once for the group.
  expect(config.metrics.aggregation_dimensions).toEqual([['AutoScalingGroupName']]);
  const measured = Object.values(config.metrics.metrics_collected).flatMap((m) => m.measurement ?? []);
  // StatsD's gauges: the open-files loop feeds one (open_files).
  const statsd = [...install.matchAll(/echo "(\w+):\$\w+\|g"/g)].map((m) => m[1]);
  expect([...measured, ...statsd]).toHaveLength(CW_AGENT_METRICS);
});

test('without the rig\'s target (--target elsewhere) there is no target or load balancer item; another region says prices differ', () => {
  const e = estimateRunCost({ ...RUN, target: undefined, viaLoadBalancer: false, region: 'eu-west-1' });
  expect(e.lines.map((l) => l.item)).not.toEqual(expect.arrayContaining(['load balancer capacity units']));
  expect(e.lines.some((l) => l.item.startsWith('target'))).toBe(false);
  expect(e.assumptions[0]).toBe('us-east-1 On-Demand list prices (the run is in eu-west-1: up to ~30% higher there)');
});

test('the Fargate target is priced per vCPU- and GB-hour', () => {
  const e = estimateRunCost({ ...RUN, target: { kind: 'fargate', taskVcpu: 1, taskGb: 2, maxTasks: 3 } });
  const tasks = e.lines.find((l) => l.item === 'target tasks (at most)');
  expect(tasks?.usd).toBeCloseTo(3 * (2400 / 3600) * (PRICES.fargateVcpuHour + 2 * PRICES.fargateGbHour), 2);
});

test('--max-cost: refuses an estimate above it, passes one below, and cannot cap an unpriced instance type', () => {
  const e = estimateRunCost(RUN);
  expect(maxCostRefusal(e, e.totalUsd)).toBeUndefined();
  expect(maxCostRefusal(e, e.totalUsd - 0.01)).toBe(`the run is estimated at $${e.totalUsd.toFixed(2)}, above --max-cost ${e.totalUsd - 0.01}; lower --vusers, --ramp/--hold or --generators, or raise --max-cost`);
  expect(INSTANCE_PRICE_USD_PER_HOUR['x9.huge']).toBeUndefined();
  const unknown = estimateRunCost({ ...RUN, generatorInstanceType: 'x9.huge' });
  expect(unknown.unpriced).toEqual(['x9.huge generators']);
  expect(costLines(unknown)[0]).toMatch(/plus x9\.huge generators \(no list price/);
  expect(maxCostRefusal(unknown, 1000)).toMatch(/^--max-cost 1000 cannot be enforced: no list price for x9\.huge generators/);
});

test('--max-cost is a positive amount of dollars', () => {
  expect(validateFlags({ maxCost: '5' }).maxCost).toBe(5);
  expect(validateFlags({ maxCost: '2.50' }).maxCost).toBe(2.5);
  expect(validateFlags({}).maxCost).toBeUndefined();
  for (const bad of ['0', '-1', 'five', '$5', '']) {
    expect(() => validateFlags({ maxCost: bad })).toThrow(`--max-cost ${JSON.stringify(bad)} must be a positive amount of US dollars, e.g. --max-cost 5`);
  }
});

test('load seconds: the longest slice plus one session from the plan\'s peak and rate', () => {
  const plan = { generators: [{ index: 0, phases: [{ duration: 1200, arrivalCount: 48000 }], processes: [], arrivals: 48000, peakConcurrent: 48000 }], totalArrivals: 96000, peakConcurrent: 96000, capacityPerGenerator: 50000, bindingLimit: 'memory' as const, generatorsNeeded: 2, peakArrivalRate: 80, warnings: [] };
  expect(loadSecondsOf(plan)).toBe(2400);
  // Durations with units count as the rig reads them (Number("20m") was NaN).
  const withUnits = { ...plan, generators: [{ ...plan.generators[0]!, phases: [{ duration: '20m', arrivalCount: 48000 }] }] };
  expect(loadSecondsOf(withUnits)).toBe(2400);
});

test('S3 requests count every object a run writes and the live view\'s LISTs (one per generator per 2 s at most)', () => {
  const line = estimateRunCost(RUN).lines.find((l) => l.item === 'S3 requests')!;
  // Per generator: 2 processes × 240 periods + 480 health samples + 1,200 LISTs + 50 control objects.
  expect(line.basis).toContain('~4420 PUT/LIST');
  expect(line.usd).toBeCloseTo((4420 / 1000) * PRICES.s3PutPer1000, 2);
});

test('a T3 target pegged at 100% in unlimited mode: the surplus credits above its baseline, at the stated price', () => {
  const e = estimateRunCost(RUN);
  const line = e.lines.find((l) => l.item === 'target CPU credits (at most)')!;
  // t3.small: 2 vCPUs, 20% baseline each; 4 instances over 40 min of load.
  expect(line.usd).toBeCloseTo(4 * (2400 / 3600) * 2 * 0.8 * PRICES.t3SurplusVcpuHour, 2);
  expect(PRICES.t3SurplusVcpuHour).toBe(0.05);
  expect(e.assumptions).toContain('a T3 target pegged at 100% CPU with no earned credits to spend (an upper bound)');
  // Not burstable, or Fargate: no credits.
  expect(estimateRunCost({ ...RUN, target: { kind: 'ec2', instanceType: 'c5.large', maxCapacity: 4 } }).lines.some((l) => l.item.includes('credits'))).toBe(false);
});

test('generators behind NAT: their boot downloads and their load are processed by the gateway, at the stated price', () => {
  const e = estimateRunCost({ ...RUN, viaNat: true });
  const line = e.lines.find((l) => l.item === 'NAT gateway data')!;
  const loadGb = (96_000 * 50 * 2400) / 1e9;
  expect(line.usd).toBeCloseTo((2 * BOOT_DOWNLOAD_GB + loadGb) * PRICES.natGb, 2);
  expect(PRICES.natGb).toBe(0.045);
  expect(e.assumptions.some((a) => a.startsWith(`${BOOT_DOWNLOAD_GB} GB of boot downloads per generator through NAT (assumed)`))).toBe(true);
  expect(estimateRunCost(RUN).lines.some((l) => l.item === 'NAT gateway data')).toBe(false);
});

test('generators in another region than the target: their load leaves one region for the other, priced between regions (was the in-region rate)', () => {
  const loadGb = (96_000 * 50 * 2400) / 1e9;
  const remote = estimateRunCost({ ...RUN, viaNat: true });
  expect(remote.lines.find((l) => l.item === 'data between regions')?.usd).toBeCloseTo(loadGb * 2 * PRICES.interRegionGb, 2);
  expect(remote.lines.some((l) => l.item === 'data between public addresses')).toBe(false);
  expect(PRICES.interRegionGb).toBe(0.02);
  const home = estimateRunCost(RUN);
  expect(home.lines.find((l) => l.item === 'data between public addresses')?.usd).toBeCloseTo(loadGb * 2 * PRICES.inRegionGb, 2);
  expect(home.lines.some((l) => l.item === 'data between regions')).toBe(false);
});

test('several regions: one total (what --max-cost is compared with), each region named', () => {
  const a = estimateRunCost(RUN);
  const b = estimateRunCost({ ...RUN, target: undefined, viaLoadBalancer: false, viaNat: true, region: 'eu-west-2' });
  const sum = sumRegions([{ region: 'us-east-1', estimate: a }, { region: 'eu-west-2', estimate: b }]);
  expect(sum.totalUsd).toBeCloseTo(a.totalUsd + b.totalUsd, 2);
  expect(costLines(sum)[0]).toBe(`estimated cost of this run: $${sum.totalUsd.toFixed(2)} (us-east-1 $${a.totalUsd.toFixed(2)} + eu-west-2 $${b.totalUsd.toFixed(2)})`);
  expect(sum.lines.map((l) => l.item)).toContain('eu-west-2 NAT gateway data');
  expect(maxCostRefusal(sum, Math.max(a.totalUsd, b.totalUsd) + 0.01)).toMatch(/^the run is estimated at \$[\d.]+ \(all 2 regions\), above --max-cost/);
});

// Elastic Load Balancing pricing: an LCU is the largest of new connections/s ÷ 25, active connections ÷ 3,000 and GB/h
// processed. The home region's load balancer serves every region's generators (the target is there), so the other
// regions' load adds to its capacity units; before, the home estimate counted its own generators' only.
test("the home region's load balancer capacity units count the other regions' connections too", () => {
  const lines = twoRegionLines('REJECT', [{ peak: 64_000, rate: 2000 }, { peak: 32_000, rate: 1000 }]);
  // 96,000 active ÷ 3,000 = 32 LCU (was 64,000 ÷ 3,000 = 21.3); 3,000 new/s ÷ 25 = 120 LCU is the largest (was 80).
  expect(lines.find((l) => l.startsWith('  us-east-1 load balancer capacity units'))).toMatch(/120\.0 LCU \(max of 3000 new\/s ÷ 25, 96000 active ÷ 3,000, GB\/h, this region's generators and the other regions'\)/);
  expect(lines.find((l) => l.startsWith('  eu-west-2 load balancer capacity units'))).toBeUndefined();
  // One region: its own load only, said as before.
  const alone = estimateRunCost({ region: 'us-east-1', generatorInstanceType: 'c5.large', generators: 2, processesPerGenerator: 2, loadSeconds: 600, peakConnections: 6000, peakArrivalRate: 100, target: { kind: 'ec2', instanceType: 't3.small', maxCapacity: 2 }, viaLoadBalancer: true });
  expect(alone.lines.find((l) => l.item === 'load balancer capacity units')?.basis).toMatch(/^4\.0 LCU \(max of 100 new\/s ÷ 25, 6000 active ÷ 3,000, GB\/h\) × /);
});
