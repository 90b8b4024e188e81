/**
 * CloudWatch for an AWS run: the run window's metrics (GetMetricData), the scaling alarms' state and
 * the target group's scaling activities, as the report's {@link CloudWatchSection}; and the rig's own
 * metrics (vusers created / active / failed, connect latency p95) published into the dashboard's
 * custom namespace (PutMetricData).
 */
import { GENERATORS_PREFIX, KEY_KIND } from '../../../load-generators/lib/run-protocol';
import type { RunStore } from '../../contracts';
import type { MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import { PeriodMetrics, deserializePeriod, summarize } from '../../core/merge';
import type { AwsApi } from './clients';
import { CW_AGENT_METRICS, RIG_METRIC_DIMENSIONS, RIG_METRICS } from '../../../lib/metric-names';
import type { CloudWatchSection, CloudWatchSeries } from '../../report/types';

/** Which resources of the deployed rig to read metrics for (from the stacks' outputs). */
export interface MetricSources {
  readonly generatorAsgName: string;
  readonly targetAsgName?: string;
  readonly targetServiceName?: string;
  readonly targetClusterName?: string;
  readonly loadBalancerFullName?: string;
  /** The internet-facing ALB other regions' generators load: its metrics are its own, reported beside the first's. */
  readonly publicLoadBalancerFullName?: string;
  readonly scaleOutAlarmName?: string;
  readonly scaleInAlarmName?: string;
}

/** One query of the report: a GetMetricData MetricStat with its label and unit. */
export interface MetricQuery {
  readonly id: string;
  readonly label: string;
  readonly unit?: string;
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly stat: string;
}

const q = (id: string, label: string, namespace: string, metricName: string, dimensions: Record<string, string>, stat: string, unit?: string): MetricQuery => ({
  id,
  label,
  namespace,
  metricName,
  dimensions,
  stat,
  ...(unit ? { unit } : {}),
});

/** The report's queries: target CPU (per instance and average), in service, ALB, generators (as the CDK app's CloudWatch agent publishes them). */
export function metricQueries(src: MetricSources, targetInstanceIds: readonly string[]): MetricQuery[] {
  const out: MetricQuery[] = [];
  if (src.targetAsgName) {
    const asg = { AutoScalingGroupName: src.targetAsgName };
    out.push(q('target_cpu_avg', 'Target CPU (average)', 'AWS/EC2', 'CPUUtilization', asg, 'Average', '%'));
    targetInstanceIds.forEach((id, i) => out.push(q(`target_cpu_${i}`, `Target CPU ${id}`, 'AWS/EC2', 'CPUUtilization', { InstanceId: id }, 'Average', '%')));
    out.push(q('target_in_service', 'Target instances in service', 'AWS/AutoScaling', 'GroupInServiceInstances', asg, 'Maximum', 'count'));
  } else if (src.targetServiceName && src.targetClusterName) {
    const svc = { ClusterName: src.targetClusterName, ServiceName: src.targetServiceName };
    out.push(q('target_cpu_avg', 'Target CPU (average)', 'AWS/ECS', 'CPUUtilization', svc, 'Average', '%'));
    out.push(q('target_in_service', 'Target tasks running', 'ECS/ContainerInsights', 'RunningTaskCount', svc, 'Maximum', 'count'));
  }
  // AWS/ApplicationELB metrics are per load balancer: with generators in other regions, their load arrives at the
  // internet-facing one, so both are read (the second's ids and labels say whose).
  const albs = [
    { name: src.loadBalancerFullName, id: 'alb', of: '' },
    { name: src.publicLoadBalancerFullName, id: 'alb_public', of: ' (other regions\' ALB)' },
  ];
  for (const { name, id, of } of albs) {
    if (!name) continue;
    const lb = { LoadBalancer: name };
    out.push(q(`${id}_active`, `ALB active connections${of}`, 'AWS/ApplicationELB', 'ActiveConnectionCount', lb, 'Sum', 'count'));
    out.push(q(`${id}_new`, `ALB new connections${of}`, 'AWS/ApplicationELB', 'NewConnectionCount', lb, 'Sum', 'count'));
    out.push(q(`${id}_target_5xx`, `Target 5xx${of}`, 'AWS/ApplicationELB', 'HTTPCode_Target_5XX_Count', lb, 'Sum', 'count'));
    out.push(q(`${id}_response_time`, `Target response time (average)${of}`, 'AWS/ApplicationELB', 'TargetResponseTime', lb, 'Average', 's'));
  }
  const gen = { AutoScalingGroupName: src.generatorAsgName };
  out.push(q('gen_cpu_max', 'Generator CPU (max)', 'AWS/EC2', 'CPUUtilization', gen, 'Maximum', '%'));
  out.push(q('gen_cpu_avg', 'Generator CPU (average)', 'AWS/EC2', 'CPUUtilization', gen, 'Average', '%'));
  out.push(q('gen_mem_max', 'Generator memory used (max)', 'CWAgent', CW_AGENT_METRICS.memUsedPercent, gen, 'Maximum', '%'));
  out.push(q('gen_open_files_max', 'Generator open files (max)', 'CWAgent', CW_AGENT_METRICS.openFiles, gen, 'Maximum', 'count'));
  out.push(q('gen_tcp_established', 'Generator TCP established (fleet total)', 'CWAgent', CW_AGENT_METRICS.tcpEstablished, gen, 'Sum', 'count'));
  return out;
}

/** The query window: the run's window widened to whole periods, one period either side. */
export function queryWindow(window: { readonly start: number; readonly end: number }, periodSeconds: number): { start: Date; end: Date } {
  const p = periodSeconds * 1000;
  return { start: new Date(Math.floor(window.start / p) * p - p), end: new Date(Math.ceil(window.end / p) * p + p) };
}

/** Instance ids named in scaling activities ("Launching a new EC2 instance: i-0abc…"). */
function instanceIdsIn(text: string | undefined): string[] {
  return [...(text ?? '').matchAll(/\bi-[0-9a-f]{8,17}\b/g)].map((m) => m[0]);
}

/** Everything CloudWatch says about the run window, for report.json. */
export async function collectCloudWatch(
  api: AwsApi,
  src: MetricSources,
  window: { readonly start: number; readonly end: number },
  periodSeconds = 60,
): Promise<CloudWatchSection> {
  const { start, end } = queryWindow(window, periodSeconds);
  const alarms: Array<{ at: number; name: string; state: string }> = [];
  const targetInstances = new Set<string>();

  if (src.targetAsgName) {
    const group = await api.describeAutoScalingGroups({ AutoScalingGroupNames: [src.targetAsgName] });
    for (const i of group.AutoScalingGroups?.[0]?.Instances ?? []) if (i.InstanceId) targetInstances.add(i.InstanceId);
    const acts = await api.describeScalingActivities({ AutoScalingGroupName: src.targetAsgName, MaxRecords: 100 });
    for (const a of acts.Activities ?? []) {
      const at = a.StartTime ? new Date(a.StartTime).getTime() : NaN;
      if (!(at >= start.getTime() && at <= end.getTime())) continue;
      for (const id of instanceIdsIn(a.Description)) targetInstances.add(id);
      alarms.push({ at, name: `scaling: ${a.Description ?? a.Cause ?? 'activity'}`, state: String(a.StatusCode ?? 'unknown') });
    }
  }

  const names = [src.scaleOutAlarmName, src.scaleInAlarmName].filter((n): n is string => Boolean(n));
  if (names.length) {
    const res = await api.describeAlarms({ AlarmNames: names });
    for (const a of res.MetricAlarms ?? []) {
      const at = a.StateUpdatedTimestamp ? new Date(a.StateUpdatedTimestamp).getTime() : NaN;
      // The alarm's current state; its change counts for the run when it happened within the window.
      if (Number.isFinite(at)) alarms.push({ at, name: String(a.AlarmName), state: `${a.StateValue ?? 'UNKNOWN'}${at < start.getTime() ? ' (since before the run)' : ''}` });
    }
  }

  const queries = metricQueries(src, [...targetInstances].sort());
  const byId = new Map<string, { timestamps: number[]; values: number[] }>();
  for (let i = 0; i < queries.length; i += 500) {
    const batch: MetricDataQuery[] = queries.slice(i, i + 500).map((m) => ({
      Id: m.id,
      Label: m.label,
      ReturnData: true,
      MetricStat: {
        Metric: { Namespace: m.namespace, MetricName: m.metricName, Dimensions: Object.entries(m.dimensions).map(([Name, Value]) => ({ Name, Value })) },
        Period: periodSeconds,
        Stat: m.stat,
      },
    }));
    let token: string | undefined;
    do {
      const res = await api.getMetricData({ MetricDataQueries: batch, StartTime: start, EndTime: end, ScanBy: 'TimestampAscending', NextToken: token });
      for (const r of res.MetricDataResults ?? []) {
        if (!r.Id) continue;
        const acc = byId.get(r.Id) ?? { timestamps: [], values: [] };
        (r.Timestamps ?? []).forEach((t, k) => {
          acc.timestamps.push(new Date(t).getTime());
          acc.values.push(Number(r.Values?.[k]));
        });
        byId.set(r.Id, acc);
      }
      token = res.NextToken;
    } while (token);
  }

  const series: CloudWatchSeries[] = queries.map((m) => {
    const acc = byId.get(m.id) ?? { timestamps: [], values: [] };
    const order = acc.timestamps.map((_, k) => k).sort((a, b) => (acc.timestamps[a] ?? 0) - (acc.timestamps[b] ?? 0));
    return {
      id: m.id,
      label: m.label,
      ...(m.unit ? { unit: m.unit } : {}),
      timestamps: order.map((k) => acc.timestamps[k] ?? 0),
      values: order.map((k) => acc.values[k] ?? null),
    };
  });
  return { series, alarms: alarms.sort((a, b) => a.at - b.at) };
}

/** Rig metric names in the custom namespace (the dashboard's "Rig" widgets). */
export const RIG_METRIC_NAMES = RIG_METRICS;

/**
 * Publishes the rig's metrics from the run store's period files, period by period, each file once:
 * counters as they arrive (CloudWatch sums late batches into the same minute), active vusers as the
 * running total, connect latency p95 per newly seen period.
 */
export class RigMetricsPublisher {
  private readonly seen = new Set<string>();
  private readonly totals = { created: 0, completed: 0, failed: 0 };

  constructor(
    private readonly api: AwsApi,
    private readonly store: RunStore,
    private readonly namespace: string,
    private readonly runId: string,
  ) {}

  /** Reads new period files and publishes them; returns the number of data points sent. */
  async publishNew(): Promise<number> {
    const keys = (await this.store.list(GENERATORS_PREFIX)).filter((k) => KEY_KIND.period.test(k) && !this.seen.has(k));
    const fresh: PeriodMetrics[] = [];
    for (const key of keys) {
      const text = await this.store.get(key);
      if (text === undefined) continue;
      this.seen.add(key);
      fresh.push(deserializePeriod(text));
    }
    // Every generator's every load process writes its own file per period: group them, so each period gets ONE
    // active-vusers datapoint (the fleet's running total), not one per process that a Sum would add up.
    const byPeriod = new Map<number, PeriodMetrics[]>();
    for (const p of fresh) byPeriod.set(p.period, [...(byPeriod.get(p.period) ?? []), p]);
    const values: Record<(typeof RIG_METRIC_DIMENSIONS)[number], string> = { RunId: this.runId };
    const dims = RIG_METRIC_DIMENSIONS.map((Name) => ({ Name, Value: values[Name] }));
    const data = [];
    for (const period of [...byPeriod.keys()].sort((a, b) => a - b)) {
      const parts = byPeriod.get(period) ?? [];
      const sum = (name: string) => parts.reduce((n, p) => n + (p.counters[name] ?? 0), 0);
      const created = sum('vusers.created');
      const failed = sum('vusers.failed');
      this.totals.created += created;
      this.totals.completed += sum('vusers.completed');
      this.totals.failed += failed;
      const Timestamp = new Date(period);
      data.push(
        { MetricName: RIG_METRIC_NAMES.vusersCreated, Dimensions: dims, Timestamp, Value: created, Unit: 'Count' as const },
        { MetricName: RIG_METRIC_NAMES.vusersFailed, Dimensions: dims, Timestamp, Value: failed, Unit: 'Count' as const },
        { MetricName: RIG_METRIC_NAMES.vusersActive, Dimensions: dims, Timestamp, Value: Math.max(0, this.totals.created - this.totals.completed - this.totals.failed), Unit: 'Count' as const },
      );
      for (const p of parts) {
        const connect = p.histograms['ws.connect_time'];
        if (connect && connect.count > 0) {
          data.push({ MetricName: RIG_METRIC_NAMES.connectLatency, Dimensions: dims, Timestamp, Value: summarize(connect).p95, Unit: 'Milliseconds' as const });
        }
      }
    }
    for (let i = 0; i < data.length; i += 500) {
      await this.api.putMetricData({ Namespace: this.namespace, MetricData: data.slice(i, i + 500) });
    }
    return data.length;
  }
}
