/**
 * The report's timelines as data (pure): one {@link ChartSpec} per chart, all on one shared time axis
 * (epoch seconds, shown as T+m:ss from the run's start), built only from report.json so a test can
 * recompute every point.
 *
 * Alignment: a period's value (a count or a percentile of what happened during the period) is drawn
 * over its period — bars or a step from the period's start to its end; a level at an instant (active
 * vusers at the end of a period, a health or target sample) is drawn at that instant.
 */
import { phaseBands } from '../findings';
import type { ReportJson } from '../types';
import type { ChartSet } from './chart-series';
import {
  chartAxis,
  cloudwatchCharts,
  errorCharts,
  generatorCharts,
  latencyCharts,
  loadCharts,
  messageCharts,
  scaleOutMoments,
  sec,
  targetCharts,
} from './chart-sections';

export type { ChartSeries, ChartSet, ChartSpec, SeriesKind } from './chart-series';

/** Builds every chart of the report, section by section in the order the report shows them. */
export function buildCharts(r: ReportJson): ChartSet {
  const axis = chartAxis(r);
  for (const section of [loadCharts, errorCharts, latencyCharts, messageCharts, generatorCharts, targetCharts, cloudwatchCharts]) section(axis);
  const { charts, absent, lo, hi } = axis;
  const periodMs = r.timeline.periodMs;
  // CloudWatch's minute datapoints may begin before the start (the minute it fell in): the range covers them.
  const allX = charts.flatMap((c) => c.x);
  const rangeLo = Math.min(lo, ...allX);
  const rangeHi = Math.max(hi, ...allX);
  const rigLimited = (r.rig.verdictDetail.periods ?? []).filter((p) => p.rigLimited).map((p) => [sec(p.period), sec(p.period + periodMs)] as const);
  const phases = phaseBands(r).map((b) => ({ name: b.name, from: sec(b.from), to: sec(b.to) }));
  return { charts, range: [rangeLo, rangeHi], start: lo, phases, rigLimited, scaleOuts: scaleOutMoments(axis.target), absent };
}
