import { Template } from 'aws-cdk-lib/assertions';
import { buildTestRig, renderCfnString } from './helpers';

function dashboardBody(context = {}): string {
  const t = Template.fromStack(buildTestRig(context).rig.generators);
  const dashboards = Object.values(t.findResources('AWS::CloudWatch::Dashboard'));
  expect(dashboards).toHaveLength(1);
  return renderCfnString(dashboards[0]!.Properties.DashboardBody);
}

describe('dashboard', () => {
  let body: string;
  beforeAll(() => {
    body = dashboardBody();
  });

  test('target CPU is drawn against the scale-out threshold', () => {
    expect(body).toContain('"title":"Target CPU (%) vs scale-out threshold"');
    expect(body).toMatch(/"annotations":\{"horizontal":\[\{"value":40,"label":"scale out at 40%"/);
    expect(body).toContain('["AWS/EC2","CPUUtilization","AutoScalingGroupName"');
  });

  test('in-service instances come from the target group metrics', () => {
    expect(body).toContain('["AWS/AutoScaling","GroupInServiceInstances","AutoScalingGroupName"');
  });

  test('ALB active/new connections, 5xx and target response time are shown', () => {
    for (const m of ['ActiveConnectionCount', 'NewConnectionCount', 'HTTPCode_ELB_5XX_Count', 'HTTPCode_Target_5XX_Count', 'TargetResponseTime']) {
      expect(body).toContain(`"AWS/ApplicationELB","${m}"`);
    }
  });

  test('generator CPU, memory, open files and TCP established are shown per generator group', () => {
    expect(body).toContain('"title":"Generator CPU (%)"');
    for (const m of ['mem_used_percent', 'open_files', 'netstat_tcp_established']) expect(body).toContain(`["CWAgent","${m}","AutoScalingGroupName"`);
  });

  test('the rig\'s own vusers and connect-latency metrics come from the LoadTestRig namespace, searched with the RunId dimension they are published with', () => {
    // A SEARCH schema matches only metrics with exactly its dimension names (CloudWatch User Guide, "CloudWatch
    // search expression syntax"): `{LoadTestRig}` alone found none of the rig's RunId-dimensioned metrics.
    for (const m of ['vusers.created', 'vusers.active', 'vusers.failed', 'ws.connect_latency']) {
      expect(body).toContain(`SEARCH('{LoadTestRig,RunId} MetricName=\\"${m}\\"'`);
    }
    expect(body).not.toMatch(/SEARCH\('\{LoadTestRig\}/);
  });

  test('active vusers (one fleet-total datapoint per period) is read with Maximum, never summed; latency widgets say they show period p95s', () => {
    expect(body).toContain(`SEARCH('{LoadTestRig,RunId} MetricName=\\"vusers.active\\"', 'Maximum', 60)`);
    expect(body).not.toContain(`MetricName=\\"vusers.active\\"', 'Sum'`);
    expect(body).toContain('connect time p95 of each 10-s period');
  });

  test('a Fargate target shows service CPU and running tasks', () => {
    const fargate = dashboardBody({ targetKind: 'fargate' });
    expect(fargate).toContain('["AWS/ECS","CPUUtilization"');
    expect(fargate).toContain('["ECS/ContainerInsights","RunningTaskCount"');
  });

  test('with targetKind=none only generator and rig rows remain', () => {
    const none = dashboardBody({ targetKind: 'none' });
    expect(none).not.toContain('Target CPU');
    expect(none).toContain('Generator CPU');
  });
});
