// A metric chart as a PNG for export: the theme's background, the key as its title, the plot as
// drawn, the runs' names in their colours (the raw lines behind smoothed ones are left out).
import type uPlot from 'uplot';

/** The chart as a PNG: the theme's background, the key as title, the plot, the runs' names. */
export function chartPng(u: uPlot, key: string, cssVar: (name: string, fallback: string) => string): string {
  const src = u.ctx.canvas;
  const pad = 28;
  const out = document.createElement('canvas');
  out.width = src.width;
  out.height = src.height + pad * 2;
  const ctx = out.getContext('2d')!;
  ctx.fillStyle = cssVar('--vscode-editor-background', '#1e1e1e');
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.fillStyle = cssVar('--vscode-foreground', '#ccc');
  ctx.font = `${14 * devicePixelRatio}px sans-serif`;
  ctx.fillText(key, 8, pad - 8);
  ctx.drawImage(src, 0, pad);
  let x = 8;
  const raw = new Set([...u.root.querySelectorAll('.u-legend .u-series')].map((row, i) => (row.classList.contains('raw') ? i : -1)));
  for (const [i, s] of u.series.entries()) {
    if (i === 0 || raw.has(i) || !s.show || typeof s.label !== 'string') continue;
    ctx.fillStyle = typeof s.stroke === 'function' ? String(s.stroke(u, 1)) : String(s.stroke ?? '#888');
    ctx.fillText(s.label, x, out.height - 8);
    x += ctx.measureText(s.label).width + 24;
  }
  return out.toDataURL('image/png');
}
