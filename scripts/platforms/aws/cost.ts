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
 * The rig's VPCs log all traffic to CloudWatch Logs (lib/network.ts: TrafficType ALL, 10-minute aggregation), and flow logs
 * bill as vended logs per GB delivered. A flow log record is one flow (the 5-tuple: one direction of a connection) on one
 * network interface per aggregation window (VPC User Guide, "Flow log records"), so each held connection gives 2 records
 * per interface it crosses every 10 minutes. The size of a record (the default format, ~100 characters, plus CloudWatch
 * Logs' 26 bytes per event) is an assumption, not measured.
 */
export const FLOW_LOG = { windowSeconds: 600, recordBytes: 150 } as const;

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
    const lcu = Math.max(i.peakArrivalRate / PRICES.lcuNewPerSecond, i.peakConnections / PRICES.lcuActive, gb / loadHours / PRICES.lcuGbPerHour);
    lines.push({ item: 'load balancer capacity units', usd: lcu * loadHours * PRICES.albLcuHour, basis: `${lcu.toFixed(1)} LCU (max of ${i.peakArrivalRate.toFixed(0)} new/s ÷ 25, ${i.peakConnections} active ÷ 3,000, GB/h) × ${loadHours.toFixed(2)} h × $${PRICES.albLcuHour}` });
  }
  // Generators behind NAT are in another region than the target: each way leaves one region for the other.
  if (i.viaNat) lines.push({ item: 'data between regions', usd: gb * 2 * PRICES.interRegionGb, basis: `${gb.toFixed(2)} GB × 2 ways × $${PRICES.interRegionGb}/GB, each billed by the region it leaves` });
  else lines.push({ item: 'data between public addresses', usd: gb * 2 * PRICES.inRegionGb, basis: `${gb.toFixed(2)} GB × 2 ways × $${PRICES.inRegionGb}/GB` });
  if (i.viaNat) {
    const natGb = i.generators * BOOT_DOWNLOAD_GB + gb;
    lines.push({ item: 'NAT gateway data', usd: natGb * PRICES.natGb, basis: `(${i.generators} × ${BOOT_DOWNLOAD_GB} GB boot downloads + ${gb.toFixed(2)} GB of load) × $${PRICES.natGb}/GB` });
  }

  // VPC flow logs: a held connection crosses the generator's interface, and through the rig's load balancer also the load
  // balancer's (client side and target side: two connections) and the target's; behind NAT, the NAT gateway's too.
  const interfaces = (i.viaLoadBalancer && t ? 4 : 1) + (i.viaNat ? 1 : 0);
  const windows = Math.max(1, Math.ceil(i.loadSeconds / FLOW_LOG.windowSeconds));
  const flowGb = (i.peakConnections * 2 * interfaces * windows * FLOW_LOG.recordBytes) / 1e9;
  lines.push({ item: 'VPC flow logs', usd: flowGb * PRICES.vendedLogsGb, basis: `${i.peakConnections} connections × 2 directions × ${interfaces} interface(s) × ${windows} 10-min window(s) × ${FLOW_LOG.recordBytes} B = ${flowGb.toFixed(2)} GB × $${PRICES.vendedLogsGb}/GB` });

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
    `${FLOW_LOG.recordBytes} bytes per flow log record`,
    'excludes the standing stacks\' idle cost, taxes, free tier and Savings Plans',
  ];
  return { lines: lines.map((l) => ({ ...l, usd: round2(l.usd) })), totalUsd, assumptions, unpriced };
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
