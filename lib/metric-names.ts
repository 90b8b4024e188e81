/**
 * Metric names the dashboard (lib/dashboard.ts) and the report (scripts/platforms/aws/cloudwatch.ts) both query.
 * No imports: the CLI loads this without aws-cdk-lib.
 */

/** Rig metric names (in the rig namespace) the CLI publishes from the agents' period files. */
export const RIG_METRICS = {
  vusersCreated: 'vusers.created',
  vusersActive: 'vusers.active',
  vusersFailed: 'vusers.failed',
  connectLatency: 'ws.connect_latency',
} as const;

/**
 * The dimension names every rig metric is published with (one series per run). The dashboard's SEARCH schema must
 * list exactly these: a schema `{Namespace, Dim1, …}` matches only metrics with exactly those dimension names, so
 * `{LoadTestRig}` alone finds only dimensionless metrics — none of the rig's (Amazon CloudWatch User Guide,
 * "CloudWatch search expression syntax" and "CloudWatch search expression examples").
 */
export const RIG_METRIC_DIMENSIONS = ['RunId'] as const;

/**
 * Names the CloudWatch agent really publishes for load-generators/install-generator.sh's configuration.
 * The agent names a metric `<plugin>_<measurement>` ("netstat" + "tcp_established" → `netstat_tcp_established`,
 * "mem" + "used_percent" → `mem_used_percent`; Amazon CloudWatch User Guide, "Metrics collected by the
 * CloudWatch agent"); StatsD metrics keep the name they were sent with (`open_files`).
 */
export const CW_AGENT_METRICS = {
  memUsedPercent: 'mem_used_percent',
  tcpEstablished: 'netstat_tcp_established',
  openFiles: 'open_files',
} as const;
