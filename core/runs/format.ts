// Words and numbers shown for a run, shared by the tree and the CLI.
import { causePlace } from '../diagnose/format';
import type { Cause } from '../diagnose/types';
import type { ExperimentInfo, RunStatus } from './discover';
import { t } from '../l10n';
import { formatClock, healthText, type RunHealth } from './health';

export const STATUSES: readonly RunStatus[] = ['running', 'finished', 'failed', 'stopped', 'interrupted', 'ended', 'empty'];

/** A status as shown to people (the JSON and the `--status` filter keep the English word). */
export function statusLabel(s: RunStatus | string): string {
  const labels: Record<RunStatus, string> = {
    running: t('running'),
    finished: t('finished'),
    failed: t('failed'),
    stopped: t('stopped'),
    interrupted: t('interrupted'),
    ended: t('ended'),
    empty: t('empty'),
  };
  return Object.hasOwn(labels, s) ? labels[s as RunStatus] : s;
}

/**
 * A row's description: the status word alone, so it survives the default sidebar width beside a
 * long experiment name (step, reward, age and size are in the tooltip, `runTooltip`).
 */
export function describeRun(info: ExperimentInfo): string {
  return statusLabel(info.status);
}

/**
 * What a running launch from the editor is doing, in the few words a row and `agentjet runs` both
 * show (`paused in the debugger since 14:02`); undefined while it simply runs.
 */
export function launchPhaseText(launch: ExperimentInfo['launch'], now: number): string | undefined {
  if (!launch) return undefined;
  const since = launch.sinceMs !== undefined ? formatClock(launch.sinceMs, now) : undefined;
  switch (launch.phase) {
    case 'preparing':
      return t('preparing the launch');
    case 'paused':
      return since ? t('paused in the debugger since {0}', since) : t('paused in the debugger');
    case 'stopping':
      return t('stopping');
    default:
      return undefined;
  }
}

/**
 * A Runs row's label: the status word, then the run's name (`stopped · math_agent_20261125_0130`).
 * The status comes first so a narrow sidebar cuts the name, never the status (issue 23 item 3).
 */
export function runRowLabel(status: string, name: string): string {
  return `${status} · ${name}`;
}

/**
 * A run name split for a narrow row: AgentJet names a run `<config>_<YYYYMMDD_HHMMSS_mmm>` when
 * the config leaves `experiment_name` at `read_yaml_name` (`ajet/utils/config_utils.py`), and its
 * copilot jobs add `_<YYYYMMDD-HHMMSS>`; older projects and people write `_YYYYMMDD_HHMM`. The
 * stamp, when there is one, is shown short (`05-28 14:30:12`) beside the name, which then fits the
 * default sidebar width. A name that is all stamp, or has none, is kept whole.
 */
export function splitRunName(name: string): { base: string; stamp?: string } {
  const m = /^(.*?[^_-])[_-](\d{4})(\d{2})(\d{2})[_-](\d{2})(\d{2})(\d{2})?(?:[_-]\d{1,6})?$/.exec(name);
  if (!m) return { base: name };
  const [, base, , mo, d, h, mi, sec] = m as unknown as [string, string, string, string, string, string, string, string | undefined];
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > 31 || Number(h) > 23 || Number(mi) > 59) return { base: name };
  if (sec !== undefined && Number(sec) > 59) return { base: name };
  return { base, stamp: `${mo}-${d} ${h}:${mi}${sec !== undefined ? `:${sec}` : ''}` };
}

/** Status, step and reward on one line (the tooltip's first line, the CLI's summary). */
export function runSummary(info: ExperimentInfo): string {
  const parts: string[] = [statusLabel(info.status)];
  if (info.latestStep !== undefined) parts.push(t('step {0}', info.latestStep));
  if (info.latestReward !== undefined) parts.push(t('reward {0}', formatReward(info.latestReward)));
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
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

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
/** The causes a run shows: a failed or interrupted run's, a running one's only while it reads stalled. */
export function shownCauses(info: Pick<ExperimentInfo, 'status' | 'causes'>, health: Pick<RunHealth, 'state'> | undefined): Cause[] {
  return info.status !== 'running' || health?.state === 'stalled' ? (info.causes ?? []) : [];
}

export function runTooltip(
  info: ExperimentInfo,
  size?: { bytes: number; complete: boolean },
  now = Date.now(),
  health?: RunHealth,
): string {
  const e = info.entry;
  const lines: string[] = [];
  lines.push(t('**{0}**: {1}', mdText(e.name), statusLabel(info.status)), '');
  const phase = launchPhaseText(info.launch, now);
  if (phase) lines.push(`$(${info.launch?.phase === 'paused' ? 'debug-pause' : 'info'}) ${mdText(phase)}`, '');
  if (health && health.state !== 'progressing')
    lines.push(`$(${health.state === 'stalled' ? 'warning' : 'info'}) ${mdText(healthText(health, now))}`, '');
  else if (health) lines.push(mdText(healthText(health, now)), '');
  for (const c of shownCauses(info, health))
    lines.push(
      `$(error) ${t('**{0}**: {1}', c.code, mdText(c.message))}`,
      '',
      t('Fix: {0}', mdText(c.fix)),
      '',
      `${mdCode(causePlace(c))}${c.evidence[0] ? `: ${mdText(c.evidence[0].slice(0, 200))}` : ''}`,
      '',
    );
  // What the row's description leaves out, at a glance.
  const summary = [runSummary(info), formatAge(e.timeMs, now), size ? formatSize(size) : undefined].filter(Boolean).join(' · ');
  lines.push(mdText(summary), '');
  if (info.evidence.length) {
    lines.push(t('Evidence:'));
    for (const ev of info.evidence) lines.push(`- ${mdText(ev.text)}${ev.file ? ` (${mdCode(ev.file)})` : ''}`);
    lines.push('');
  }
  lines.push(`- ${t('started {0} ({1})', formatLocalTime(e.timeMs), formatAge(e.timeMs, now))}`);
  const n = info.sessions.length;
  const hosts = info.hosts.length
    ? mdText(info.hosts.join(', '))
    : info.layout === 'astuner-2025-11' || info.layout === 'astune'
      ? t('one host (this layout has no host folder)')
      : t('no host');
  lines.push(`- ${n === 1 ? t('1 session on {0}', hosts) : t('{0} sessions on {1}', n, hosts)}`);
  if (info.project) lines.push(`- ${t('project {0}', mdText(info.project))}`);
  if (info.latestStep !== undefined) {
    const step =
      info.totalSteps !== undefined ? t('latest step {0} of {1}', info.latestStep, info.totalSteps) : t('latest step {0}', info.latestStep);
    lines.push(`- ${info.latestReward !== undefined ? t('{0}, mean reward {1}', step, formatReward(info.latestReward)) : step}`);
  }
  const ck = info.checkpoints.at(-1);
  if (ck)
    lines.push(
      `- ${info.checkpoints.length === 1 ? t('1 checkpoint (last step {0})', ck.step) : t('{0} checkpoints (last step {1})', info.checkpoints.length, ck.step)}`,
    );
  if (info.exceptionCount) lines.push(`- ${info.exceptionCount === 1 ? t('1 exception') : t('{0} exceptions', info.exceptionCount)}`);
  if (info.noteCount)
    lines.push(
      `- ${info.noteCount === 1 ? t('1 harmless note (prompt token mismatch)') : t('{0} harmless notes (prompt token mismatch)', info.noteCount)}`,
    );
  if (size)
    lines.push(
      `- ${size.complete ? t('{0} on disk', formatBytes(size.bytes)) : t('at least {0} on disk (estimate: counting stopped early)', formatBytes(size.bytes))}`,
    );
  if (info.snapshotError) lines.push(`- ${t('snapshot: {0}', mdText(info.snapshotError))}`);
  lines.push('', mdCode(e.path));
  return lines.join('\n');
}

export function formatAge(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return t('{0}s ago', s);
  const m = Math.round(s / 60);
  if (m < 60) return t('{0}m ago', m);
  const h = Math.round(m / 60);
  if (h < 48) return t('{0}h ago', h);
  return t('{0}d ago', Math.round(h / 24));
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
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

/**
 * A name as one line of a terminal table: control characters (a newline in a folder name, an
 * escape sequence) are shown escaped (`\n`, `\x1b`), so no name can break or recolour the table.
 */
export function printable(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
    const code = c.charCodeAt(0);
    return named[c] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}
