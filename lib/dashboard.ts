import { Duration } from 'aws-cdk-lib';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { Construct } from 'constructs';
import { CW_AGENT_METRICS, RIG_METRIC_DIMENSIONS, RIG_METRICS } from './metric-names';

/** What the dashboard shows about the target; absent for a bring-your-own target. */
export interface TargetDashboardMetrics {
  /** Average target CPU, the metric the scaling alarms watch. */
  readonly cpu: cw.IMetric;
  /** The scale-out threshold (%), drawn on the CPU graph. */
  readonly scaleOutCpuPercent: number;
  /** Instances / tasks in service. */
  readonly inService: cw.IMetric;
  /** The target's load balancer. */
  readonly loadBalancer: elbv2.IApplicationLoadBalancer;
  /**
   * The internet-facing load balancer generators in other regions load (generatorRegions): its connections,
   * 5xx and response times are its own metrics (AWS/ApplicationELB is per load balancer), drawn beside the first's.
   */
  readonly otherRegionsLoadBalancer?: elbv2.IApplicationLoadBalancer;
}

export { RIG_METRICS };

/** Properties of {@link RigDashboard}. */
export interface RigDashboardProps {
  /** Dashboard name (also the output the CLI links to). */
  readonly dashboardName: string;
  /** Name of the generator auto-scaling group (the CloudWatch agent aggregates by it). */
  readonly generatorAsgName: string;
  /** Custom namespace of the rig's own metrics. */
  readonly rigNamespace: string;
  /**
   * Target metrics.
   * @default - no target rows (bring-your-own target)
   */
  readonly target?: TargetDashboardMetrics;
}

const PERIOD = Duration.minutes(1);

/**
 * One CloudWatch dashboard for a run: the target (CPU against the scale-out line, in-service count,
 * load-balancer connections, errors, latency), the generators (CPU, memory, open files, TCP
 * established) and the rig's own counters, so "target saturated" and "generators saturated"
 * can be told apart on one screen.
 */
export class RigDashboard extends Construct {
  /** The dashboard. */
  public readonly dashboard: cw.Dashboard;

  constructor(scope: Construct, id: string, props: RigDashboardProps) {
    super(scope, id);
    const d = new cw.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(1),
    });
    this.dashboard = d;
    if (props.target) d.addWidgets(...targetWidgets(props.target));
    d.addWidgets(...generatorWidgets(props.generatorAsgName));
    d.addWidgets(...rigWidgets(props.rigNamespace));
  }
}

function targetWidgets(t: TargetDashboardMetrics): cw.IWidget[] {
  // Each load balancer's series, the other regions' one labelled as such.
  type AlbMetrics = elbv2.IApplicationLoadBalancer['metrics'];
  const perAlb = (series: (a: AlbMetrics, of: string) => cw.IMetric[]): cw.IMetric[] => [
    ...series(t.loadBalancer.metrics, ''),
    ...(t.otherRegionsLoadBalancer ? series(t.otherRegionsLoadBalancer.metrics, ' (other regions\' ALB)') : []),
  ];
  return [
    new cw.GraphWidget({
      title: 'Target CPU (%) vs scale-out threshold',
      left: [t.cpu],
      leftAnnotations: [{ value: t.scaleOutCpuPercent, label: `scale out at ${t.scaleOutCpuPercent}%`, color: cw.Color.RED }],
      leftYAxis: { min: 0, max: 100 },
      width: 8,
    }),
    new cw.GraphWidget({ title: 'Target in service', left: [t.inService], width: 4 }),
    new cw.GraphWidget({
      title: 'ALB connections',
      left: perAlb((a, of) => [
        a.activeConnectionCount({ period: PERIOD, label: `active${of}` }),
        a.newConnectionCount({ period: PERIOD, label: `new${of}` }),
      ]),
      width: 4,
    }),
    new cw.GraphWidget({
      title: 'ALB 5xx',
      left: perAlb((a, of) => [
        a.httpCodeElb(elbv2.HttpCodeElb.ELB_5XX_COUNT, { period: PERIOD, label: `ELB 5xx${of}` }),
        a.httpCodeTarget(elbv2.HttpCodeTarget.TARGET_5XX_COUNT, { period: PERIOD, label: `target 5xx${of}` }),
      ]),
      width: 4,
    }),
    new cw.GraphWidget({
      title: 'Target response time (s)',
      left: perAlb((a, of) => [
        a.targetResponseTime({ period: PERIOD, statistic: 'p50', label: `p50${of}` }),
        a.targetResponseTime({ period: PERIOD, statistic: 'p99', label: `p99${of}` }),
      ]),
      width: 4,
    }),
  ];
}

function generatorWidgets(asgName: string): cw.IWidget[] {
  const dims = { AutoScalingGroupName: asgName };
  const agent = (metricName: string, label: string, statistic = 'Maximum'): cw.Metric =>
    new cw.Metric({ namespace: 'CWAgent', metricName, dimensionsMap: dims, period: PERIOD, statistic, label });
  return [
    new cw.GraphWidget({
      title: 'Generator CPU (%)',
      left: [
        new cw.Metric({ namespace: 'AWS/EC2', metricName: 'CPUUtilization', dimensionsMap: dims, period: PERIOD, statistic: 'Maximum', label: 'max' }),
        new cw.Metric({ namespace: 'AWS/EC2', metricName: 'CPUUtilization', dimensionsMap: dims, period: PERIOD, statistic: 'Average', label: 'avg' }),
      ],
      leftYAxis: { min: 0, max: 100 },
      width: 6,
    }),
    new cw.GraphWidget({ title: 'Generator memory used (%)', left: [agent(CW_AGENT_METRICS.memUsedPercent, 'max')], leftYAxis: { min: 0, max: 100 }, width: 6 }),
    new cw.GraphWidget({ title: 'Generator open files', left: [agent(CW_AGENT_METRICS.openFiles, 'max per generator')], width: 6 }),
    new cw.GraphWidget({
      title: 'Generator TCP established',
      left: [agent(CW_AGENT_METRICS.tcpEstablished, 'max per generator'), agent(CW_AGENT_METRICS.tcpEstablished, 'fleet total', 'Sum')],
      width: 6,
    }),
  ];
}

function rigWidgets(namespace: string): cw.IWidget[] {
  // SEARCH so the widgets show every run's series (one per RunId) without naming a run at deploy time. The schema
  // lists the published dimension names exactly (RIG_METRIC_DIMENSIONS): a schema matches only that dimension set.
  const schema = [namespace, ...RIG_METRIC_DIMENSIONS].join(',');
  const search = (metricName: string, stat: string, label: string): cw.MathExpression =>
    new cw.MathExpression({
      expression: `SEARCH('{${schema}} MetricName="${metricName}"', '${stat}', 60)`,
      usingMetrics: {},
      label,
      period: PERIOD,
    });
  return [
    new cw.GraphWidget({
      title: 'Rig: vusers (created/failed per minute; active at the minute\'s end)',
      left: [
        search(RIG_METRICS.vusersCreated, 'Sum', 'created'),
        // One active datapoint per 10-s period (the fleet's running total): Sum would add six of them up.
        search(RIG_METRICS.vusersActive, 'Maximum', 'active'),
        search(RIG_METRICS.vusersFailed, 'Sum', 'failed'),
      ],
      width: 12,
    }),
    new cw.GraphWidget({
      title: 'Rig: connect time p95 of each 10-s period (ms; worst and typical in the minute)',
      left: [search(RIG_METRICS.connectLatency, 'Maximum', 'worst period p95'), search(RIG_METRICS.connectLatency, 'Average', 'average period p95')],
      width: 12,
    }),
  ];
}
