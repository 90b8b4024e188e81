/**
 * The run's estimated cost, printed with its assumptions before the fleet scales, and `--max-cost`
 * (exit 2, nothing started). Pure: list prices are a table here, not the AWS Price List API, because
 * that API answers only in us-east-1/ap-south-1/eu-central-1, needs its own permission and pages
 * through megabytes of JSON for one instance price; an estimate that states its prices is more useful
 * to a CI cap than an exact figure that needs another service. Prices are us-east-1 On-Demand Linux
 * list prices (other regions are up to ~30% higher: the estimate says so).
 */

/** On-Demand Linux USD per hour in us-east-1. */
export const INSTANCE_PRICE_USD_PER_HOUR: Readonly<Record<string, number>> = {
  'c5.large': 0.085, 'c5.xlarge': 0.17, 'c5.2xlarge': 0.34, 'c5.4xlarge': 0.68, 'c5.9xlarge': 1.53,
  'c5n.large': 0.108, 'c5n.xlarge': 0.216, 'c5n.2xlarge': 0.432,
  'c6i.large': 0.085, 'c6i.xlarge': 0.17, 'c6i.2xlarge': 0.34, 'c6i.4xlarge': 0.68,
  'c7i.large': 0.08925, 'c7i.xlarge': 0.1785, 'c7i.2xlarge': 0.357,
  'c6g.large': 0.068, 'c6g.xlarge': 0.136, 'c7g.large': 0.0725, 'c7g.xlarge': 0.145,
  'm5.large': 0.096, 'm5.xlarge': 0.192, 'm6i.large': 0.096, 'm6i.xlarge': 0.192,
  't3.nano': 0.0052, 't3.micro': 0.0104, 't3.small': 0.0208, 't3.medium': 0.0416, 't3.large': 0.0832, 't3.xlarge': 0.1664, 't3.2xlarge': 0.3328,
  't2.nano': 0.0058, 't2.micro': 0.0116, 't2.small': 0.023, 't2.medium': 0.0464, 't2.large': 0.0928, 't2.xlarge': 0.1856, 't2.2xlarge': 0.3712,
};

/** Other list prices the estimate uses (us-east-1). */
export const PRICES = {
  /** Fargate Linux/x86, per vCPU-hour and per GB-hour. */
  fargateVcpuHour: 0.04048,
  fargateGbHour: 0.004445,
  /** Application Load Balancer: per hour, per LCU-hour. */
  albHour: 0.0225,
  albLcuHour: 0.008,
  /** One LCU: 25 new connections/s, 3,000 active connections, 1 GB processed per hour (EC2/IP targets). */
  lcuNewPerSecond: 25,
  lcuActive: 3000,
  lcuGbPerHour: 1,
  /** Public IPv4 address, per hour. */
  publicIpv4Hour: 0.005,
  /** Data between public addresses in one region, per GB each way. */
  inRegionGb: 0.01,
  /** Data out of a region to another region, per GB, billed by the sending side ("Amazon EC2 On-Demand Pricing", Data Transfer, "Data Transfer OUT From Amazon EC2 To Amazon EC2 in another AWS Region"). */
  interRegionGb: 0.02,
  /** CloudWatch: custom metric per month (prorated hourly), GetMetricData per 1,000 metrics. */
  metricMonth: 0.3,
  getMetricDataPer1000: 0.01,
  /** S3 PUT/LIST per 1,000 requests. */
  s3PutPer1000: 0.005,
  /** NAT gateway, per GB it processes (either direction): "Amazon VPC pricing", NAT Gateway Pricing. */
  natGb: 0.045,
  /** CPU credits a T3 instance in unlimited mode spends beyond its earned ones, per vCPU-hour (Linux): "Amazon EC2 On-Demand Pricing", T2/T3/T4g Unlimited Mode Pricing. */
  t3SurplusVcpuHour: 0.05,
  /** Vended logs (VPC flow logs) delivered to CloudWatch Logs, per GB (first 10 TB a month): "Amazon CloudWatch Pricing", Logs, Vended Logs. */
  vendedLogsGb: 0.5,
} as const;

/**
 * VPC flow logs bill as vended logs per GB delivered to CloudWatch Logs. A record is one flow ("characterized by a 5-tuple
 * on a per network interface basis": one direction of one connection on one interface) in one aggregation interval, and
 * "When a network interface is attached to a Nitro-based instance, the aggregation interval is always 1 minute or less,
 * regardless of the specified maximum aggregation interval" (VPC User Guide, "Flow log records"): the rig's c5 and t3
 * instances are Nitro, so the template's 10-minute maximum is not what bills, and every interface is priced at 1 minute
 * (an upper bound for the load balancer's and NAT gateway's). What the VPCs log is the deploy's context `flowLogTraffic`
 * (their FlowLogTraffic output): `REJECT` (the default) logs nothing of a working run, whose connections are all
 * accepted, only what the security groups refuse: internet scans of the public addresses, priced at an assumed
 * {@link FLOW_LOG.scanFlowsPerAddressSecond} flow a second per address (generous: one address is commonly scanned a few
 * thousand times a day); `ALL` logs every flow. The size of a record (the default format, ~100 characters, plus
 * CloudWatch Logs' 26 bytes per event) is an assumption, not measured.
 */
export const FLOW_LOG = { windowSeconds: 60, recordBytes: 150, scanFlowsPerAddressSecond: 1 } as const;

/** NAT gateways of a generator region other than the target's (one per zone: lib/network.ts, RIG_AZS). */
const NAT_ADDRESSES_DEFAULT = 2;

/**
 * vCPUs and baseline CPU per vCPU of the T3 types ("Burstable performance instances", Key concepts: the baseline
 * table of the Amazon EC2 User Guide). The target's launch template sets unlimited credits (target-stack/ec2-target.ts).
 */
export const T3_BASELINE: Readonly<Record<string, { readonly vcpus: number; readonly baseline: number }>> = {
  't3.nano': { vcpus: 2, baseline: 0.05 }, 't3.micro': { vcpus: 2, baseline: 0.1 }, 't3.small': { vcpus: 2, baseline: 0.2 },
  't3.medium': { vcpus: 2, baseline: 0.2 }, 't3.large': { vcpus: 2, baseline: 0.3 }, 't3.xlarge': { vcpus: 4, baseline: 0.4 }, 't3.2xlarge': { vcpus: 8, baseline: 0.4 },
};

/** What one generator downloads through a NAT gateway while it boots: Node's tarball (~30 MB) and the agent's npm tree from the public registry (an assumption, not measured; dnf and the S3 assets go through the free S3 gateway endpoint). */
export const BOOT_DOWNLOAD_GB = 0.2;

const HOURS_PER_MONTH = 730;

/** Metrics the generators' CloudWatch agent publishes (load-generators/install-generator.sh's config): per instance and as the group's rollup. */
export const CW_AGENT_METRICS = 4;

/** What one run is estimated from. */
export interface CostInputs {
  readonly region: string;
  readonly generatorInstanceType: string;
  readonly generators: number;
  /** Load processes per generator (each writes its periods to S3). */
  readonly processesPerGenerator: number;
  /** From the first arrival to the last vuser's end. */
  readonly loadSeconds: number;
  /** Peak concurrent connections and arrival rate of the plan (the load balancer's capacity units). */
  readonly peakConnections: number;
  readonly peakArrivalRate: number;
  /** The deployed target, when the rig has one (counted at its maximum size for the whole run: an upper bound). */
  readonly target?: { readonly kind: 'ec2'; readonly instanceType: string; readonly maxCapacity: number } | { readonly kind: 'fargate'; readonly taskVcpu: number; readonly taskGb: number; readonly maxTasks: number };
  /** Whether the run goes through the rig's load balancer (not --target elsewhere). */
  readonly viaLoadBalancer: boolean;
  /**
   * Bytes per second one open connection exchanges, both ways.
   * @default 50 (Socket.IO heartbeats plus a small message every few seconds)
   */
  readonly bytesPerConnectionSecond?: number;
  /**
   * Time a generator bills beyond the load: boot, host tuning, the agent install, the report, scaling in.
   * @default 900 seconds
   */
  readonly overheadSeconds?: number;
  /**
   * The generators leave through NAT gateways (a generator region other than the target's): their boot downloads
   * and the load's bytes are processed there.
   * @default false
   */
  readonly viaNat?: boolean;
  /**
   * The NAT gateways' public addresses (with viaNat).
   * @default 2 (one per zone)
   */
  readonly natAddresses?: number;
  /**
   * Connections the run opens in all: at least one per vuser (the plan's arrivals). Short-lived ones each make flow log
   * records of their own.
   * @default peakConnections
   */
  readonly connectionsOpened?: number;
  /**
   * What this region's VPC flow logs record (the deploy's context flowLogTraffic).
   * @default 'ALL' (stacks deployed before they said so logged all traffic)
   */
  readonly flowLogTraffic?: 'ALL' | 'REJECT';
  /**
   * The other regions' generators' load on this region's target (the home region of a run over several): their
   * connections cross this VPC's load balancer and target interfaces, whose flow logs bill here.
   */
  readonly remoteLoad?: {
    readonly peakConnections: number;
    readonly connectionsOpened: number;
    /** Their new connections per second at the peak (the load balancer's capacity units count them too). @default 0 */
    readonly peakArrivalRate?: number;
  };
}

/** One priced item. */
export interface CostLine {
  readonly item: string;
  readonly usd: number;
  readonly basis: string;
}

/** The estimate: its lines, total, assumptions, and what it could not price. */
export interface CostEstimate {
  readonly lines: readonly CostLine[];
  readonly totalUsd: number;
  readonly assumptions: readonly string[];
  /** Items without a price (an instance type not in the table): the total leaves them out. */
  readonly unpriced: readonly string[];
  /** Each region's total, when the estimate sums several ({@link sumRegions}). */
  readonly regions?: readonly { readonly region: string; readonly totalUsd: number }[];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Estimates one run's cost. Pure. */
export function estimateRunCost(i: CostInputs): CostEstimate {
  const overhead = i.overheadSeconds ?? 900;
  const bps = i.bytesPerConnectionSecond ?? 50;
  const genHours = Math.max(60, i.loadSeconds + overhead) / 3600;
  const loadHours = Math.max(60, i.loadSeconds) / 3600;
  const lines: CostLine[] = [];
  const unpriced: string[] = [];

  const genPrice = INSTANCE_PRICE_USD_PER_HOUR[i.generatorInstanceType];
  if (genPrice === undefined) unpriced.push(`${i.generatorInstanceType} generators`);
  else lines.push({ item: 'generators', usd: i.generators * genHours * genPrice, basis: `${i.generators} × ${i.generatorInstanceType} × ${genHours.toFixed(2)} h × $${genPrice}/h` });
  lines.push({ item: 'generator public IPv4', usd: i.generators * genHours * PRICES.publicIpv4Hour, basis: `${i.generators} × ${genHours.toFixed(2)} h × $${PRICES.publicIpv4Hour}/h` });

  const t = i.target;
  if (t?.kind === 'ec2') {
    const p = INSTANCE_PRICE_USD_PER_HOUR[t.instanceType];
    if (p === undefined) unpriced.push(`${t.instanceType} targets`);
    else lines.push({ item: 'target instances (at most)', usd: t.maxCapacity * loadHours * p, basis: `up to ${t.maxCapacity} × ${t.instanceType} × ${loadHours.toFixed(2)} h × $${p}/h` });
    const burst = T3_BASELINE[t.instanceType];
    if (burst) {
      const surplus = burst.vcpus * (1 - burst.baseline);
      lines.push({ item: 'target CPU credits (at most)', usd: t.maxCapacity * loadHours * surplus * PRICES.t3SurplusVcpuHour, basis: `up to ${t.maxCapacity} × ${loadHours.toFixed(2)} h × ${burst.vcpus} vCPU × (100% − ${Math.round(burst.baseline * 100)}% baseline) × $${PRICES.t3SurplusVcpuHour}/vCPU-h, unlimited mode at 100% CPU` });
    }
  } else if (t?.kind === 'fargate') {
    const perTask = t.taskVcpu * PRICES.fargateVcpuHour + t.taskGb * PRICES.fargateGbHour;
    lines.push({ item: 'target tasks (at most)', usd: t.maxTasks * loadHours * perTask, basis: `up to ${t.maxTasks} tasks × ${loadHours.toFixed(2)} h × $${perTask.toFixed(4)}/h (${t.taskVcpu} vCPU, ${t.taskGb} GB)` });
  }

  const gb = (i.peakConnections * bps * i.loadSeconds) / 1e9;
  if (i.viaLoadBalancer && t) {
    // The load balancer is this region's: the other regions' generators (remoteLoad) connect to it too. The regions share
    // one start instant and split one profile by weight, so their peaks coincide and add.
    const remote = i.remoteLoad;
    const newPerSecond = i.peakArrivalRate + (remote?.peakArrivalRate ?? 0);
    const active = i.peakConnections + (remote?.peakConnections ?? 0);
    const lbGb = gb + (remote ? (remote.peakConnections * bps * i.loadSeconds) / 1e9 : 0);
    const lcu = Math.max(newPerSecond / PRICES.lcuNewPerSecond, active / PRICES.lcuActive, lbGb / loadHours / PRICES.lcuGbPerHour);
    const whose = remote ? ', this region\'s generators and the other regions\'' : '';
    lines.push({ item: 'load balancer capacity units', usd: lcu * loadHours * PRICES.albLcuHour, basis: `${lcu.toFixed(1)} LCU (max of ${newPerSecond.toFixed(0)} new/s ÷ 25, ${active} active ÷ 3,000, GB/h${whose}) × ${loadHours.toFixed(2)} h × $${PRICES.albLcuHour}` });
  }
  // Generators behind NAT are in another region than the target: each way leaves one region for the other.
  if (i.viaNat) lines.push({ item: 'data between regions', usd: gb * 2 * PRICES.interRegionGb, basis: `${gb.toFixed(2)} GB × 2 ways × $${PRICES.interRegionGb}/GB, each billed by the region it leaves` });
  else lines.push({ item: 'data between public addresses', usd: gb * 2 * PRICES.inRegionGb, basis: `${gb.toFixed(2)} GB × 2 ways × $${PRICES.inRegionGb}/GB` });
  if (i.viaNat) {
    const natGb = i.generators * BOOT_DOWNLOAD_GB + gb;
    lines.push({ item: 'NAT gateway data', usd: natGb * PRICES.natGb, basis: `(${i.generators} × ${BOOT_DOWNLOAD_GB} GB boot downloads + ${gb.toFixed(2)} GB of load) × $${PRICES.natGb}/GB` });
  }

  lines.push(flowLogLine(i, genHours));

  // Each load process stores a period every ~10 s; each generator a health sample every 5 s (DEFAULTS.healthIntervalMs)
  // and ~50 control objects; the live view lists a generator's periods at most once per IDLE_LIST_MS (2 s, scripts/live.ts).
  const perGenerator = i.processesPerGenerator * (i.loadSeconds / 10) + i.loadSeconds / 5 + i.loadSeconds / 2 + 50;
  const puts = i.generators * perGenerator;
  lines.push({ item: 'S3 requests', usd: (puts / 1000) * PRICES.s3PutPer1000, basis: `~${Math.round(puts)} PUT/LIST × $${PRICES.s3PutPer1000}/1,000` });
  // Rig metrics carry a RunId dimension: new custom metrics each run, billed hourly; detailed monitoring is 7 metrics per
  // instance; the CloudWatch agent publishes its 4 (mem_used_percent, tcp_established, tcp_time_wait, StatsD's
  // open_files: load-generators/install-generator.sh) per instance, and once more as the group's rollup.
  const metrics = 12 + CW_AGENT_METRICS + i.generators * (7 + CW_AGENT_METRICS);
  lines.push({ item: 'CloudWatch metrics', usd: metrics * (PRICES.metricMonth / HOURS_PER_MONTH) * Math.ceil(genHours) + (60 * 40 / 1000) * PRICES.getMetricDataPer1000, basis: `${metrics} metrics × ${Math.ceil(genHours)} h prorated + the report's GetMetricData` });

  const totalUsd = round2(lines.reduce((a, l) => a + l.usd, 0));
  const assumptions = [
    `us-east-1 On-Demand list prices${i.region === 'us-east-1' ? '' : ` (the run is in ${i.region}: up to ~30% higher there)`}`,
    `generators bill ${Math.round(overhead / 60)} min beyond the ${Math.round(i.loadSeconds / 60)} min of load (boot, install, report, scale-in)`,
    ...(t ? ['the target counted at its maximum size for the whole load (an upper bound); it bills while idle anyway (docs/aws-costs.md)'] : []),
    ...(t?.kind === 'ec2' && T3_BASELINE[t.instanceType] ? ['a T3 target pegged at 100% CPU with no earned credits to spend (an upper bound)'] : []),
    ...(i.viaNat ? [`${BOOT_DOWNLOAD_GB} GB of boot downloads per generator through NAT (assumed)`] : []),
    `${bps} bytes/s per open connection`,
    flowLogAssumption(i),
    'excludes the standing stacks\' idle cost, taxes, free tier and Savings Plans',
  ];
  return { lines: lines.map((l) => ({ ...l, usd: round2(l.usd) })), totalUsd, assumptions, unpriced };
}

/** The run's flow log records on the interfaces the load crosses in this region's VPC, priced as vended logs. */
function flowLogLine(i: CostInputs, genHours: number): CostLine {
  const t = i.target;
  const bytes = (records: number) => records * FLOW_LOG.recordBytes;
  const priced = (records: number) => ({ gb: bytes(records) / 1e9, usd: (bytes(records) / 1e9) * PRICES.vendedLogsGb });
  if (i.flowLogTraffic === 'REJECT') {
    // What reaches a public address unasked: the generators' own (or the NAT gateways'), the target's instances or tasks.
    const targetAddresses = !t ? 0 : t.kind === 'ec2' ? t.maxCapacity : t.maxTasks;
    const addresses = (i.viaNat ? i.natAddresses ?? NAT_ADDRESSES_DEFAULT : i.generators) + targetAddresses;
    const seconds = Math.round(genHours * 3600);
    const { gb, usd } = priced(addresses * seconds * FLOW_LOG.scanFlowsPerAddressSecond);
    return { item: 'VPC flow logs (rejected traffic only)', usd, basis: `${addresses} public address(es) × ${seconds} s × ${FLOW_LOG.scanFlowsPerAddressSecond} refused flow/s (internet scans, assumed) × ${FLOW_LOG.recordBytes} B = ${gb.toFixed(3)} GB × $${PRICES.vendedLogsGb}/GB; the run's own connections are accepted and not logged` };
  }
  // A held connection crosses the generator's interface, and through the rig's load balancer also the load balancer's
  // (client side and target side: two connections) and the target's; behind NAT, the NAT gateway's too.
  const interfaces = (i.viaLoadBalancer && t ? 4 : 1) + (i.viaNat ? 1 : 0);
  const windows = Math.max(1, Math.ceil(i.loadSeconds / FLOW_LOG.windowSeconds));
  // A flow lasting d seconds is in d/60 + 1 one-minute windows on average; over the run's connections that sums to at
  // most the peak held through every window plus one window per connection opened (a short-lived one: one record each).
  const flows = (peak: number, opened: number) => peak * windows + Math.max(opened, peak);
  const own = flows(i.peakConnections, i.connectionsOpened ?? i.peakConnections);
  const remote = i.remoteLoad && i.viaLoadBalancer && t ? flows(i.remoteLoad.peakConnections, i.remoteLoad.connectionsOpened) : 0;
  const { gb, usd } = priced((own * interfaces + remote * 3) * 2);
  const term = (peak: number, opened: number) => `(${peak} held × ${windows} 1-min window(s) + ${Math.max(opened, peak)} opened)`;
  const remoteBasis = remote ? ` + ${term(i.remoteLoad!.peakConnections, i.remoteLoad!.connectionsOpened)} from other regions × 2 directions × 3 interfaces (load balancer's two sides, target)` : '';
  return {
    item: 'VPC flow logs (all traffic)',
    usd,
    basis: `${term(i.peakConnections, i.connectionsOpened ?? i.peakConnections)} × 2 directions × ${interfaces} interface(s)${remoteBasis} × ${FLOW_LOG.recordBytes} B = ${gb.toFixed(2)} GB × $${PRICES.vendedLogsGb}/GB`,
  };
}

/** What the flow log line assumes. */
function flowLogAssumption(i: CostInputs): string {
  if (i.flowLogTraffic === 'REJECT') {
    return `VPC flow logs of rejected traffic only (flowLogTraffic=REJECT): none from a working run's own connections, internet scans at an assumed ${FLOW_LOG.scanFlowsPerAddressSecond} refused flow/s per public address, ${FLOW_LOG.recordBytes} bytes per record`;
  }
  const why = i.flowLogTraffic === 'ALL' ? 'flowLogTraffic=ALL' : 'stacks deployed before they said what they log';
  return `VPC flow logs of all traffic (${why}): a record per flow per minute on each interface (Nitro instances aggregate at most 1 minute), ${FLOW_LOG.recordBytes} bytes each, at least one connection per vuser`;
}

/**
 * Several regions' estimates as one: the run's total (what --max-cost is compared with, once), each region's lines
 * named by region. Pure.
 */
export function sumRegions(parts: readonly { readonly region: string; readonly estimate: CostEstimate }[]): CostEstimate {
  return {
    lines: parts.flatMap((p) => p.estimate.lines.map((l) => ({ ...l, item: `${p.region} ${l.item}` }))),
    totalUsd: round2(parts.reduce((a, p) => a + p.estimate.totalUsd, 0)),
    assumptions: [...new Set(parts.flatMap((p) => p.estimate.assumptions))],
    unpriced: parts.flatMap((p) => p.estimate.unpriced.map((u) => `${u} in ${p.region}`)),
    regions: parts.map((p) => ({ region: p.region, totalUsd: p.estimate.totalUsd })),
  };
}

/** The estimate as log lines (total first). */
export function costLines(e: CostEstimate): string[] {
  const split = e.regions ? ` (${e.regions.map((r) => `${r.region} $${r.totalUsd.toFixed(2)}`).join(' + ')})` : '';
  return [
    `estimated cost of this run: $${e.totalUsd.toFixed(2)}${split}${e.unpriced.length ? ` plus ${e.unpriced.join(', ')} (no list price in scripts/platforms/aws/cost.ts)` : ''}`,
    ...e.lines.filter((l) => l.usd >= 0.005).map((l) => `  ${l.item}: $${l.usd.toFixed(2)} (${l.basis})`),
    `  assumptions: ${e.assumptions.join('; ')}`,
  ];
}

/** The `--max-cost` refusal, or undefined when the estimate fits. Pure. */
export function maxCostRefusal(e: CostEstimate, maxUsd: number): string | undefined {
  if (e.unpriced.length) {
    return `--max-cost ${maxUsd} cannot be enforced: no list price for ${e.unpriced.join(', ')}; add it to INSTANCE_PRICE_USD_PER_HOUR in scripts/platforms/aws/cost.ts or drop --max-cost`;
  }
  if (e.totalUsd <= maxUsd) return undefined;
  return `the run is estimated at $${e.totalUsd.toFixed(2)}${e.regions ? ` (all ${e.regions.length} regions)` : ''}, above --max-cost ${maxUsd}; lower --vusers, --ramp/--hold or --generators, or raise --max-cost`;
}
