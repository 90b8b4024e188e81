/**
 * The AWS platform's metrics around a run: the rig's own metrics published to CloudWatch while it runs (and a
 * last batch after), and CloudWatch's series, alarms and dashboard graphs for the load's window.
 */
import type { Clock, CloudWatchSection, LoadWindow } from '../../contracts';
import type { AwsApi } from './clients';
import { RigMetricsPublisher, collectCloudWatch } from './cloudwatch';
import { saveWidgetImages, waitForLastMinute } from './cloudwatch-extras';
import type { RigOutputs } from './discovery';

/** How often the rig's metrics are published to CloudWatch during the run. */
const PUBLISH_INTERVAL_MS = 30_000;

/** What the run's metrics are read and published with. */
export interface RunMetricsContext {
  readonly api: AwsApi;
  readonly outputs: RigOutputs;
  readonly clock: Clock;
  readonly log: (line: string) => void;
}

/** The loop that publishes the rig's metrics every {@link PUBLISH_INTERVAL_MS} once the fleet is launched. */
export interface PublishingLoop {
  start(publisher: RigMetricsPublisher): void;
  /** Stops the loop and waits for it; safe to call more than once. */
  stop(): Promise<void>;
}

export function publishingLoop({ clock, log }: RunMetricsContext): PublishingLoop {
  let stopped = false;
  let loop: Promise<void> | undefined;
  return {
    start(publisher) {
      loop = (async () => {
        while (!stopped) {
          // Short sleeps so stopping returns promptly.
          for (let t = 0; t < PUBLISH_INTERVAL_MS && !stopped; t += 1000) await clock.sleep(1000);
          if (!stopped) await publisher.publishNew().catch((err: Error) => log(`rig metrics: PutMetricData failed (${err.name}); retrying`));
        }
      })();
    },
    async stop() {
      stopped = true;
      await loop?.catch(() => undefined);
    },
  };
}

/** The last batch of the rig's own metrics, once the load has stopped. */
export async function publishLast({ outputs, log }: RunMetricsContext, publisher: RigMetricsPublisher, runId: string): Promise<void> {
  try {
    const n = await publisher.publishNew();
    log(`rig metrics: published to CloudWatch namespace ${outputs.rigMetricsNamespace} (RunId=${runId}${n ? `, ${n} data points in the final batch` : ''})`);
  } catch (err) {
    log(`rig metrics: PutMetricData failed (${(err as Error).name}: ${(err as Error).message})`);
  }
}

/** CloudWatch for the load's window: series, alarms and the dashboard's graphs saved into the run folder. */
export async function collectRunCloudWatch(ctx: RunMetricsContext, window: LoadWindow, runDir: string): Promise<CloudWatchSection | undefined> {
  const { api, outputs, clock, log } = ctx;
  let section: CloudWatchSection | undefined;
  try {
    await waitForLastMinute(api, outputs, window, { clock, log }).catch((err: Error) => log(`cloudwatch: could not check for the last minute's datapoints (${err.name}); collecting now`));
    section = await collectCloudWatch(api, outputs, window);
    const images = await saveWidgetImages(api, outputs, window, runDir, log);
    if (images.length) section = { ...section, images };
    const withData = section.series.filter((s) => s.values.length > 0).length;
    log(`cloudwatch: ${withData}/${section.series.length} series with data, ${section.alarms?.length ?? 0} alarm/scaling events (metrics of the last minute may still be arriving)`);
  } catch (err) {
    log(`cloudwatch: metrics not collected (${(err as Error).name}: ${(err as Error).message}); the report has the rig's own data`);
  }
  if (outputs.dashboardUrl) log(`dashboard: ${outputs.dashboardUrl}`);
  return section;
}
