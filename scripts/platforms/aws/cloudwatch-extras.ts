/**
 * What a CloudWatch collection needs around the queries themselves:
 *  - a bounded wait, with progress, until the run window's last minute has datapoints (CloudWatch publishes
 *    EC2 and agent metrics a minute or more after the fact: collecting at once loses the run's end);
 *  - the dashboard's graphs for the run window saved as PNGs in the run folder (GetMetricWidgetImage), so the
 *    report keeps them after `--teardown` deletes the dashboard.
 */
import type { Clock } from '../../contracts';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AwsApi } from './clients';
import { MetricQuery, MetricSources, metricQueries, queryWindow } from './cloudwatch';

/** A saved graph: its title and the PNG's path relative to the run folder. */
export interface WidgetImage {
  readonly title: string;
  readonly file: string;
}

/** Start of the minute holding the window's last instant: the minute whose datapoints arrive last. */
export function lastMinuteStart(window: { readonly end: number }): number {
  return Math.floor((window.end - 1) / 60_000) * 60_000;
}

/**
 * Waits until the generators' CPU (a one-minute EC2 metric every generator publishes) has a datapoint in the
 * window's last minute, logging progress; bounded by `maxWaitMs`. Only while data is arriving: a window with no
 * datapoint at all is collected at once. True when the last minute's data is there.
 */
export async function waitForLastMinute(
  api: Pick<AwsApi, 'getMetricData'>,
  src: MetricSources,
  window: { readonly start: number; readonly end: number },
  opts: { readonly clock: Clock; readonly log: (line: string) => void; readonly maxWaitMs?: number; readonly pollMs?: number },
): Promise<boolean> {
  const probe = metricQueries(src, []).find((q) => q.id === 'gen_cpu_max') as MetricQuery;
  const from = lastMinuteStart(window);
  const maxWaitMs = opts.maxWaitMs ?? 240_000;
  const started = opts.clock.now();
  for (;;) {
    const res = await api.getMetricData({
      MetricDataQueries: [{
        Id: 'probe',
        MetricStat: {
          Metric: { Namespace: probe.namespace, MetricName: probe.metricName, Dimensions: Object.entries(probe.dimensions).map(([Name, Value]) => ({ Name, Value })) },
          Period: 60,
          Stat: probe.stat,
        },
      }],
      StartTime: new Date(Math.floor(window.start / 60_000) * 60_000),
      EndTime: new Date(from + 120_000),
    });
    const times = (res.MetricDataResults ?? []).flatMap((r) => r.Timestamps ?? []).map((t) => new Date(t).getTime());
    if (times.some((t) => t >= from)) return true;
    // Nothing at all in the window: nothing is publishing (detailed monitoring off, an emulator), or a run shorter
    // than CloudWatch's delay. Waiting would only delay the report; collect what there is.
    if (times.length === 0) {
      opts.log('cloudwatch: no generator datapoints in the run window yet; collecting now (the dashboard shows the rest once CloudWatch has it)');
      return false;
    }
    const waited = opts.clock.now() - started;
    if (waited >= maxWaitMs) {
      opts.log(`cloudwatch: the run's last minute (${new Date(from).toISOString()}) still has no datapoints after ${Math.round(waited / 1000)} s; collecting what there is (the dashboard shows the rest once CloudWatch has it)`);
      return false;
    }
    opts.log(`cloudwatch: waiting for the run's last minute of metrics (${Math.round(waited / 1000)} s of at most ${Math.round(maxWaitMs / 1000)} s)`);
    await opts.clock.sleep(opts.pollMs ?? 15_000);
  }
}

/** The graphs saved for a run: the dashboard's rows, as metric-widget definitions (CloudWatch's widget JSON). */
export function widgetDefinitions(src: MetricSources, window: { readonly start: number; readonly end: number }): Array<{ id: string; title: string; widget: object }> {
  const { start, end } = queryWindow(window, 60);
  const queries = metricQueries(src, []);
  const groups: Array<{ id: string; title: string; ids: string[] }> = [
    { id: 'target', title: 'Target CPU (%) and instances/tasks in service', ids: ['target_cpu_avg', 'target_in_service'] },
    { id: 'alb', title: 'Load balancer connections (active, new) per minute', ids: ['alb_active', 'alb_new', 'alb_public_active', 'alb_public_new'] },
    { id: 'generators', title: 'Generator CPU and memory used (%)', ids: ['gen_cpu_max', 'gen_cpu_avg', 'gen_mem_max'] },
    { id: 'generator-sockets', title: 'Generator TCP established (fleet total) and open files (max)', ids: ['gen_tcp_established', 'gen_open_files_max'] },
  ];
  return groups
    .map((g) => ({ ...g, metrics: queries.filter((q) => g.ids.includes(q.id)) }))
    .filter((g) => g.metrics.length > 0)
    .map((g) => ({
      id: g.id,
      title: g.title,
      widget: {
        title: g.title,
        view: 'timeSeries',
        stacked: false,
        period: 60,
        start: start.toISOString(),
        end: end.toISOString(),
        width: 900,
        height: 320,
        metrics: g.metrics.map((q) => [q.namespace, q.metricName, ...Object.entries(q.dimensions).flat(), { stat: q.stat, label: q.label }]),
      },
    }));
}

/**
 * Saves each graph as `cloudwatch/<id>.png` in the run folder. A graph CloudWatch will not render is skipped
 * with one line; nothing here fails the run.
 */
export async function saveWidgetImages(
  api: Pick<AwsApi, 'getMetricWidgetImage'>,
  src: MetricSources,
  window: { readonly start: number; readonly end: number },
  runDir: string,
  log: (line: string) => void,
): Promise<WidgetImage[]> {
  const saved: WidgetImage[] = [];
  for (const w of widgetDefinitions(src, window)) {
    try {
      const res = await api.getMetricWidgetImage({ MetricWidget: JSON.stringify(w.widget), OutputFormat: 'png' });
      if (!res.MetricWidgetImage?.length) throw new Error('empty image');
      const file = path.posix.join('cloudwatch', `${w.id}.png`);
      fs.mkdirSync(path.join(runDir, 'cloudwatch'), { recursive: true });
      fs.writeFileSync(path.join(runDir, file), res.MetricWidgetImage);
      saved.push({ title: w.title, file });
    } catch (err) {
      // One line, not one per graph: what stops one (permissions, an emulator without the call) stops them all.
      log(`cloudwatch: graphs not saved from "${w.title}" on (${(err as Error).name}: ${(err as Error).message}); the report has the series themselves`);
      break;
    }
  }
  if (saved.length) log(`cloudwatch: ${saved.length} graph${saved.length === 1 ? '' : 's'} saved in ${path.join(runDir, 'cloudwatch')}`);
  return saved;
}
