// Words of the dashboard (pure, unit-tested): counts with plurals, empty panels by run status.

export function plural(n: number, one: string, many = `${one}s`): string { return `${n} ${n === 1 ? one : many}`; }

export function countsText(steps: number, evals: number, exceptions: number): string {
  return `${plural(steps, 'step')} · ${plural(evals, 'evaluation')} · ${plural(exceptions, 'exception')}`;
}

/** "yet" only while something may still be written (a running or unknown run). */
export function emptyPanelText(title: string, statuses: readonly string[]): string {
  const mayGrow = statuses.some((s) => s === 'running' || s === 'unknown');
  return `${title}: ${mayGrow ? 'nothing recorded yet' : 'nothing recorded'}.`;
}
