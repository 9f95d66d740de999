// Colours of the dashboard: the theme's chart palette (a run keeps its colour in every chart), with
// fallbacks for a theme that lacks them.
const PALETTE = [
  '--vscode-charts-blue',
  '--vscode-charts-orange',
  '--vscode-charts-green',
  '--vscode-charts-purple',
  '--vscode-charts-red',
  '--vscode-charts-yellow',
];
const FALLBACK = ['#3794ff', '#d18616', '#89d185', '#b180d7', '#f14c4c', '#cca700'];

export function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}

export function runColor(i: number): string {
  return cssVar(PALETTE[i % PALETTE.length]!, FALLBACK[i % FALLBACK.length]!);
}
