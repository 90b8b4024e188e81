/**
 * Before the fleet scales: the account's vCPU quota (Service Quotas) and the generator type's
 * availability in the generator subnets' zones (DescribeInstanceTypeOfferings), compared with the plan.
 * A fresh account's On-Demand Standard vCPU quota is often below what a large run needs; without this
 * check the run would wait ten minutes for instances that never launch. A refusal names the numbers
 * and the console page that raises the quota (exit 2, nothing scaled).
 *
 * The comparison ({@link quotaShortfall}) is pure; {@link checkCapacity} reads the account through
 * {@link AwsApi}. A check that cannot run (no permission, a quota Service Quotas does not know in the
 * region) is reported as "not checked" and never blocks the run: the quota is advisory data.
 */
import type { _InstanceType } from '@aws-sdk/client-ec2';
import { NoSuchResourceException } from '@aws-sdk/client-service-quotas';
import { UsageError } from '../../errors';
import type { AwsApi } from './clients';

/** A Service Quotas quota the rig checks. */
export interface QuotaRef {
  readonly serviceCode: string;
  readonly quotaCode: string;
  /** The quota's name in the Service Quotas console. */
  readonly name: string;
}

/** EC2's vCPU quota for On-Demand instances of the standard families (c5, t3, m5, …). */
export const EC2_STANDARD_VCPU: QuotaRef = { serviceCode: 'ec2', quotaCode: 'L-1216C47A', name: 'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances' };
/** Fargate's vCPU quota for On-Demand tasks (the Fargate target). */
export const FARGATE_VCPU: QuotaRef = { serviceCode: 'fargate', quotaCode: 'L-3032A538', name: 'Fargate On-Demand vCPU resource count' };

/** The Service Quotas console page where the quota is raised. */
export function quotaConsoleUrl(region: string, q: QuotaRef): string {
  return `https://${region}.console.aws.amazon.com/servicequotas/home/services/${q.serviceCode}/quotas/${q.quotaCode}`;
}

/**
 * Whether an instance type counts against {@link EC2_STANDARD_VCPU}: families starting A, C, D, H, I, M,
 * R, T or Z — except the ones with their own quota (Inf, DL, Trn, HPC, Mac, High Memory `u-`).
 */
export function isStandardFamily(instanceType: string): boolean {
  const family = instanceType.split('.')[0]?.toLowerCase() ?? '';
  if (/^(inf|dl|trn|hpc|mac|u-)/.test(family)) return false;
  return /^[acdhimrtz]/.test(family);
}

/** One part of what the run needs from a quota. */
export interface VcpuNeed {
  /** e.g. "4 × c5.large generators" */
  readonly what: string;
  readonly vcpus: number;
  /**
   * What lowers this need, for the refusal's fix: the run's generators (`--vusers`, `--generators`; not below one),
   * or the deployed target's maximum size (`maxCapacity`, `each` vCPUs an instance or task; `minCapacity` when known,
   * since a maximum below it is refused at synth). Without it, the fix offered is the generators'.
   */
  readonly lowered?:
    | { readonly by: 'generators'; readonly count: number }
    | { readonly by: 'maxCapacity'; readonly count: number; readonly each: number; readonly minCapacity?: number };
}

/** The comparison of a quota with the run's needs. */
export interface QuotaComparison {
  readonly quota: QuotaRef;
  readonly limit: number;
  readonly needs: readonly VcpuNeed[];
  /** vCPUs already running that the run does not account for (AWS/Usage minus the rig's own), when known. */
  readonly otherUsage?: number;
}

/**
 * The refusal line when the needs plus other usage exceed the limit, else undefined. Pure.
 */
export function quotaShortfall(c: QuotaComparison, region: string): string | undefined {
  const needed = c.needs.reduce((a, n) => a + n.vcpus, 0);
  const other = c.otherUsage ?? 0;
  if (needed + other <= c.limit) return undefined;
  const parts = c.needs.map((n) => `${n.what} = ${n.vcpus}`);
  if (other > 0) parts.push(`${other} already running elsewhere in the account`);
  const fixes: string[] = [];
  // Only what can lower the need is offered: one generator is the fewest a run has, so a fresh account's small
  // quota (a few vCPUs) against the documented first run is fixed by the target's maximum, not by --vusers.
  if (c.needs.some((n) => !n.lowered || (n.lowered.by === 'generators' && n.lowered.count > 1))) fixes.push('lower --vusers or --generators');
  for (const n of c.needs) {
    if (n.lowered?.by !== 'maxCapacity') continue;
    // The run counts the target at its maximum: it may scale out during the run, and a launch past the quota fails.
    const fits = Math.floor((c.limit - other - (needed - n.vcpus)) / n.lowered.each);
    if (fits < 1 || fits >= n.lowered.count) continue;
    const min = n.lowered.minCapacity !== undefined && n.lowered.minCapacity > fits ? ` -c minCapacity=${fits}` : '';
    // What else the lower maximum changes: the target's headroom; Redis under redis=auto (lib/config.ts: on when
    // maxCapacity > 1); and a minimum the CLI cannot read (a Fargate service's) may be above it, which synth refuses.
    const effects = [
      'a smaller target may become the run\'s bottleneck',
      ...(fits === 1 ? ['at maxCapacity=1 redis=auto (the default) deploys no Redis'] : []),
      ...(n.lowered.minCapacity === undefined ? [`if it was deployed with -c minCapacity above ${fits}, add -c minCapacity=${fits} (a minimum above the maximum is refused)`] : []),
    ];
    fixes.push(`redeploy the target with a lower maximum (\`npm run deploy -- -c maxCapacity=${fits}${min}\` with the deploy's other -c options: the run counts the target at its maximum of ${n.lowered.count}, to which it may scale out during the run; ${effects.join('; ')})`);
  }
  fixes.push(`request an increase to at least ${needed + other} at ${quotaConsoleUrl(region, c.quota)}`);
  const fix = fixes.length > 1 ? `${fixes.slice(0, -1).join(', ')}, or ${fixes[fixes.length - 1]}` : fixes[0];
  return `the run needs ${needed + other} vCPUs of the quota "${c.quota.name}" (${c.quota.quotaCode}) in ${region} (${parts.join(' + ')}), and the account's quota is ${c.limit}; ${fix}`;
}

/** What {@link checkCapacity} compares. */
export interface CapacityRequest {
  readonly region: string;
  readonly generatorAsgName: string;
  readonly generatorInstanceType: string;
  /** Generators the plan scales to. */
  readonly generators: number;
  /** The EC2 target: its group (current size) and instance type and maximum size (it may scale during the run). */
  readonly ec2Target?: { readonly asgName?: string; readonly instanceType: string; readonly maxCapacity: number };
  /** The Fargate target: its tasks' vCPUs and maximum task count. */
  readonly fargateTarget?: { readonly taskVcpu: number; readonly maxTasks: number };
  readonly log: (line: string) => void;
  /** @default now */
  readonly now?: () => number;
}

/** Why a read failed, for the "not checked" line. */
function reason(err: unknown): string {
  if (err instanceof NoSuchResourceException) return 'Service Quotas does not report it in this region';
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  if (e?.$metadata?.httpStatusCode === 403 || /AccessDenied|UnauthorizedOperation/.test(e?.name ?? '')) {
    return `access denied (${e.name}); iam/operator-policy.json grants it`;
  }
  return `${e?.name ?? 'Error'}: ${e?.message ?? String(err)}`;
}

/** A quota's applied value; undefined (with a note) when it cannot be read. */
async function readQuota(api: AwsApi, q: QuotaRef, log: (l: string) => void): Promise<number | undefined> {
  try {
    const res = await api.getServiceQuota({ ServiceCode: q.serviceCode, QuotaCode: q.quotaCode });
    const v = res.Quota?.Value;
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    log(`quota ${q.quotaCode} (${q.name}): not checked (no value in the answer)`);
  } catch (err) {
    // Advisory data: whatever stops the read (permission, region, network) is said, never fatal.
    log(`quota ${q.quotaCode} (${q.name}): not checked (${reason(err)})`);
  }
  return undefined;
}

/** vCPUs of each instance type (DescribeInstanceTypes). */
async function vcpusOf(api: AwsApi, types: readonly string[]): Promise<Map<string, number>> {
  const res = await api.describeInstanceTypes({ InstanceTypes: [...new Set(types)] as _InstanceType[] });
  const out = new Map<string, number>();
  for (const t of res.InstanceTypes ?? []) {
    if (t.InstanceType && t.VCpuInfo?.DefaultVCpus) out.set(t.InstanceType, t.VCpuInfo.DefaultVCpus);
  }
  return out;
}

/** The account's Standard On-Demand vCPUs in use now (AWS/Usage, the metric Service Quotas charts), when reported. */
async function standardVcpusInUse(api: AwsApi, now: number): Promise<number | undefined> {
  const res = await api.getMetricData({
    StartTime: new Date(now - 15 * 60_000),
    EndTime: new Date(now),
    MetricDataQueries: [{
      Id: 'usage',
      ReturnData: true,
      MetricStat: {
        Metric: {
          Namespace: 'AWS/Usage',
          MetricName: 'ResourceCount',
          Dimensions: [
            { Name: 'Service', Value: 'EC2' },
            { Name: 'Type', Value: 'Resource' },
            { Name: 'Resource', Value: 'vCPU' },
            { Name: 'Class', Value: 'Standard/OnDemand' },
          ],
        },
        Period: 60,
        Stat: 'Maximum',
      },
    }],
    ScanBy: 'TimestampDescending',
  });
  const v = res.MetricDataResults?.[0]?.Values?.[0];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * Checks the generator type's zones and the vCPU quotas against the plan; logs what it compared.
 *
 * @throws UsageError when the generator type is offered in none of the group's zones, or a quota is too small.
 */
export async function checkCapacity(api: AwsApi, req: CapacityRequest): Promise<void> {
  const { log, region } = req;
  const now = req.now ?? Date.now;
  const groups = await api.describeAutoScalingGroups({ AutoScalingGroupNames: [req.generatorAsgName, ...(req.ec2Target?.asgName ? [req.ec2Target.asgName] : [])] });
  const genGroup = groups.AutoScalingGroups?.find((g) => g.AutoScalingGroupName === req.generatorAsgName);
  const targetGroup = req.ec2Target?.asgName ? groups.AutoScalingGroups?.find((g) => g.AutoScalingGroupName === req.ec2Target?.asgName) : undefined;

  await checkOfferings(api, req.generatorInstanceType, genGroup?.AvailabilityZones ?? [], region, log);

  const types = [req.generatorInstanceType, ...(req.ec2Target ? [req.ec2Target.instanceType] : [])];
  let vcpus: Map<string, number>;
  try {
    vcpus = await vcpusOf(api, types);
  } catch (err) {
    log(`vCPU quota: not checked (DescribeInstanceTypes: ${reason(err)})`);
    return;
  }
  const gv = vcpus.get(req.generatorInstanceType);
  const tv = req.ec2Target ? vcpus.get(req.ec2Target.instanceType) : undefined;

  const standardNeeds: VcpuNeed[] = [];
  let rigRunning = 0;
  if (gv !== undefined && isStandardFamily(req.generatorInstanceType)) {
    standardNeeds.push({ what: `${req.generators} × ${req.generatorInstanceType} generators (${gv} vCPUs each)`, vcpus: req.generators * gv, lowered: { by: 'generators', count: req.generators } });
    rigRunning += (genGroup?.Instances ?? []).filter((i) => i.LifecycleState !== 'Terminated').length * gv;
  } else if (gv === undefined) {
    log(`vCPU quota: ${req.generatorInstanceType} unknown to DescribeInstanceTypes in ${region}; generators not counted`);
  } else {
    log(`vCPU quota: ${req.generatorInstanceType} is not a standard family; its own On-Demand quota is not checked`);
  }
  if (req.ec2Target && tv !== undefined && isStandardFamily(req.ec2Target.instanceType)) {
    const minCapacity = targetGroup?.MinSize;
    standardNeeds.push({
      what: `up to ${req.ec2Target.maxCapacity} × ${req.ec2Target.instanceType} targets (${tv} vCPUs each)`,
      vcpus: req.ec2Target.maxCapacity * tv,
      lowered: { by: 'maxCapacity', count: req.ec2Target.maxCapacity, each: tv, ...(minCapacity !== undefined ? { minCapacity } : {}) },
    });
    rigRunning += (targetGroup?.Instances ?? []).length * tv;
  }

  if (standardNeeds.length) {
    const limit = await readQuota(api, EC2_STANDARD_VCPU, log);
    if (limit !== undefined) {
      let inUse: number | undefined;
      try {
        inUse = await standardVcpusInUse(api, now());
      } catch {
        inUse = undefined;
      }
      const otherUsage = inUse === undefined ? undefined : Math.max(0, inUse - rigRunning);
      const refusal = quotaShortfall({ quota: EC2_STANDARD_VCPU, limit, needs: standardNeeds, ...(otherUsage !== undefined ? { otherUsage } : {}) }, region);
      if (refusal) throw new UsageError(refusal);
      const needed = standardNeeds.reduce((a, n) => a + n.vcpus, 0) + (otherUsage ?? 0);
      log(`vCPU quota ${EC2_STANDARD_VCPU.quotaCode}: ${needed} of ${limit} needed${inUse === undefined ? ' (other usage in the account not reported by AWS/Usage: not counted)' : ''}`);
    }
  }

  if (req.fargateTarget) {
    const limit = await readQuota(api, FARGATE_VCPU, log);
    if (limit !== undefined) {
      const needs: VcpuNeed[] = [{
        what: `up to ${req.fargateTarget.maxTasks} target tasks × ${req.fargateTarget.taskVcpu} vCPU`,
        vcpus: req.fargateTarget.maxTasks * req.fargateTarget.taskVcpu,
        lowered: { by: 'maxCapacity', count: req.fargateTarget.maxTasks, each: req.fargateTarget.taskVcpu },
      }];
      const refusal = quotaShortfall({ quota: FARGATE_VCPU, limit, needs }, region);
      if (refusal) throw new UsageError(refusal);
      log(`Fargate vCPU quota ${FARGATE_VCPU.quotaCode}: ${needs[0]?.vcpus} of ${limit} needed (other Fargate tasks in the account not counted)`);
    }
  }
}

/** Refuses a generator type offered in none of the group's zones; notes zones that lack it. */
async function checkOfferings(api: AwsApi, instanceType: string, zones: readonly string[], region: string, log: (l: string) => void): Promise<void> {
  if (zones.length === 0) return;
  let offered: Set<string>;
  try {
    const res = await api.describeInstanceTypeOfferings({
      LocationType: 'availability-zone',
      Filters: [{ Name: 'instance-type', Values: [instanceType] }, { Name: 'location', Values: [...zones] }],
    });
    offered = new Set((res.InstanceTypeOfferings ?? []).map((o) => String(o.Location)));
  } catch (err) {
    log(`zones: not checked whether ${instanceType} is offered (${reason(err)})`);
    return;
  }
  const missing = zones.filter((z) => !offered.has(z));
  if (missing.length === zones.length) {
    throw new UsageError(`the generator instance type ${instanceType} is not offered in any of the generator subnets' zones (${zones.join(', ')}) in ${region}; redeploy with another type (npx cdk deploy --all -c generatorInstanceType=c5.large) or other zones`);
  }
  if (missing.length) log(`zones: ${instanceType} is not offered in ${missing.join(', ')}; generators launch in ${zones.filter((z) => offered.has(z)).join(', ')}`);
}
