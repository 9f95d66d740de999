// Summaries of metric series for the CLI and the agents' tools: counts, last, min, max, trend, and
// a series thinned to a bounded number of points that keeps each bucket's extremes.
import type { MetricPoint, MetricSeries } from '../protocol/metrics';

export interface SeriesSummary {
  points: number;
  first: { step: number; value: number };
  last: { step: number; value: number };
  min: number;
  max: number;
  /** Steps with a value that is not a finite number (NaN, inf). */
  nonFinite?: number;
  /** Mean of the last fifth of the points minus that of the first fifth, in units of the range: > 0.1 rising, < -0.1 falling. */
  trend: 'rising' | 'falling' | 'flat';
}

const finite = (p: MetricPoint) => Number.isFinite(p.value);

export function summarize(s: MetricSeries): SeriesSummary {
  const pts = s.points;
  let min = Infinity;
  let max = -Infinity;
  let nonFinite = 0;
  for (const p of pts) {
    if (!Number.isFinite(p.value)) {
      nonFinite++;
      continue;
    }
    if (p.value < min) min = p.value;
    if (p.value > max) max = p.value;
  }
  const vals = pts.filter(finite);
  const k = Math.max(1, Math.floor(vals.length / 5));
  const mean = (a: MetricPoint[]) => a.reduce((x, p) => x + p.value, 0) / a.length;
  const range = max - min;
  const d = vals.length >= 2 && range > 0 ? (mean(vals.slice(-k)) - mean(vals.slice(0, k))) / range : 0;
  const first = pts[0]!;
  const last = pts[pts.length - 1]!;
  return {
    points: pts.length,
    first: { step: first.step, value: first.value },
    last: { step: last.step, value: last.value },
    min: vals.length ? min : NaN,
    max: vals.length ? max : NaN,
    ...(nonFinite ? { nonFinite } : {}),
    trend: d > 0.1 ? 'rising' : d < -0.1 ? 'falling' : 'flat',
  };
}

/** At most about `max` points: the first and last, and each bucket's lowest and highest, in order. */
export function downsample(points: readonly MetricPoint[], max: number): MetricPoint[] {
  if (points.length <= max) return [...points];
  const buckets = Math.max(1, Math.floor((max - 2) / 2));
  const out: MetricPoint[] = [points[0]!];
  const inner = points.length - 2;
  for (let b = 0; b < buckets; b++) {
    const from = 1 + Math.floor((b * inner) / buckets);
    const to = 1 + Math.floor(((b + 1) * inner) / buckets);
    let lo = -1;
    let hi = -1;
    for (let i = from; i < to; i++) {
      const v = points[i]!.value;
      if (!Number.isFinite(v)) continue;
      if (lo < 0 || v < points[lo]!.value) lo = i;
      if (hi < 0 || v > points[hi]!.value) hi = i;
    }
    if (lo < 0) continue;
    if (lo === hi) out.push(points[lo]!);
    else out.push(points[Math.min(lo, hi)]!, points[Math.max(lo, hi)]!);
  }
  out.push(points[points.length - 1]!);
  return out;
}
