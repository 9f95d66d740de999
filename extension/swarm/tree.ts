// The Swarm Servers view: one node per server (engine state and how long it has been in it), its
// details below (global step, progress toward the batch, clients, episodes, experiment folder, model).
import * as vscode from 'vscode';
import { formatDuration, progress, runningEpisodes, type SwarmServerModel } from '../../core/swarm/model';
import type { SwarmServers, WatchedServer } from './servers';

export type SwarmNode =
  | { kind: 'server'; server: WatchedServer }
  | {
      kind: 'detail';
      server: WatchedServer;
      label: string;
      description?: string;
      tooltip?: string;
      command?: vscode.Command;
      icon?: string;
      context?: string;
    };

const STATE_ICONS: Record<string, string> = {
  'ENGINE.OFFLINE': 'circle-outline',
  'ENGINE.BOOTING': 'loading~spin',
  'ENGINE.ROLLING': 'play-circle',
  'ENGINE.ROLLING_POST': 'debug-pause',
  'ENGINE.WEIGHT_SYNCING': 'sync~spin',
  'ENGINE.WEIGHT_EXPORTING': 'save',
};

export function progressLabel(label: string): string {
  return label === 'episodes' ? vscode.l10n.t('episodes') : label === 'tasks' ? vscode.l10n.t('tasks') : vscode.l10n.t('non-dummy tasks');
}

export function serverDescription(m: SwarmServerModel, now = Date.now()): string {
  if (m.reachability === 'error') return vscode.l10n.t('cannot connect');
  if (!m.status) return vscode.l10n.t('connecting…');
  const since = m.stateSince !== undefined ? ` · ${formatDuration(now - m.stateSince)}` : '';
  return `${m.status.engine_status}${since}`;
}

/**
 * The server node's contextValue: `swarmServer`, `.local` when this window started it (Stop server),
 * `.engineUp` when it answers and its engine is not offline (Stop engine is offered only then).
 */
function serverContext(s: WatchedServer): string {
  const m = s.watcher.model;
  const engineUp = m.reachability === 'ok' && !!m.engineState && m.engineState !== 'ENGINE.OFFLINE';
  return ['swarmServer', ...(s.task ? ['local'] : []), ...(engineUp ? ['engineUp'] : [])].join('.');
}

export function details(s: WatchedServer): SwarmNode[] {
  const m = s.watcher.model;
  const d = (label: string, description?: string, extra: Partial<Extract<SwarmNode, { kind: 'detail' }>> = {}): SwarmNode => ({
    kind: 'detail',
    server: s,
    label,
    description,
    ...extra,
  });
  if (m.reachability === 'error') return [d(vscode.l10n.t('Cannot connect'), m.error, { tooltip: m.error, icon: 'error' })];
  const st = m.status;
  if (!st) return [d(vscode.l10n.t('Waiting for the first answer…'))];
  const pool = st.pool;
  const out: SwarmNode[] = [];
  out.push(
    d(vscode.l10n.t('Engine'), st.engine_status + (st.engine_status_detail ? ` (${st.engine_status_detail})` : ''), {
      icon: STATE_ICONS[st.engine_status] ?? 'circle',
    }),
  );
  out.push(d(vscode.l10n.t('Global step'), st.global_step === null ? '-' : String(st.global_step), { icon: 'milestone' }));
  if (pool.sample_collection_method) out.push(d(vscode.l10n.t('Sample collection'), pool.sample_collection_method, { icon: 'filter' }));
  for (const p of progress(pool))
    if (p.target > 0 || st.engine_status === 'ENGINE.ROLLING')
      out.push(d(progressLabel(p.label), `${p.current} / ${p.target}`, { icon: 'graph' }));
  const active = pool.swarm_client_instruction.active_clients;
  out.push(
    d(vscode.l10n.t('Active clients'), String(active.length), {
      icon: 'person',
      tooltip: active.map((c) => c.client_uuid + (c.allowed_sync_weight ? ' ✓' : '')).join('\n'),
    }),
  );
  out.push(d(vscode.l10n.t('Running episodes'), String(runningEpisodes(pool).length), { icon: 'pulse' }));
  if (st.training_model_path) out.push(d(vscode.l10n.t('Model'), st.training_model_path, { icon: 'hubot' }));
  if (st.server_experiment_dir)
    out.push(
      d(vscode.l10n.t('Experiment folder'), st.server_experiment_dir, {
        icon: 'folder',
        tooltip: vscode.l10n.t('Show in the Runs view'),
        context: 'swarmExperiment',
        command: {
          command: 'agentjet.swarm.openExperiment',
          title: vscode.l10n.t('Open experiment folder'),
          arguments: [{ kind: 'server', server: s }],
        },
      }),
    );
  return out;
}

export class SwarmTree implements vscode.TreeDataProvider<SwarmNode> {
  private readonly emitter = new vscode.EventEmitter<SwarmNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  /** Renders since start (tests and the benchmark wait on this). */
  renders = 0;

  constructor(private readonly servers: SwarmServers) {}

  refresh(): void {
    this.emitter.fire(undefined);
  }

  getChildren(n?: SwarmNode): SwarmNode[] {
    if (!n) {
      this.renders++;
      return this.servers.list().map((server) => ({ kind: 'server', server }));
    }
    return n.kind === 'server' ? details(n.server) : [];
  }

  getTreeItem(n: SwarmNode): vscode.TreeItem {
    if (n.kind === 'server') {
      const m = n.server.watcher.model;
      const item = new vscode.TreeItem(n.server.url, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `swarm:${n.server.url}`;
      item.description = serverDescription(m);
      item.tooltip = m.reachability === 'error' ? m.error : [n.server.url, ...[...n.server.origins].map((o) => `(${o})`)].join(' ');
      const icon = m.reachability === 'error' ? 'error' : (STATE_ICONS[m.engineState ?? ''] ?? 'circle-large-outline');
      item.iconPath = new vscode.ThemeIcon(icon);
      item.contextValue = serverContext(n.server);
      item.command = { command: 'agentjet.swarm.openOverwatch', title: vscode.l10n.t('Open swarm overwatch'), arguments: [n] };
      return item;
    }
    const item = new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.None);
    item.id = `swarm:${n.server.url}:${n.label}`;
    item.description = n.description;
    item.tooltip = n.tooltip ?? (n.description ? `${n.label}: ${n.description}` : n.label);
    if (n.icon) item.iconPath = new vscode.ThemeIcon(n.icon);
    if (n.command) item.command = n.command;
    if (n.context) item.contextValue = n.context;
    return item;
  }
}
