/**
 * The AWS platform over several generator regions: one single-region AWS platform per region (the home region's
 * with the target, dashboard and CloudWatch; the others' over their LoadTestRig-Generators-<region> stacks),
 * composed into one Platform. The run sequence (scripts/run.ts) is unchanged: it plans with the regional split
 * (scripts/core/regions.ts), and this platform routes each generator to its region's fleet and store.
 *
 * Before any region opens: the run's estimated cost, every region's summed, and `--max-cost` compared with that total
 * once. Per region: the checks before anything scales (credentials, bucket, group, quotas), the preflight probe
 * from the region's first generator (against the URL that region's generators load), the fleet, and its scale to 0
 * afterwards; `--teardown` deletes the home stacks, then every region's.
 */
import type { Plan } from '../../core/plan';
import { RegionalPlan, generatorId } from '../../core/regions';
import { UsageError } from '../../errors';
import { probeSpecFor } from '../../preflight';
import type { OpenRun, Platform, RegionalPlatform } from '../platform';
import { DEFAULT_GENERATOR_INSTANCE_TYPE, copyStoreToFolder } from './aws';
import { estimateRegion } from './before-scaling';
import { costLines, maxCostRefusal, sumRegions } from './cost';
import type { RegionalOutputs, RigOutputs } from './discovery';
import { regionalFleet, regionalStore } from './regional';

/** What one region contributes. */
export interface RegionPart {
  readonly region: string;
  readonly weight: number;
  readonly platform: Platform;
  /** NAT addresses its generators leave from (other regions); undefined for the home region. */
  readonly natAddresses?: number;
  /** What its share of the cost is estimated from: its outputs, and whether the target it loads is counted elsewhere (--target, or another region). */
  readonly cost: { readonly outputs: RigOutputs; readonly externalTarget: boolean };
}

/**
 * The run's estimated cost — every region's, each on its own share of the plan, summed — logged, and `--max-cost`
 * compared with the total once. @throws UsageError when the total is above it (nothing opened, nothing scaled).
 */
export function checkRunCost(parts: readonly RegionPart[], planOf: (k: number) => Plan, maxCost: number | undefined, log: (line: string) => void): void {
  // The other regions' generators load the home region's target (unless --target names another): their connections
  // cross its load balancer's and target's interfaces, whose flow logs bill in the home region.
  const others = parts.map((p, k) => ({ p, plan: planOf(k) })).filter(({ p }) => p.natAddresses !== undefined);
  const remoteLoad = {
    peakConnections: others.reduce((a, o) => a + o.plan.peakConcurrent, 0),
    connectionsOpened: others.reduce((a, o) => a + o.plan.totalArrivals, 0),
    peakArrivalRate: others.reduce((a, o) => a + o.plan.peakArrivalRate, 0),
  };
  const estimate = sumRegions(parts.map((p, k) => ({
    region: p.region,
    estimate: estimateRegion({
      region: p.region,
      outputs: p.cost.outputs,
      plan: planOf(k),
      generatorInstanceType: p.cost.outputs.generatorInstanceType ?? DEFAULT_GENERATOR_INSTANCE_TYPE,
      processesPerGenerator: p.platform.limits.processes,
      externalTarget: p.cost.externalTarget,
      viaNat: p.natAddresses !== undefined,
      ...(p.natAddresses !== undefined ? { natAddresses: p.natAddresses } : { remoteLoad }),
    }),
  })));
  for (const line of costLines(estimate)) log(line);
  if (maxCost === undefined) return;
  const refusal = maxCostRefusal(estimate, maxCost);
  if (refusal) throw new UsageError(refusal);
  log(`--max-cost ${maxCost}: the estimate fits`);
}

/** Simultaneous connections a NAT gateway holds per address to one destination (address, port, protocol). */
export const NAT_CONNECTIONS_PER_DESTINATION = 55_000;

/**
 * The warning when a region's plan holds more vusers at once than its NAT addresses hold connections to one load
 * balancer address (a load balancer has one address per zone, so spread over two the bound doubles); undefined
 * when the plan fits.
 */
export function natWarning(region: string, peakConcurrent: number, natAddresses: number | undefined): string | undefined {
  if (natAddresses === undefined || natAddresses < 1) return undefined;
  const bound = natAddresses * NAT_CONNECTIONS_PER_DESTINATION;
  if (peakConcurrent <= bound) return undefined;
  const f = (n: number) => n.toLocaleString('en-US');
  return `region ${region} plans ${f(peakConcurrent)} vusers at once, but its ${natAddresses} NAT address(es) hold ${f(NAT_CONNECTIONS_PER_DESTINATION)} connections each to one load balancer address (${f(bound)} to one, ${f(bound * 2)} spread over two): expect connect errors past that; lower the region's weight or add NAT addresses`;
}

/** Outputs for a single-region AWS platform over another region's generator stack. */
export function remoteOutputs(home: RigOutputs, r: RegionalOutputs): RigOutputs {
  return {
    source: home.source,
    region: r.region,
    generatorAsgName: r.generatorAsgName,
    generatorAgentHome: r.generatorAgentHome,
    resultsBucketName: r.resultsBucketName,
    ...(r.maxGenerators !== undefined ? { maxGenerators: r.maxGenerators } : {}),
    ...(r.generatorInstanceType ? { generatorInstanceType: r.generatorInstanceType } : {}),
    ...(r.generatorSecondaryIps !== undefined ? { generatorSecondaryIps: r.generatorSecondaryIps } : {}),
    ...(r.safetyNetFunctionName ? { safetyNetFunctionName: r.safetyNetFunctionName } : {}),
    ...(r.flowLogTraffic ? { flowLogTraffic: r.flowLogTraffic } : {}),
    // These generators load the target's internet-facing URL (their NAT addresses are admitted there).
    ...(home.publicTargetUrl ? { targetUrl: home.publicTargetUrl } : {}),
    stackNames: [r.stackName],
    costedWithOtherRegions: true,
  };
}

/** The target URL generators in other regions load, or the one-line reason there is none. */
export function remoteTargetUrl(home: RigOutputs, explicitTarget: string | undefined): string {
  if (explicitTarget) return explicitTarget;
  if (home.publicTargetUrl) return home.publicTargetUrl.replace(/\/+$/, '');
  if (!home.targetUrl) throw new UsageError('the deployed rig has no target stack (targetKind none); pass --target URL of the system under test (reachable from every generator region)');
  throw new UsageError(`the target stack has no PublicTargetUrl output, so generators in ${(home.regions ?? []).map((r) => r.region).join(', ')} cannot reach it; redeploy with the same -c generatorRegions (npm run deploy)`);
}

/** Composes the regions' platforms (home first) into one; `maxCost` (--max-cost) caps the run's total, all regions summed. */
export function multiRegionPlatform(parts: readonly RegionPart[], remoteUrl: string, log: (line: string) => void = () => undefined, maxCost?: number): RegionalPlatform {
  const [home, ...others] = parts;
  if (!home || others.length === 0) throw new Error('multiRegionPlatform: needs the home region and at least one other');
  let regional: RegionalPlan | undefined;
  const idsOf = (k: number): string[] => (regional?.regions[k]?.generatorIndices ?? []).map(generatorId);
  const planOf = (k: number, whole: Plan): Plan => regional?.regions[k]?.plan ?? whole;
  return {
    name: 'aws',
    limits: home.platform.limits,
    ...(home.platform.arrivalCapacity ? { arrivalCapacity: home.platform.arrivalCapacity } : {}),
    ...(home.platform.maxGenerators !== undefined ? { maxGenerators: parts.reduce((s, p) => s + (p.platform.maxGenerators ?? 0), 0) } : {}),
    portRange: home.platform.portRange,
    regions: parts.map((p) => ({
      region: p.region,
      weight: p.weight,
      limits: p.platform.limits,
      ...(p.platform.maxGenerators !== undefined ? { maxGenerators: p.platform.maxGenerators } : {}),
      ...(p.platform.arrivalCapacity ? { arrivalCapacity: p.platform.arrivalCapacity } : {}),
    })),
    useRegions(r) {
      regional = r;
    },
    generatorTarget(index) {
      return regional?.regions[0]?.generatorIndices.includes(index) ? undefined : remoteUrl;
    },

    // Slices live in S3 in every region: a credentialed target URL is refused before the run.
    secretsInEnvironment: false,
    sourceAddress: () => undefined,

    async open({ runId, runDir, plan, sessionSeconds }) {
      // The whole run's cost first, then every region's checks before anything scales anywhere (credentials, bucket, group, quotas).
      checkRunCost(parts, (k) => planOf(k, plan), maxCost, log);
      const runs: OpenRun[] = [];
      const closeAll = async () => {
        // Every region at once: each fleet goes to 0 without waiting for another region's teardown
        // (cross-region references are Fn::GetStackOutput, which never blocks deleting either side).
        await Promise.all(runs.map((r) => r.close().catch(() => undefined)));
      };
      try {
        for (const [k, p] of parts.entries()) {
          const own = planOf(k, plan);
          runs.push(await p.platform.open({ runId, runDir, plan: own, ...(sessionSeconds !== undefined ? { sessionSeconds } : {}) }));
          const warning = k === 0 ? undefined : natWarning(p.region, own.peakConcurrent, p.natAddresses);
          if (warning) log(`warning: ${warning}`);
        }
      } catch (err) {
        await closeAll();
        throw err;
      }
      const homeRun = runs[0] as OpenRun;
      const store = regionalStore(runs.map((r, k) => ({ region: parts[k]?.region ?? '', store: r.store, generatorIds: idsOf(k) })));
      return {
        target: homeRun.target,
        store,
        fleet: regionalFleet(runs.map((r, k) => ({ region: parts[k]?.region ?? '', fleet: r.fleet, generatorIds: idsOf(k) }))),
        // The target's figures and CloudWatch (target, load balancer, dashboard) live in the home region.
        metrics: homeRun.metrics,
        timings: homeRun.timings,
        async preflight(spec) {
          await homeRun.preflight(spec);
          // What the rig retargets (the target, a ws connect URL made from {{ target }}); a connect URL of the script's own stays.
          for (const r of runs.slice(1)) await r.preflight(probeSpecFor(spec, remoteUrl));
        },
        // The composite store lists and reads every region's keys: one copy of each region's store into the run folder.
        copyToRunDir: () => copyStoreToFolder(store, runDir),
        close: closeAll,
      };
    },
  };
}
