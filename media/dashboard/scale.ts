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

/**
 * Labels for a number axis's ticks: the fewest decimals that write every tick exactly, the same for
 * all ticks (0.35, 0.375, 0.40 would otherwise read 0.35, 0.38, 0.40 and look unevenly spaced).
 */
export function tickLabels(vals: readonly (number | null)[]): string[] {
  const nums = vals.filter((v): v is number => v !== null && Number.isFinite(v));
  const exact = (d: number): boolean => nums.every((v) => Math.abs(Number(v.toFixed(d)) - v) <= 1e-9 * Math.max(1, Math.abs(v)));
  let decimals = 0;
  while (decimals < 6 && !exact(decimals)) decimals++;
  return vals.map((v) => (v === null ? '' : v.toFixed(decimals)));
}
