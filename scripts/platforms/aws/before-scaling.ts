/**
 * What the AWS platform checks after its preflight and before the fleet scales: the vCPU quotas and
 * zone offerings (quotas.ts), then the run's estimated cost and `--max-cost` (cost.ts). Either refusal
 * is a UsageError: exit 2, nothing scaled. A region of a run over several regions checks its quotas only: the
 * run's cost is every region's estimate summed and compared once, before any region opens (multi-region.ts).
 */
import type { Plan } from '../../core/plan';
import { secondsOfPhase } from '../../core/phases';
import { UsageError } from '../../errors';
import type { AwsApi } from './clients';
import { costLines, estimateRunCost, maxCostRefusal } from './cost';
import type { CostEstimate, CostInputs } from './cost';
import type { RigOutputs } from './discovery';
import { checkCapacity } from './quotas';

/** What {@link checkBeforeScaling} needs. */
export interface BeforeScalingProps {
  readonly api: AwsApi;
  readonly outputs: RigOutputs;
  readonly plan: Plan;
  readonly generatorInstanceType: string;
  readonly processesPerGenerator: number;
  /** --target given: the rig's load balancer carries no load. */
  readonly externalTarget: boolean;
  readonly maxCost?: number;
  readonly log: (line: string) => void;
  /** @default now */
  readonly now?: () => number;
}

/** Seconds from the first arrival to the last vuser's end: the longest slice plus one session (Little's law on the plan's peak). */
export function loadSecondsOf(plan: Plan): number {
  const phaseSeconds = Math.max(0, ...plan.generators.map((g) => g.phases.reduce((a, p) => a + secondsOfPhase(p), 0)));
  const session = plan.peakArrivalRate > 0 ? plan.peakConcurrent / plan.peakArrivalRate : 0;
  return Math.ceil(phaseSeconds + Math.min(session, phaseSeconds || session));
}

/** The deployed target as the quota check and the estimate see it, from the target stack's outputs. */
function targetOf(o: RigOutputs): CostInputs['target'] {
  if (o.targetAsgName && o.targetInstanceType && o.targetMaxCapacity) return { kind: 'ec2', instanceType: o.targetInstanceType, maxCapacity: o.targetMaxCapacity };
  if (o.targetServiceName && o.targetTaskVcpu && o.targetMaxCapacity) return { kind: 'fargate', taskVcpu: o.targetTaskVcpu, taskGb: o.targetTaskMemoryGb ?? 2, maxTasks: o.targetMaxCapacity };
  return undefined;
}

/** What one region's estimate is made from. */
export interface RegionCostProps {
  readonly region: string;
  readonly outputs: RigOutputs;
  readonly plan: Plan;
  readonly generatorInstanceType: string;
  readonly processesPerGenerator: number;
  /** --target given (or another region's generators, which load the target the home region counts). */
  readonly externalTarget: boolean;
  /** The region's generators leave through NAT gateways (a region other than the target's). */
  readonly viaNat: boolean;
  /** How many NAT addresses they leave from (viaNat). */
  readonly natAddresses?: number;
  /** The other regions' load on this region's target (the home region of a run over several: their flows are logged here). */
  readonly remoteLoad?: CostInputs['remoteLoad'];
}

/** One region's estimated cost. Pure. */
export function estimateRegion(p: RegionCostProps): CostEstimate {
  // With --target elsewhere the rig's own target carries no load: it neither scales out nor adds LCUs.
  const target = p.externalTarget ? undefined : targetOf(p.outputs);
  return estimateRunCost({
    region: p.region,
    generatorInstanceType: p.generatorInstanceType,
    generators: p.plan.generators.length,
    processesPerGenerator: p.processesPerGenerator,
    loadSeconds: loadSecondsOf(p.plan),
    peakConnections: p.plan.peakConcurrent,
    peakArrivalRate: p.plan.peakArrivalRate,
    // Each vuser opens its own connection(s): a short-lived one is a flow log record of its own.
    connectionsOpened: p.plan.totalArrivals,
    ...(target ? { target } : {}),
    viaLoadBalancer: !p.externalTarget,
    viaNat: p.viaNat,
    ...(p.natAddresses !== undefined ? { natAddresses: p.natAddresses } : {}),
    ...(p.outputs.flowLogTraffic ? { flowLogTraffic: p.outputs.flowLogTraffic } : {}),
    ...(p.remoteLoad && !p.externalTarget ? { remoteLoad: p.remoteLoad } : {}),
  });
}

/** True when these outputs are one region of a run over several: its cost is summed with the others' (multi-region.ts). */
export const costedAcrossRegions = (o: RigOutputs): boolean => (o.regions?.length ?? 0) > 0 || o.costedWithOtherRegions === true;

/**
 * Quotas, zones, cost: logs each, throws UsageError on a refusal.
 */
export async function checkBeforeScaling(p: BeforeScalingProps): Promise<void> {
  const { api, outputs, plan, log } = p;
  const target = p.externalTarget ? undefined : targetOf(outputs);
  await checkCapacity(api, {
    region: api.region,
    generatorAsgName: outputs.generatorAsgName,
    generatorInstanceType: p.generatorInstanceType,
    generators: plan.generators.length,
    ...(target?.kind === 'ec2' ? { ec2Target: { ...(outputs.targetAsgName ? { asgName: outputs.targetAsgName } : {}), instanceType: target.instanceType, maxCapacity: target.maxCapacity } } : {}),
    ...(target?.kind === 'fargate' ? { fargateTarget: { taskVcpu: target.taskVcpu, maxTasks: target.maxTasks } } : {}),
    log,
    ...(p.now ? { now: p.now } : {}),
  });
  if (costedAcrossRegions(outputs)) return;
  const estimate = estimateRegion({ region: api.region, outputs, plan, generatorInstanceType: p.generatorInstanceType, processesPerGenerator: p.processesPerGenerator, externalTarget: p.externalTarget, viaNat: false });
  for (const line of costLines(estimate)) log(line);
  if (p.maxCost !== undefined) {
    const refusal = maxCostRefusal(estimate, p.maxCost);
    if (refusal) throw new UsageError(refusal);
    log(`--max-cost ${p.maxCost}: the estimate fits`);
  }
}
