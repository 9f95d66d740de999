// What the dashboard's metric charts draw, computed on the host (pure): TensorBoard's smoothing,
// the x axis (step, wall time, time since the run's start), a per-pixel-column thinning that keeps
// every column's first, last, lowest and highest value (so a 100,000-point series draws as its
// full line would), several runs aligned on one x axis, and the CSV of a key.
import type { MetricPoint } from '../protocol/metrics';
import type { MetricAxis, MetricPlot } from '../protocol/dashboard';

/**
 * TensorBoard's scalar smoothing ("classic" smoothing of its line chart): an exponential moving
 * average started at 0 and divided by 1 - w^n (n = finite values so far), so the first values are
 * not pulled towards 0. Non-finite values pass through and do not count; a constant series is
 * returned as it is; the weight is clamped to [0, 1] (non-finite: 0).
 */
export function smoothEma(values: readonly number[], weight: number): number[] {
  const w = Number.isFinite(weight) ? Math.min(1, Math.max(0, weight)) : 0;
  if (values.every((v) => v === values[0])) return [...values];
  let acc = 0;
  /** w to the power of the finite values so far (the debias term is 1 - wn). */
  let wn = 1;
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    acc = acc * w + (1 - w) * v;
    wn *= w;
    out[i] = w === 1 ? acc : acc / (1 - wn);
  }
  return out;
}

/** The x of a point on an axis; NaN when it has none (a console point has no wall time). */
export function xOf(p: MetricPoint, axis: MetricAxis, start: number): number {
  if (axis === 'step') return p.step;
  if (axis === 'wall') return p.wallTime;
  return (p.wallTime - start) / 3600;
}

/** The run's first wall time (the origin of the `relative` axis); NaN when no point has one. */
export function startTime(points: readonly MetricPoint[]): number {
  let s = NaN;
  for (const p of points) if (Number.isFinite(p.wallTime) && !(p.wallTime >= s)) s = p.wallTime;
  return s;
}

/**
 * Indices to draw of a series sorted by x, `columns` pixel columns wide over [lo, hi]: in each
 * column its first and last point and the points holding its lowest and highest value of every
 * `ys` array, in order; everything when there are fewer points than four per column. Points
 * outside [lo, hi] are dropped except the nearest one on each side (the line enters the plot).
 */
export function columnIndices(
  xs: readonly number[],
  ys: readonly (readonly number[])[],
  columns: number,
  lo: number,
  hi: number,
): number[] {
  const n = xs.length;
  let from = 0;
  while (from < n && xs[from]! < lo) from++;
  let to = n;
  while (to > from && xs[to - 1]! > hi) to--;
  const first = Math.max(0, from - 1);
  const last = Math.min(n, to + 1);
  const cols = Math.max(1, Math.floor(columns));
  if (last - first <= 4 * cols) return Array.from({ length: last - first }, (_, i) => first + i);
  const keep: number[] = [];
  if (first < from) keep.push(first);
  const width = hi > lo ? (hi - lo) / cols : 1;
  const colOf = (x: number) => Math.max(0, Math.min(cols - 1, Math.floor((x - lo) / width)));
  let i = from;
  while (i < to) {
    const col = colOf(xs[i]!);
    let j = i;
    const picked = new Set<number>([i]);
    const lows = ys.map(() => -1);
    const highs = ys.map(() => -1);
    let odd = -1;
    while (j < to && colOf(xs[j]!) === col) {
      ys.forEach((y, k) => {
        const v = y[j]!;
        if (!Number.isFinite(v)) {
          if (odd < 0) odd = j; // a NaN or inf stays visible: the column's first one is kept
          return;
        }
        if (lows[k]! < 0 || v < y[lows[k]!]!) lows[k] = j;
        if (highs[k]! < 0 || v > y[highs[k]!]!) highs[k] = j;
      });
      j++;
    }
    picked.add(j - 1);
    for (const x of [...lows, ...highs, odd]) if (x >= 0) picked.add(x);
    keep.push(...[...picked].sort((a, b) => a - b));
    i = j;
  }
  if (last > to) keep.push(to);
  return keep;
}

export interface PlotRequest {
  axis: MetricAxis;
  smoothing: number;
  /** Pixel columns of the plot area. */
  width: number;
  xMin?: number;
  xMax?: number;
}

/** One run's points of one key as the chart draws them: x, raw and smoothed values, thinned per column. */
export function runCurve(
  points: readonly MetricPoint[],
  req: PlotRequest,
): { x: number[]; raw: number[]; smooth: number[]; total: number } {
  const start = req.axis === 'relative' ? startTime(points) : 0;
  let pts: readonly MetricPoint[] = points;
  if (req.axis !== 'step') {
    // On a time axis a restart can step back in time: the line follows time.
    pts = points.filter((p) => Number.isFinite(p.wallTime)).sort((a, b) => a.wallTime - b.wallTime || a.step - b.step);
  }
  const x = new Array<number>(pts.length);
  const raw = new Array<number>(pts.length);
  for (let i = 0; i < pts.length; i++) {
    x[i] = xOf(pts[i]!, req.axis, start);
    raw[i] = pts[i]!.value;
  }
  const smooth = smoothEma(raw, req.smoothing);
  const lo = req.xMin ?? (x.length ? x[0]! : 0);
  const hi = req.xMax ?? (x.length ? x[x.length - 1]! : 0);
  const idx = columnIndices(x, req.smoothing > 0 ? [raw, smooth] : [raw], req.width, lo, hi);
  return { x: idx.map((i) => x[i]!), raw: idx.map((i) => raw[i]!), smooth: idx.map((i) => smooth[i]!), total: points.length };
}

const jsonNumber = (v: number): number | null => (Number.isFinite(v) ? v : null);

/**
 * Several runs' curves of one key on the union of their x values (uPlot's aligned data): a run
 * without a point at an x has null there. Non-finite values become null (JSON cannot carry them);
 * `nonFinite` counts them.
 */
export function alignCurves(
  key: string,
  req: PlotRequest,
  runs: readonly { run: string; label: string; points: readonly MetricPoint[] }[],
): Omit<MetricPlot, 'seq'> {
  const curves = runs.map((r) => ({ ...r, c: runCurve(r.points, req) }));
  const xs = [...new Set(curves.flatMap((r) => r.c.x))].sort((a, b) => a - b);
  const at = new Map(xs.map((x, i) => [x, i]));
  let nonFinite = 0;
  const series = curves.map(({ run, label, c }) => {
    const raw: (number | null)[] = new Array<number | null>(xs.length).fill(null);
    const smooth: (number | null)[] = new Array<number | null>(xs.length).fill(null);
    c.x.forEach((x, i) => {
      const k = at.get(x)!;
      if (!Number.isFinite(c.raw[i]!)) nonFinite++;
      raw[k] = jsonNumber(c.raw[i]!);
      smooth[k] = jsonNumber(c.smooth[i]!);
    });
    return { run, label, raw, smooth: req.smoothing > 0 ? smooth : undefined, points: c.total, drawn: c.x.length };
  });
  return {
    key,
    axis: req.axis,
    smoothing: req.smoothing,
    x: xs,
    series: series.map(({ smooth, ...s }) => (smooth ? { ...s, smooth } : s)),
    ...(nonFinite ? { nonFinite } : {}),
  };
}

/** A CSV field: quoted when needed; text that a spreadsheet would run as a formula is prefixed with '. */
export function csvField(v: string | number): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : Number.isNaN(v) ? '' : v > 0 ? 'inf' : '-inf';
  const s = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Every point of a key for every run: `run,step,wall_time,value,smoothed` (smoothed with `smoothing`). */
export function metricCsv(runs: readonly { label: string; points: readonly MetricPoint[] }[], smoothing: number): string {
  const lines = ['run,step,wall_time,value,smoothed'];
  for (const r of runs) {
    const sm = smoothEma(
      r.points.map((p) => p.value),
      smoothing,
    );
    r.points.forEach((p, i) =>
      lines.push([csvField(r.label), csvField(p.step), csvField(p.wallTime), csvField(p.value), csvField(sm[i]!)].join(',')),
    );
  }
  return `${lines.join('\n')}\n`;
}
