import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CloudWatchClient, GetMetricDataCommand, GetMetricWidgetImageCommand } from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import { createAwsApi } from '../../scripts/platforms/aws/clients';
import { lastMinuteStart, saveWidgetImages, waitForLastMinute, widgetDefinitions } from '../../scripts/platforms/aws/cloudwatch-extras';
import { renderHtml } from '../../scripts/report/html';
import { hostileReport } from '../report/fixture';

const cw = mockClient(CloudWatchClient);
beforeEach(() => cw.reset());

const SRC = { generatorAsgName: 'gen', targetAsgName: 'tgt', loadBalancerFullName: 'app/alb/123' };
const WINDOW = { start: Date.UTC(2026, 0, 1, 12, 0, 5), end: Date.UTC(2026, 0, 1, 12, 3, 40) };
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/** A clock that moves only when slept on. */
function fakeClock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
}

describe('waiting for the last minute of the run window', () => {
  test('the last minute is the one holding the window\'s last instant', () => {
    expect(lastMinuteStart(WINDOW)).toBe(Date.UTC(2026, 0, 1, 12, 3, 0));
    expect(lastMinuteStart({ end: Date.UTC(2026, 0, 1, 12, 4, 0) })).toBe(Date.UTC(2026, 0, 1, 12, 3, 0));
  });

  test('polls the generators\' CPU until the last minute has a datapoint, saying how long it has waited', async () => {
    const last = new Date(lastMinuteStart(WINDOW));
    const earlier = new Date(WINDOW.start - 5000);
    cw.on(GetMetricDataCommand)
      .resolvesOnce({ MetricDataResults: [{ Id: 'probe', Timestamps: [earlier], Values: [17] }] })
      .resolvesOnce({ MetricDataResults: [{ Id: 'probe', Timestamps: [earlier], Values: [17] }] })
      .resolves({ MetricDataResults: [{ Id: 'probe', Timestamps: [earlier, last], Values: [17, 17] }] });
    const lines: string[] = [];
    expect(await waitForLastMinute(createAwsApi({ region: 'eu-west-1' }), SRC, WINDOW, { clock: fakeClock(), log: (l) => lines.push(l) })).toBe(true);
    expect(lines).toEqual([
      'cloudwatch: waiting for the run\'s last minute of metrics (0 s of at most 240 s)',
      'cloudwatch: waiting for the run\'s last minute of metrics (15 s of at most 240 s)',
    ]);
    const input = cw.commandCalls(GetMetricDataCommand)[0]?.args[0].input;
    expect(input?.MetricDataQueries?.[0]?.MetricStat?.Metric).toEqual({ Namespace: 'AWS/EC2', MetricName: 'CPUUtilization', Dimensions: [{ Name: 'AutoScalingGroupName', Value: 'gen' }] });
    expect(input?.StartTime).toEqual(new Date(Date.UTC(2026, 0, 1, 12, 0, 0)));
    expect(input?.EndTime).toEqual(new Date(last.getTime() + 120_000));
  });

  test('bounded: gives up after the maximum wait with one line, and the collection goes on', async () => {
    cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [{ Id: 'probe', Timestamps: [new Date(WINDOW.start)], Values: [17] }] });
    const lines: string[] = [];
    expect(await waitForLastMinute(createAwsApi({ region: 'eu-west-1' }), SRC, WINDOW, { clock: fakeClock(), log: (l) => lines.push(l), maxWaitMs: 60_000 })).toBe(false);
    expect(cw.commandCalls(GetMetricDataCommand)).toHaveLength(5);
    expect(lines[lines.length - 1]).toMatch(/^cloudwatch: the run's last minute \(2026-01-01T12:03:00\.000Z\) still has no datapoints after 60 s; collecting what there is/);
  });
});

test('nothing publishing at all (no datapoint in the whole window): one line, no wait', async () => {
  cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [{ Id: 'probe', Timestamps: [], Values: [] }] });
  const lines: string[] = [];
  const clock = fakeClock();
  expect(await waitForLastMinute(createAwsApi({ region: 'eu-west-1' }), SRC, WINDOW, { clock, log: (l) => lines.push(l) })).toBe(false);
  expect(clock.now()).toBe(0);
  expect(lines).toEqual(['cloudwatch: no generator datapoints in the run window yet; collecting now (the dashboard shows the rest once CloudWatch has it)']);
});

describe('graphs saved in the run folder', () => {
  test('each dashboard row for the run window becomes cloudwatch/<id>.png, and report.html shows them', async () => {
    cw.on(GetMetricWidgetImageCommand).resolves({ MetricWidgetImage: PNG });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-widgets-'));
    const images = await saveWidgetImages(createAwsApi({ region: 'eu-west-1' }), SRC, WINDOW, dir, () => undefined);
    expect(images.map((i) => i.file)).toEqual(['cloudwatch/target.png', 'cloudwatch/alb.png', 'cloudwatch/generators.png', 'cloudwatch/generator-sockets.png']);
    for (const i of images) expect(fs.readFileSync(path.join(dir, i.file))).toEqual(PNG);
    const sockets = JSON.parse(String(cw.commandCalls(GetMetricWidgetImageCommand)[3]?.args[0].input.MetricWidget)) as { metrics: unknown[][]; start: string; end: string };
    expect(sockets.metrics.map((m) => m.slice(0, 4))).toEqual([['CWAgent', 'open_files', 'AutoScalingGroupName', 'gen'], ['CWAgent', 'netstat_tcp_established', 'AutoScalingGroupName', 'gen']]);
    expect(sockets.start).toBe('2026-01-01T11:59:00.000Z');
    expect(sockets.end).toBe('2026-01-01T12:05:00.000Z');

    const html = renderHtml({ ...hostileReport(), cloudwatch: { series: [], images } });
    expect(html).toContain('<img src="cloudwatch/alb.png" alt="Load balancer connections (active, new) per minute"');
    // The CSP lets the page show images next to it (its own folder), nothing remote.
    expect(html).toContain('img-src data: &#39;self&#39; file:;');
  });

  test('CloudWatch refusing the first graph: one line, no files, the run goes on', async () => {
    cw.on(GetMetricWidgetImageCommand).rejects(Object.assign(new Error('not allowed'), { name: 'AccessDenied' }));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-widgets-'));
    const lines: string[] = [];
    expect(await saveWidgetImages(createAwsApi({ region: 'eu-west-1' }), SRC, WINDOW, dir, (l) => lines.push(l))).toEqual([]);
    expect(lines).toEqual(['cloudwatch: graphs not saved from "Target CPU (%) and instances/tasks in service" on (AccessDenied: not allowed); the report has the series themselves']);
    expect(fs.existsSync(path.join(dir, 'cloudwatch'))).toBe(false);
  });

  test('a bring-your-own target has no target or load-balancer rows', () => {
    expect(widgetDefinitions({ generatorAsgName: 'gen' }, WINDOW).map((w) => w.id)).toEqual(['generators', 'generator-sockets']);
  });
});
