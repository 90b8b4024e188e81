import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AutoScalingClient, DescribeAutoScalingGroupsCommand, DescribeScalingActivitiesCommand } from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient, DescribeAlarmsCommand, GetMetricDataCommand, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DDSketch } from '@artilleryio/sketches-js';
import { mockClient } from 'aws-sdk-client-mock';
import { localStore } from '../../load-generators/lib/run-store';
import { serializePeriod } from '../../scripts/core/merge';
import { createAwsApi } from '../../scripts/platforms/aws/clients';
import { RigMetricsPublisher, collectCloudWatch, metricQueries, queryWindow } from '../../scripts/platforms/aws/cloudwatch';

const cw = mockClient(CloudWatchClient);
const asg = mockClient(AutoScalingClient);
beforeEach(() => {
  cw.reset();
  asg.reset();
});

const SRC = {
  generatorAsgName: 'gen',
  targetAsgName: 'tgt',
  loadBalancerFullName: 'app/alb/123',
  scaleOutAlarmName: 'out',
  scaleInAlarmName: 'in',
};
const T0 = Date.UTC(2026, 0, 1, 12, 0, 30);

test('queries: target CPU per instance and average, in service, ALB, generators as the CloudWatch agent publishes them', () => {
  const q = metricQueries(SRC, ['i-1', 'i-2']);
  const ids = q.map((m) => m.id);
  expect(ids).toEqual(['target_cpu_avg', 'target_cpu_0', 'target_cpu_1', 'target_in_service', 'alb_active', 'alb_new', 'alb_target_5xx', 'alb_response_time', 'gen_cpu_max', 'gen_cpu_avg', 'gen_mem_max', 'gen_open_files_max', 'gen_tcp_established']);
  expect(q.find((m) => m.id === 'target_cpu_1')).toMatchObject({ namespace: 'AWS/EC2', metricName: 'CPUUtilization', dimensions: { InstanceId: 'i-2' } });
  expect(q.find((m) => m.id === 'gen_open_files_max')).toMatchObject({ namespace: 'CWAgent', metricName: 'open_files', dimensions: { AutoScalingGroupName: 'gen' } });
  // Generators in other regions load the internet-facing ALB, whose metrics are its own (per LoadBalancer dimension).
  const twoAlbs = metricQueries({ ...SRC, publicLoadBalancerFullName: 'app/pub/456' }, []).filter((m) => m.namespace === 'AWS/ApplicationELB');
  expect(twoAlbs.map((m) => [m.id, m.dimensions.LoadBalancer])).toEqual([
    ['alb_active', 'app/alb/123'], ['alb_new', 'app/alb/123'], ['alb_target_5xx', 'app/alb/123'], ['alb_response_time', 'app/alb/123'],
    ['alb_public_active', 'app/pub/456'], ['alb_public_new', 'app/pub/456'], ['alb_public_target_5xx', 'app/pub/456'], ['alb_public_response_time', 'app/pub/456'],
  ]);
  expect(twoAlbs.find((m) => m.id === 'alb_public_active')?.label).toBe("ALB active connections (other regions' ALB)");
  const fargate = metricQueries({ generatorAsgName: 'gen', targetServiceName: 's', targetClusterName: 'c' }, []);
  expect(fargate.find((m) => m.id === 'target_in_service')).toMatchObject({ namespace: 'ECS/ContainerInsights', metricName: 'RunningTaskCount' });
});

test('queryWindow widens the run to whole minutes, one either side', () => {
  const w = queryWindow({ start: T0, end: T0 + 90_000 }, 60);
  expect(w.start.toISOString()).toBe('2026-01-01T11:59:00.000Z');
  expect(w.end.toISOString()).toBe('2026-01-01T12:03:00.000Z');
});

test('collectCloudWatch: GetMetricData for the window (paged), alarms and scale-out activities', async () => {
  asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [{ AutoScalingGroupName: 'tgt', Instances: [{ InstanceId: 'i-00000001' } as never] } as never] });
  asg.on(DescribeScalingActivitiesCommand).resolves({
    Activities: [
      { ActivityId: 'a', AutoScalingGroupName: 'tgt', Cause: 'alarm', StartTime: new Date(T0 + 60_000), StatusCode: 'Successful', Description: 'Launching a new EC2 instance: i-00000002' },
      { ActivityId: 'b', AutoScalingGroupName: 'tgt', Cause: 'old', StartTime: new Date(T0 - 3_600_000), StatusCode: 'Successful', Description: 'Launching a new EC2 instance: i-00000009' },
    ],
  });
  cw.on(DescribeAlarmsCommand).resolves({ MetricAlarms: [{ AlarmName: 'out', StateValue: 'ALARM', StateUpdatedTimestamp: new Date(T0 + 30_000) }] });
  cw.on(GetMetricDataCommand)
    .resolvesOnce({ MetricDataResults: [{ Id: 'target_cpu_avg', Timestamps: [new Date(T0 + 60_000)], Values: [80] }], NextToken: 'next' })
    .resolves({ MetricDataResults: [{ Id: 'target_cpu_avg', Timestamps: [new Date(T0)], Values: [40] }] });
  const section = await collectCloudWatch(createAwsApi({ region: 'eu-west-1' }), SRC, { start: T0, end: T0 + 90_000 });

  const calls = cw.commandCalls(GetMetricDataCommand).map((c) => c.args[0].input);
  expect(calls).toHaveLength(2);
  expect(calls[1]?.NextToken).toBe('next');
  expect(calls[0]?.StartTime).toEqual(new Date('2026-01-01T11:59:00Z'));
  const ids = calls[0]?.MetricDataQueries?.map((q) => q.Id);
  expect(ids).toEqual(expect.arrayContaining(['target_cpu_0', 'target_cpu_1']));
  expect(calls[0]?.MetricDataQueries?.find((q) => q.Id === 'target_cpu_1')?.MetricStat?.Metric?.Dimensions).toEqual([{ Name: 'InstanceId', Value: 'i-00000002' }]);
  expect(cw.commandCalls(DescribeAlarmsCommand)[0]?.args[0].input).toEqual({ AlarmNames: ['out', 'in'] });

  const cpu = section.series.find((s) => s.id === 'target_cpu_avg');
  expect(cpu).toMatchObject({ timestamps: [T0, T0 + 60_000], values: [40, 80], unit: '%' });
  expect(section.alarms).toEqual([
    { at: T0 + 30_000, name: 'out', state: 'ALARM' },
    { at: T0 + 60_000, name: 'scaling: Launching a new EC2 instance: i-00000002', state: 'Successful' },
  ]);
});

test('RigMetricsPublisher puts vusers created/active/failed and connect p95 per period, each period file once', async () => {
  cw.on(PutMetricDataCommand).resolves({});
  const store = localStore(fs.mkdtempSync(path.join(os.tmpdir(), 'rig-pub-')));
  const sketch = new DDSketch({ relativeAccuracy: 0.01 });
  for (const v of [10, 20, 30, 200]) sketch.accept(v);
  const period = (t: number, created: number, completed: number) =>
    serializePeriod({ period: t, counters: { 'vusers.created': created, 'vusers.completed': completed }, histograms: { 'ws.connect_time': sketch }, rates: {} });
  await store.put('generators/g01/p0/periods/1.json', period(T0, 10, 0));
  await store.put('generators/g02/p0/periods/1.json', period(T0 + 10_000, 5, 4));
  const pub = new RigMetricsPublisher(createAwsApi({ region: 'eu-west-1' }), store, 'LoadTestRig', 'run1');
  expect(await pub.publishNew()).toBe(8);
  expect(await pub.publishNew()).toBe(0);
  const input = cw.commandCalls(PutMetricDataCommand)[0]?.args[0].input;
  expect(input?.Namespace).toBe('LoadTestRig');
  const active = input?.MetricData?.filter((d) => d.MetricName === 'vusers.active').map((d) => d.Value);
  expect(active).toEqual([10, 11]);
  expect(input?.MetricData?.[0]).toMatchObject({ MetricName: 'vusers.created', Value: 10, Dimensions: [{ Name: 'RunId', Value: 'run1' }], Timestamp: new Date(T0) });
  expect(input?.MetricData?.filter((d) => d.MetricName === 'ws.connect_latency')).toHaveLength(2);
});

test('RigMetricsPublisher: generators and processes sharing a period give ONE active-vusers datapoint for it (the fleet total)', async () => {
  cw.on(PutMetricDataCommand).resolves({});
  const store = localStore(fs.mkdtempSync(path.join(os.tmpdir(), 'rig-pub-')));
  const period = (created: number) => serializePeriod({ period: T0, counters: { 'vusers.created': created }, histograms: {}, rates: {} });
  for (const key of ['g01/p0', 'g01/p1', 'g02/p0', 'g02/p1']) await store.put(`generators/${key}/periods/1.json`, period(25));
  await new RigMetricsPublisher(createAwsApi({ region: 'eu-west-1' }), store, 'LoadTestRig', 'run1').publishNew();
  const data = cw.commandCalls(PutMetricDataCommand)[0]?.args[0].input.MetricData ?? [];
  expect(data.filter((d) => d.MetricName === 'vusers.active').map((d) => d.Value)).toEqual([100]);
  expect(data.filter((d) => d.MetricName === 'vusers.created').map((d) => d.Value)).toEqual([100]);
});

test('the report queries the names the CloudWatch agent publishes for install-generator.sh\'s configuration', () => {
  const script = fs.readFileSync(path.join(__dirname, '..', '..', 'load-generators', 'install-generator.sh'), 'utf8');
  const config = JSON.parse(/cat > "\$CW_CONFIG" <<'EOF'\n([\s\S]*?)\nEOF/.exec(script)?.[1] ?? '{}') as { metrics: { metrics_collected: Record<string, { measurement?: string[] }> } };
  // The agent publishes <plugin>_<measurement> (a measurement already carrying the prefix keeps it).
  const published = Object.entries(config.metrics.metrics_collected).flatMap(([plugin, c]) => (c.measurement ?? []).map((m) => (m.startsWith(`${plugin}_`) ? m : `${plugin}_${m}`)));
  const queried = metricQueries(SRC, []).filter((q) => q.namespace === 'CWAgent').map((q) => q.metricName);
  // open_files arrives through StatsD under its own name (the open-files service in the same script).
  expect(script).toContain('echo "open_files:$used|g"');
  for (const name of queried.filter((n) => n !== 'open_files')) expect(published).toContain(name);
  expect(queried).toContain('netstat_tcp_established');
});
