// Chart axes of the dashboard: value ranges and tick labels (pure, unit-tested).

/** Rates are shares 0..1: their axis is always 0..100 %, also when every value is 0 or 1. */
export type AxisKind = 'rate' | 'number';

/**
 * The y range for a chart's values. Rates keep [0, 1]. A number series whose values are all equal
 * gets a range around them (uPlot's own zero-span padding gives ticks like 0, 25, 50, 75 for 0).
 */
export function yRange(kind: AxisKind, min: number | null, max: number | null): [number, number] {
  if (kind === 'rate') return [0, 1];
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (min === max) {
    const pad = min === 0 ? 1 : Math.abs(min) * 0.5;
    return [min - pad, max + pad];
  }
  const pad = (max - min) * 0.05;
  return [min - pad, max + pad];
}

/** `25%`: a rate 0..1 as a whole percentage. */
export function fmtPct(v: number): string {
  return `${Math.round(v * 100)}%`;
}

export function fmtNum(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2);
}
