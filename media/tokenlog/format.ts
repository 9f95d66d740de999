// One way to show each kind of number in the viewer: rewards and advantages always with three
// decimals (0.000, 0.500, 1.000), counts grouped, times as the log wrote them.
import { t } from '../shared/l10n';

/** Rewards, advantages and other scores: fixed three decimals, so a column lines up. */
export function score(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '';
  return n.toFixed(3);
}

/** Steps, indices and counts: integers, grouped by the locale. */
export function count(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '';
  return Number.isInteger(n) ? n.toLocaleString('en-US') : score(n);
}

/** A record time (ms of the timestamp as written, read as UTC): `HH:MM:SS`. */
export function clock(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  return new Date(ms).toISOString().slice(11, 19);
}

/** The full timestamp, for tooltips. */
export function stamp(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** Bytes as B / KB / MB. */
export function bytes(n: number): string {
  if (n >= 1048576) return `${(n / 1048576).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${n} B`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** "1 record" / "12 records", localised. */
export function records(n: number): string {
  return n === 1 ? t('1 record') : t('{0} records', count(n));
}

/** "1 match" / "37 matches", localised. */
export function matches(n: number): string {
  return n === 1 ? t('1 match') : t('{0} matches', count(n));
}
