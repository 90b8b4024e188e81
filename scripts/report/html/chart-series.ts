/**
 * The shapes of the report's charts and the one way a chart is assembled from lines sampled at different
 * instants (pure). The charts themselves are built in ./charts.ts from the sections in ./chart-sections.ts.
 */

/** How a series is drawn. */
export type SeriesKind =
  /** a value over its period: a step from `x` to the next `x` (the last point closes the period) */
  | 'period'
  /** a per-period count drawn as a bar over its period (stacked bars carry `raw`) */
  | 'bars'
  /** a level sampled at an instant */
  | 'sample';

/** One line of a chart; `values` align with the chart's `x` (null = no sample at that time). */
export interface ChartSeries {
  readonly label: string;
  readonly values: ReadonlyArray<number | null>;
  readonly kind: SeriesKind;
  /** For stacked bars: the series' own values (the legend shows these; `values` are the stack tops). */
  readonly raw?: ReadonlyArray<number | null>;
  /**
   * Indexes of `x` where this series has no value of its own (a period without data): the line breaks
   * there. Every other null only aligns the series with the chart's other instants and is bridged.
   */
  readonly gaps?: readonly number[];
  /** Right-hand axis (a ratio next to counts, instances next to connections). */
  readonly scale?: 'y' | 'y2';
  /** A documented limit drawn as a dashed line, not data. */
  readonly threshold?: boolean;
  /** Drawn dashed in the colour of the series at this index (a baseline overlaid on the same figure of the run). */
  readonly pairedWith?: number;
}

/** One chart. */
export interface ChartSpec {
  readonly id: string;
  readonly group: 'load' | 'errors' | 'latency' | 'messages' | 'generators' | 'target' | 'cloudwatch';
  readonly title: string;
  readonly unit: string;
  readonly unit2?: string;
  /** Epoch seconds, ascending. */
  readonly x: readonly number[];
  readonly series: readonly ChartSeries[];
}

/** All charts plus what every chart marks. */
export interface ChartSet {
  readonly charts: readonly ChartSpec[];
  /** Shared x range (epoch seconds). */
  readonly range: readonly [number, number];
  /** The run's start (epoch seconds): the axis reads T+m:ss from here. */
  readonly start: number;
  /** Phases (ramp, plateau, hold…) shaded on every chart, epoch seconds. */
  readonly phases: ReadonlyArray<{ readonly name: string; readonly from: number; readonly to: number }>;
  /** Rig-limited periods, shaded on every chart: [from, to] epoch seconds. */
  readonly rigLimited: ReadonlyArray<readonly [number, number]>;
  /** Scale-out moments (instances went up), marked on every chart: epoch seconds. */
  readonly scaleOuts: readonly number[];
  /** Charts left out for lack of data, with why (shown as a note). */
  readonly absent: readonly string[];
}

/** Points of one line: [epoch seconds, value or null]. */
export type Points = ReadonlyArray<readonly [number, number | null]>;
/** One line before it is joined onto a chart's x. */
export interface Line {
  readonly label: string;
  readonly points: Points;
  readonly kind: SeriesKind;
  readonly raw?: Points;
  readonly scale?: 'y' | 'y2';
  readonly threshold?: boolean;
}

/** Joins series sampled at different instants onto one x array (union of instants). */
export function joinSeries(id: string, group: ChartSpec['group'], title: string, unit: string, lines: readonly Line[], unit2?: string): ChartSpec {
  const xs = [...new Set(lines.flatMap((l) => l.points.map(([x]) => x)))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const place = (points: Points) => {
    const values: Array<number | null> = xs.map(() => null);
    for (const [x, y] of points) values[index.get(x) ?? 0] = y;
    return values;
  };
  const series = lines.map((l) => ({
    label: l.label,
    values: place(l.points),
    kind: l.kind,
    ...(l.kind === 'period' && l.points.some(([, y]) => y === null) ? { gaps: l.points.filter(([, y]) => y === null).map(([x]) => index.get(x) ?? 0) } : {}),
    ...(l.raw ? { raw: place(l.raw) } : {}),
    ...(l.scale ? { scale: l.scale } : {}),
    ...(l.threshold ? { threshold: true } : {}),
  }));
  return { id, group, title, unit, ...(unit2 ? { unit2 } : {}), x: xs, series };
}

/** A chart has something to show when one of its data series has a non-null, non-zero point. */
export const hasData = (c: ChartSpec) => c.series.some((s) => !s.threshold && s.values.some((v) => v !== null && v !== 0));
