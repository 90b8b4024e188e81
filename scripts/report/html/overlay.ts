/**
 * Both runs' timelines on one chart each (pure): the baseline is shifted so its start falls on the
 * run's (both read T+0:00 at their own shared start) and every baseline series is drawn dashed in the
 * colour of the run's series of the same name. Stacked bars (errors, statuses) become one step line
 * per type, since two stacks cannot be laid over each other legibly.
 */
import type { ChartSeries, ChartSet, ChartSpec } from './charts';

/** Label prefixes of the two runs' series. */
export const RUN_LABEL = 'this run · ';
export const BASE_LABEL = 'baseline · ';

interface Line {
  readonly series: Omit<ChartSeries, 'values' | 'gaps' | 'raw'>;
  /** [x, y]; a null y of a period series is a gap (the line breaks). */
  readonly points: ReadonlyArray<readonly [number, number | null]>;
}

/** A chart's series as points, shifted by `shift` seconds; bars as unstacked period steps closed at `periodS`. */
function linesOf(c: ChartSpec, shift: number, periodS: number, prefix: string): Line[] {
  return c.series.map((s) => {
    const gaps = new Set(s.gaps ?? []);
    const bars = s.kind === 'bars';
    const own = bars ? (s.raw ?? s.values) : s.values;
    const points: Array<readonly [number, number | null]> = [];
    c.x.forEach((x, i) => {
      const v = own[i] ?? null;
      if (v !== null || gaps.has(i)) points.push([x + shift, v]);
    });
    const last = points[points.length - 1];
    if (bars && last) points.push([last[0] + periodS, last[1]]);
    const { label, kind, scale, threshold } = s;
    return {
      series: { label: `${prefix}${label}`, kind: bars ? ('period' as const) : kind, ...(scale ? { scale } : {}), ...(threshold ? { threshold } : {}) },
      points,
    };
  });
}

/** One chart from the run's and the baseline's lines (union of instants). */
function join(spec: Pick<ChartSpec, 'id' | 'group' | 'title' | 'unit' | 'unit2'>, run: readonly Line[], base: readonly Line[]): ChartSpec {
  const lines = [...run, ...base];
  const xs = [...new Set(lines.flatMap((l) => l.points.map(([x]) => x)))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const series: ChartSeries[] = lines.map((l, li) => {
    const values: Array<number | null> = xs.map(() => null);
    for (const [x, y] of l.points) values[index.get(x) ?? 0] = y;
    const gaps = l.series.kind === 'period' ? l.points.filter(([, y]) => y === null).map(([x]) => index.get(x) ?? 0) : [];
    const own = l.series.label.slice(li < run.length ? RUN_LABEL.length : BASE_LABEL.length);
    const pair = li >= run.length ? run.findIndex((r) => r.series.label.slice(RUN_LABEL.length) === own) : -1;
    return { ...l.series, values, ...(gaps.length ? { gaps } : {}), ...(pair >= 0 ? { pairedWith: pair } : {}) };
  });
  return { id: spec.id, group: spec.group, title: spec.title, unit: spec.unit, ...(spec.unit2 ? { unit2: spec.unit2 } : {}), x: xs, series };
}

/** Overlays the baseline's charts on the run's; `periodS` is the reporting period in seconds. */
export function overlayCharts(run: ChartSet, base: ChartSet, periodS: number): ChartSet {
  const shift = run.start - base.start;
  const ids = [...new Set([...run.charts.map((c) => c.id), ...base.charts.map((c) => c.id)])];
  const charts = ids.map((id) => {
    const r = run.charts.find((c) => c.id === id);
    const b = base.charts.find((c) => c.id === id);
    const runLines = r ? linesOf(r, 0, periodS, RUN_LABEL) : [];
    // A documented limit is drawn once, from the run.
    const baseLines = b ? linesOf(b, shift, periodS, BASE_LABEL).filter((l) => !(r && l.series.threshold)) : [];
    return join((r ?? b) as ChartSpec, runLines, baseLines);
  });
  const allX = charts.flatMap((c) => c.x);
  const absent = [
    ...run.absent.map((a) => `this run: ${a}`),
    ...base.absent.map((a) => `baseline: ${a}`),
  ];
  return {
    charts,
    range: [Math.min(run.range[0], base.range[0] + shift, ...allX), Math.max(run.range[1], base.range[1] + shift, ...allX)],
    start: run.start,
    phases: run.phases,
    rigLimited: run.rigLimited,
    scaleOuts: run.scaleOuts,
    absent,
  };
}
