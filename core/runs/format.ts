// Words and numbers shown for a run, shared by the tree and the CLI.
import type { ExperimentInfo, RunStatus } from './discover';

export const STATUSES: readonly RunStatus[] = ['running', 'finished', 'failed', 'interrupted', 'ended', 'empty'];

export function describeRun(info: ExperimentInfo): string {
  const parts: string[] = [info.status];
  if (info.latestStep !== undefined) parts.push(`step ${info.latestStep}`);
  if (info.latestReward !== undefined) parts.push(`reward ${info.latestReward.toFixed(2)}`);
  return parts.join(' · ');
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

export function formatLocalTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}
