// A stack report as text: the groups first ("8 threads in 8 processes wait in all_gather"), each
// frame as `func  file:line` (a terminal and the editor's document make that a link), then what
// could not be read and why.
import type { StackGroup, StackReport } from './types';
import { formatLocalTime } from '../runs/format';
import { t } from '../l10n';

const MEMBERS_SHOWN = 12;

export function frameLocation(f: { file: string; line: number | undefined }): string {
  return f.line === undefined ? f.file : `${f.file}:${f.line}`;
}

export function groupTitle(g: StackGroup): string {
  const where = g.waitsIn || t('(no Python frame)');
  if (g.members.length === 1) {
    const m = g.members[0]!;
    return t('process {0}, thread {1}, waits in {2}', m.pid, m.threadName ?? m.thread, where);
  }
  if (g.processes === 1) return t('{0} threads of process {1} wait in {2}', g.members.length, g.members[0]!.pid, where);
  if (g.processes === g.members.length) return t('{0} processes wait in {1}', g.processes, where);
  return t('{0} threads in {1} processes wait in {2}', g.members.length, g.processes, where);
}

function members(g: StackGroup): string {
  const shown = g.members.slice(0, MEMBERS_SHOWN).map((m) => `${m.pid}/${m.threadName ?? m.thread}`);
  const more = g.members.length - shown.length;
  return more > 0 ? `${shown.join(', ')} ${t('and {0} more', more)}` : shown.join(', ');
}

export function formatStackReport(r: StackReport): string {
  const read = r.processes.filter((p) => !p.error);
  const threads = read.reduce((n, p) => n + p.threads.length, 0);
  const methods = [...new Set(read.map((p) => p.method).filter(Boolean))].join(', ') || '-';
  const when = formatLocalTime(r.takenAt);
  const head =
    read.length === 1
      ? t('Stacks of 1 process, {0} threads ({1}), taken {2}', threads, methods, when)
      : t('Stacks of {0} processes, {1} threads ({2}), taken {3}', read.length, threads, methods, when);
  const lines = [head, ''];
  for (const g of r.groups) {
    lines.push(groupTitle(g));
    if (g.members.length > 1) lines.push(`  ${members(g)}`);
    for (const f of g.frames) lines.push(`    ${f.func}  ${frameLocation(f)}`);
    if (!g.frames.length) lines.push(`    ${t('(no Python frame)')}`);
    lines.push('');
  }
  for (const p of r.processes) if (p.error) lines.push(t('process {0} ({1}): {2}', p.pid, p.args.slice(0, 120) || '?', p.error.message));
  for (const n of r.notes) lines.push(n);
  for (const s of r.raySessions ?? []) {
    const by = s.foundBy;
    lines.push(
      !by
        ? t('Ray session {0} (given)', s.dir)
        : by.via === 'open-file'
          ? t('Ray session {0} (process {1} has its logs open)', s.dir, by.pid)
          : by.via === 'command-line'
            ? t('Ray session {0} (named by the command line of process {1})', s.dir, by.pid)
            : t('Ray session {0} (the newest: process {1} sets RAY_ADDRESS)', s.dir, by.pid),
    );
  }
  return lines.join('\n').replace(/\n+$/, '') + '\n';
}
