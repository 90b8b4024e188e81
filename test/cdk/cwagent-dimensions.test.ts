import * as fs from 'node:fs';
import * as path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { metricQueries } from '../../scripts/platforms/aws/cloudwatch';
import { buildTestRig, renderCfnString } from './helpers';

/**
 * CloudWatch matches a metric only on its exact dimension set, so every CWAgent metric the dashboard and the report
 * ask for must be one the CloudWatch agent publishes with exactly those dimension names. What the agent publishes for
 * install-generator.sh's configuration, read from aws/amazon-cloudwatch-agent (main, commit ab55b8daa):
 *
 * - a Telegraf tag becomes a CloudWatch dimension (receiver/adapter/accumulator/util.go:10 "Otel Attributes =
 *   Telegraf Tags = CloudWatch Dimensions"; plugins/outputs/cloudwatch/convert_otel.go:23 ConvertOtelDimensions);
 * - the StatsD input tags every metric `metric_type` (`gauge` for `|g`: plugins/inputs/statsd/statsd.go:426-434),
 *   and nothing in the pipeline removes it (the issue aws/amazon-cloudwatch-agent#1082 is about this tag);
 * - `append_dimensions` adds its keys (ec2tagger, in every host pipeline StatsD's included:
 *   translator/translate/otel/pipeline/host/translator.go:99-104) and removes `host` (plugins/processors/ec2tagger/ec2tagger.go:173);
 * - StatsD's `value` field keeps the name sent (internal/metric/metric.go:146);
 * - the exporter publishes the original dimension set plus, for each `aggregation_dimensions` entry whose keys the
 *   metric all has and that is strictly smaller than its set, a datum with exactly those keys
 *   (plugins/outputs/cloudwatch/cloudwatch.go:637-668 ProcessRollup; the same since v1.247345).
 * So `open_files` is published as {AutoScalingGroupName, InstanceId, metric_type} and, rolled up, {AutoScalingGroupName}:
 * a query for {AutoScalingGroupName} matches; one for {AutoScalingGroupName, InstanceId} would find nothing.
 */
const script = fs.readFileSync(path.join(__dirname, '..', '..', 'load-generators', 'install-generator.sh'), 'utf8');
const config = JSON.parse(/cat > "\$CW_CONFIG" <<'EOF'\n([\s\S]*?)\nEOF/.exec(script)?.[1] ?? '{}') as {
  metrics: { append_dimensions?: Record<string, string>; aggregation_dimensions?: string[][]; metrics_collected: Record<string, { measurement?: string[] }> };
};

/** Dimension-name sets (sorted, joined) the agent publishes `metric` with. */
function publishedSets(metric: string): string[] {
  const statsd = [...script.matchAll(/echo "([\w.]+):[^|"]*\|([gcs]|ms|h)"/g)].map((m) => m[1]);
  const appended = Object.keys(config.metrics.append_dimensions ?? {});
  const raw = statsd.includes(metric) ? [...appended, 'metric_type'] : appended;
  const rollups = (config.metrics.aggregation_dimensions ?? []).filter((set) => set.length < raw.length && set.every((k) => raw.includes(k)));
  return [raw, ...rollups].map((set) => [...set].sort().join(','));
}

/** Every [namespace, name, dimName, dimValue, …, {options}] metric line of the synthesized dashboard. */
function dashboardMetrics(): Array<{ namespace: string; name: string; dims: string[] }> {
  const t = Template.fromStack(buildTestRig().rig.generators);
  // Tokens (the group's name, the region) sit inside JSON strings: render them as plain text so the body parses.
  const text = renderCfnString(Object.values(t.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody).replace(/<[^<>]*>/g, 'TOKEN');
  const body = JSON.parse(text) as { widgets: Array<{ properties: { metrics?: unknown[][] } }> };
  return body.widgets.flatMap((w) => w.properties.metrics ?? []).filter((m) => typeof m[0] === 'string' && typeof m[1] === 'string')
    .map((m) => {
      const fields = m.filter((x): x is string => typeof x === 'string');
      return { namespace: fields[0] as string, name: fields[1] as string, dims: fields.slice(2).filter((_, i) => i % 2 === 0) };
    });
}

describe('CWAgent metrics are asked for with a dimension set the CloudWatch agent publishes (exact-match rule)', () => {
  test('the model of the agent: open_files (StatsD) carries metric_type per instance, and the AutoScalingGroupName rollup drops it', () => {
    expect(publishedSets('open_files')).toEqual(['AutoScalingGroupName,InstanceId,metric_type', 'AutoScalingGroupName']);
    expect(publishedSets('mem_used_percent')).toEqual(['AutoScalingGroupName,InstanceId', 'AutoScalingGroupName']);
    expect(publishedSets('open_files')).not.toContain('AutoScalingGroupName,InstanceId');
  });

  test('every CWAgent metric on the synthesized dashboard matches a published dimension set', () => {
    const agent = dashboardMetrics().filter((m) => m.namespace === 'CWAgent');
    expect(agent.map((m) => m.name)).toEqual(expect.arrayContaining(['open_files', 'mem_used_percent', 'netstat_tcp_established']));
    for (const m of agent) expect({ metric: m.name, published: publishedSets(m.name) }).toEqual({ metric: m.name, published: expect.arrayContaining([[...m.dims].sort().join(',')]) });
  });

  test('every CWAgent query of the report matches a published dimension set', () => {
    const queries = metricQueries({ generatorAsgName: 'gen', targetAsgName: 'tgt' }, []).filter((q) => q.namespace === 'CWAgent');
    expect(queries.map((q) => q.metricName)).toContain('open_files');
    for (const q of queries) expect(publishedSets(q.metricName)).toContain(Object.keys(q.dimensions).sort().join(','));
  });
});
