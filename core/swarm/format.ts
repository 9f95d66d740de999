// Text a terminal (the CLI) shows for a swarm server; the view builds its own items from the same model.
import { t } from '../l10n';
import type { SwarmStatus } from './api';
import { episodesByClient, formatDuration, progress, runningEpisodes, taskRows } from './model';

export function progressLabel(label: 'episodes' | 'tasks' | 'non-dummy tasks'): string {
  return label === 'episodes' ? t('episodes') : label === 'tasks' ? t('tasks') : t('non-dummy tasks');
}

function bar(cur: number, target: number, width = 20): string {
  if (target <= 0) return '';
  const f = Math.max(0, Math.min(1, cur / target));
  const n = Math.round(f * width);
  return `[${'#'.repeat(n)}${'.'.repeat(width - n)}] ${Math.round(f * 100)}%`;
}

/** The status as lines of text; `since` is how long the engine has been in its state (ms), when known. */
export function statusText(s: SwarmStatus, since?: number): string {
  const lines: string[] = [];
  const pool = s.pool;
  lines.push(t('Swarm server {0}', s.url));
  const state = s.engine_status + (s.engine_status_detail ? ` (${s.engine_status_detail})` : '');
  lines.push(`  ${t('engine')}:           ${state}${since !== undefined ? `  ${t('for {0}', formatDuration(since))}` : ''}`);
  lines.push(`  ${t('global step')}:      ${s.global_step ?? '-'}`);
  lines.push(`  ${t('model')}:            ${s.training_model_path ?? '-'}`);
  lines.push(`  ${t('experiment')}:       ${s.server_experiment_dir ?? '-'}`);
  lines.push(`  ${t('collection')}:       ${pool.sample_collection_method || '-'}`);
  for (const p of progress(pool))
    lines.push(`  ${progressLabel(p.label).padEnd(17)} ${p.current} / ${p.target}  ${bar(p.current, p.target)}`);
  const active = pool.swarm_client_instruction.active_clients;
  lines.push(
    `  ${t('active clients')}:   ${active.length}${active.length ? `  (${active.map((c) => c.client_uuid.slice(0, 8) + (c.allowed_sync_weight ? '✓' : '')).join(', ')})` : ''}`,
  );
  const running = runningEpisodes(pool);
  lines.push(`  ${t('running episodes')}: ${running.length}`);
  const rows = taskRows(pool);
  if (rows.length) {
    lines.push(`  ${t('tasks in this batch')}:`);
    for (const r of rows.slice(0, 20))
      lines.push(
        `    ${r.taskId.slice(0, 40).padEnd(40)} ${String(r.episodes).padStart(4)}  ${r.mean === undefined ? '-' : `${r.mean.toFixed(3)} ± ${(r.std ?? 0).toFixed(3)}`}`,
      );
    if (rows.length > 20) lines.push(`    ${t('… and {0} more tasks', rows.length - 20)}`);
  }
  const byClient = episodesByClient(pool);
  if (byClient.length) {
    lines.push(`  ${t('episodes by client')}:`);
    for (const c of byClient.slice(0, 10))
      lines.push(`    ${c.client.slice(0, 36).padEnd(36)} ${t('{0} running, {1} completed', c.running, c.completed ?? '?')}`);
  }
  return lines.join('\n') + '\n';
}
