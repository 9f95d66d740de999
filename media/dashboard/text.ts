// Words of the dashboard (pure, unit-tested): counts with plurals, empty panels by run status.
import { t } from '../shared/l10n';

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function countsText(steps: number, evals: number, exceptions: number): string {
  const s = steps === 1 ? t('1 step') : t('{0} steps', steps);
  const e = evals === 1 ? t('1 evaluation') : t('{0} evaluations', evals);
  const x = exceptions === 1 ? t('1 exception') : t('{0} exceptions', exceptions);
  return `${s} · ${e} · ${x}`;
}

/** "yet" only while something may still be written (a running or unknown run). */
export function emptyPanelText(title: string, statuses: readonly string[]): string {
  const mayGrow = statuses.some((s) => s === 'running' || s === 'unknown');
  return mayGrow ? t('{0}: nothing recorded yet.', title) : t('{0}: nothing recorded.', title);
}
