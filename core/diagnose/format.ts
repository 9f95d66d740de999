// The text `agentjet diagnose` prints, and the one-line summary the Runs view and `agentjet runs` show.
import { t } from '../l10n';
import type { Cause, DiagnoseJson } from './types';

/** `file:line` of a cause's evidence (`+line` past byte N when counted from a tail). */
export function causePlace(c: Cause): string {
  if (!c.file) return t('line {0}', c.line);
  return c.lineBase === 'tail' ? t('{0}, line {1} after byte {2}', c.file, c.line, c.fromByte ?? 0) : `${c.file}:${c.line}`;
}

/** One line: `code: message` (for a row's tooltip or a table). */
export function causeSummary(c: Cause): string {
  return `${c.code}: ${c.message}`;
}

export function formatDiagnosis(d: DiagnoseJson): string {
  const out: string[] = [];
  for (const c of d.causes) {
    out.push(`${c.code}  ${c.message}`);
    out.push(`  ${t('at {0}', causePlace(c))}`);
    for (const e of c.evidence.slice(0, 6)) out.push(`  > ${e}`);
    out.push(`  ${t('fix: {0}', c.fix)}`);
    out.push('');
  }
  if (!d.causes.length)
    out.push(
      d.read.length
        ? t('No known failure cause in the {0} files read.', d.read.length)
        : t('Nothing to read: no launcher output, run log or worker log was found.'),
    );
  if (d.read.length) {
    out.push(t('Read:'));
    for (const r of d.read)
      out.push(`  ${r.file} (${r.fromByte > 0 ? t('the last {0} of {1} bytes', r.bytes, r.size) : t('{0} bytes', r.size)})`);
  }
  for (const s of d.skipped ?? []) out.push(`  ${t('not read: {0} ({1})', s.file, s.reason)}`);
  return `${out.join('\n')}\n`;
}
