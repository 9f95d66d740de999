// Loss mask from a token's display colour. AgentJet scales the saturation of two base colours by
// the token's logprob, so the colour string varies per token; only the hue is stable.

import type { MaskValue } from '../protocol/tokenlog';

/** 1 = trained (loss mask 1), 0 = context (excluded from the loss), -1 = neither base colour. */
export type { MaskValue };

const TRAINED_HUE = 191; // #09ABCF
const CONTEXT_HUE = 35; // #D98510
const HUE_TOLERANCE = 30;

/** Hue in degrees [0, 360) of `#rgb`/`#rrggbb`, or undefined for grey or unparsable input. */
export function hueOf(color: string): number | undefined {
  let hex = color.trim();
  if (hex.startsWith('#')) hex = hex.slice(1);
  if (hex.length === 3) hex = hex[0]! + hex[0]! + hex[1]! + hex[1]! + hex[2]! + hex[2]!;
  if (hex.length !== 6 || !/^[0-9a-fA-F]{6}$/.test(hex)) return undefined;
  const n = parseInt(hex, 16);
  const r = (n >> 16) & 255,
    g = (n >> 8) & 255,
    b = n & 255;
  const max = Math.max(r, g, b),
    min = Math.min(r, g, b);
  const d = max - min;
  // Heavily desaturated colours lose their hue to 8-bit rounding; 3 levels is still reliable.
  if (d < 3) return undefined;
  let h: number;
  if (max === r) h = ((g - b) / d) % 6;
  else if (max === g) h = (b - r) / d + 2;
  else h = (r - g) / d + 4;
  h *= 60;
  return h < 0 ? h + 360 : h;
}

function near(h: number, target: number): boolean {
  const diff = Math.abs(h - target) % 360;
  return Math.min(diff, 360 - diff) <= HUE_TOLERANCE;
}

const cache = new Map<string, MaskValue>();

export function maskFromColor(color: unknown): MaskValue {
  if (typeof color !== 'string') return -1;
  const hit = cache.get(color);
  if (hit !== undefined) return hit;
  const h = hueOf(color);
  const m: MaskValue = h === undefined ? -1 : near(h, TRAINED_HUE) ? 1 : near(h, CONTEXT_HUE) ? 0 : -1;
  if (cache.size < 65_536) cache.set(color, m);
  return m;
}
