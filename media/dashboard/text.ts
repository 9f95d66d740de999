// Words of the dashboard (pure, unit-tested): counts with plurals, empty panels by run status.
import { t } from '../shared/l10n';

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function countsText(steps: number, evals: number, exceptions: number, notes = 0): string {
  const s = steps === 1 ? t('1 step') : t('{0} steps', steps);
  const e = evals === 1 ? t('1 evaluation') : t('{0} evaluations', evals);
  const x = exceptions === 1 ? t('1 exception') : t('{0} exceptions', exceptions);
  if (!notes) return `${s} · ${e} · ${x}`;
  // The Runs tree's words for the same records.
  const n = notes === 1 ? t('1 harmless note') : t('{0} harmless notes', notes);
  return `${s} · ${e} · ${x} · ${n}`;
}

/** Something may still be written: a running or unknown run. */
function mayGrow(statuses: readonly string[]): boolean {
  return statuses.some((s) => s === 'running' || s === 'unknown');
}

/** "yet" only while something may still be written. */
export function emptyPanelText(title: string, statuses: readonly string[]): string {
  return mayGrow(statuses) ? t('{0}: nothing recorded yet.', title) : t('{0}: nothing recorded.', title);
}

export function noEvaluationsText(statuses: readonly string[]): string {
  return mayGrow(statuses)
    ? t('No evaluation tables yet (evaluation/evaluation.json.log).')
    : t('No evaluation tables (evaluation/evaluation.json.log).');
}

/** A run's status as the badge shows it (the class keeps the English word for the colour). */
export function statusWord(status: string): string {
  const words: Record<string, string> = {
    running: t('running'),
    finished: t('finished'),
    failed: t('failed'),
    stopped: t('stopped'),
    interrupted: t('interrupted'),
    ended: t('ended'),
    empty: t('empty'),
    unknown: t('unknown'),
  };
  return Object.hasOwn(words, status) ? words[status]! : status;
}
