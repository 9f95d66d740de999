// Words and numbers shown for a run, shared by the tree and the CLI.
import type { ExperimentInfo, RunStatus } from './discover';

export const STATUSES: readonly RunStatus[] = ['running', 'finished', 'failed', 'interrupted', 'ended', 'empty'];

/** A row's description: the status first (it survives a narrow sidebar), then step and reward. */
export function describeRun(info: ExperimentInfo): string {
  const parts: string[] = [info.status];
  if (info.latestStep !== undefined) parts.push(`step ${info.latestStep}`);
  if (info.latestReward !== undefined) parts.push(`reward ${formatReward(info.latestReward)}`);
  return parts.join(' · ');
}

/**
 * One format for rewards everywhere (tree, tooltip, CLI): three decimals, rounded half away from
 * zero on the decimal value as written (0.275 is 0.275, 0.3755 is 0.376), never binary-float
 * artefacts of toFixed.
 */
export function formatReward(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a < 0.0005) return '0.000';
  if (a >= 1e15) return v.toFixed(0);
  // Round the shortest decimal representation (what was written), not the binary value.
  const [int, frac = ''] = a.toString().split('.');
  let digits = `${int}${(frac + '000').slice(0, 3)}`;
  if ((frac[3] ?? '0') >= '5') digits = (BigInt(digits) + 1n).toString().padStart(digits.length, '0');
  return `${v < 0 ? '-' : ''}${digits.slice(0, -3) || '0'}.${digits.slice(-3)}`;
}

/** `1 exception`, `2 exceptions`. */
export function plural(n: number, one: string, many = `${one}s`): string { return `${n} ${n === 1 ? one : many}`; }

/** A Markdown code span that shows `text` as is (no backslash escapes: they are literal inside code). */
export function mdCode(text: string): string {
  const runs = text.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Markdown text escaped for prose inside a line (not for code spans): only what changes rendering mid-line. */
export function mdText(s: string): string {
  return s.replace(/[\\`*_[\]<>|~]/g, '\\$&');
}

/** The experiment row's tooltip (Markdown): status and the evidence that decided it first. */
export function runTooltip(info: ExperimentInfo, size?: { bytes: number; complete: boolean }, now = Date.now()): string {
  const e = info.entry;
  const lines: string[] = [];
  lines.push(`**${mdText(e.name)}**: ${info.status}`, '');
  if (info.evidence.length) {
    lines.push('Evidence:');
    for (const ev of info.evidence) lines.push(`- ${mdText(ev.text)}${ev.file ? ` (${mdCode(ev.file)})` : ''}`);
    lines.push('');
  }
  lines.push(`- started ${formatLocalTime(e.timeMs)} (${formatAge(e.timeMs, now)})`);
  lines.push(`- ${plural(info.sessions.length, 'session')} on ${mdText(info.hosts.join(', ') || (info.layout === 'astuner-2025-11' || info.layout === 'astune' ? 'one host (this layout has no host folder)' : 'no host'))}`);
  if (info.project) lines.push(`- project ${mdText(info.project)}`);
  if (info.latestStep !== undefined) lines.push(`- latest step ${info.latestStep}${info.totalSteps !== undefined ? ` of ${info.totalSteps}` : ''}${info.latestReward !== undefined ? `, mean reward ${formatReward(info.latestReward)}` : ''}`);
  if (info.checkpoints.length) lines.push(`- ${plural(info.checkpoints.length, 'checkpoint')} (last step ${info.checkpoints.at(-1)!.step})`);
  if (info.exceptionCount) lines.push(`- ${plural(info.exceptionCount, 'exception')}`);
  if (info.noteCount) lines.push(`- ${plural(info.noteCount, 'harmless note')} (prompt token mismatch)`);
  if (size) lines.push(`- ${size.complete ? '' : 'at least '}${formatBytes(size.bytes)} on disk${size.complete ? '' : ' (estimate: counting stopped early)'}`);
  if (info.snapshotError) lines.push(`- snapshot: ${mdText(info.snapshotError)}`);
  lines.push('', mdCode(e.path));
  return lines.join('\n');
}

export function formatAge(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.round(h / 24)}d ago`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

/** A measured size: exact, or marked as a lower bound when counting stopped early (`≥ 5.0 MB`). */
export function formatSize(s: { bytes: number; complete: boolean }): string {
  return `${s.complete ? '' : '≥ '}${formatBytes(s.bytes)}`;
}

export function formatLocalTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}
