// The rows of the Runs view below an experiment (config snapshot, sessions, hosts, logs,
// trajectories, checkpoints, messages) as tree items; the experiment row itself is tree.ts's.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { formatBytes, formatLocalTime, mdCode, mdText, statusLabel } from '../../core/runs/format';
import { trackingOpenCommand } from '../../core/runs/tracking';
import { statusIcon, type RunNode } from './nodes';

export function treeItem(node: Exclude<RunNode, { kind: 'experiment' }>): vscode.TreeItem {
  switch (node.kind) {
    case 'snapshot': {
      const item = new vscode.TreeItem(vscode.l10n.t('config snapshot'), vscode.TreeItemCollapsibleState.None);
      item.id = `snap:${node.path}`;
      item.description = 'yaml_backup.yaml';
      item.iconPath = new vscode.ThemeIcon('settings-gear');
      item.resourceUri = vscode.Uri.file(node.path);
      item.contextValue = 'snapshot';
      item.tooltip = vscode.l10n.t('The resolved config this run used');
      item.command = { command: 'agentjet.runs.openSnapshot', title: vscode.l10n.t('Open Config Snapshot'), arguments: [node] };
      return item;
    }
    case 'session': {
      const s = node.session;
      const item = new vscode.TreeItem(
        s.timeMs !== undefined ? formatLocalTime(s.timeMs) : s.name,
        vscode.TreeItemCollapsibleState.Collapsed,
      );
      item.id = `session:${node.path}`;
      const hosts = s.hosts.map((h) => h.name);
      item.iconPath = statusIcon(s.status);
      // The status word only (a narrow sidebar keeps it); hosts and evidence are in the tooltip.
      item.description = statusLabel(s.status);
      item.tooltip = new vscode.MarkdownString(
        [
          mdText(hosts.length > 1 ? vscode.l10n.t('{0} hosts', hosts.length) : (hosts[0] ?? vscode.l10n.t('no host'))),
          '',
          s.hosts
            .map((h) => `- **${mdText(h.name)}**: ${statusLabel(h.status)}${h.evidence.map((ev) => `\n  - ${mdText(ev.text)}`).join('')}`)
            .join('\n') || vscode.l10n.t('empty session'),
        ].join('\n'),
      );
      item.contextValue = 'session folder';
      item.resourceUri = vscode.Uri.file(node.path);
      return item;
    }
    case 'host': {
      const h = node.host;
      const item = new vscode.TreeItem(h.name, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `host:${node.path}`;
      item.description = statusLabel(h.status);
      item.tooltip = new vscode.MarkdownString(
        [
          `**${mdText(h.name)}**: ${statusLabel(h.status)}`,
          ...h.evidence.map((ev) => `- ${mdText(ev.text)}${ev.file ? ` (${mdCode(ev.file)})` : ''}`),
          '',
          mdCode(h.path),
        ].join('\n'),
      );
      item.iconPath = statusIcon(h.status);
      item.contextValue = 'host folder';
      item.resourceUri = vscode.Uri.file(node.path);
      return item;
    }
    case 'log': {
      const item = new vscode.TreeItem(node.module, vscode.TreeItemCollapsibleState.None);
      item.id = `log:${node.path}`;
      item.description = `${basename(node.path)} · ${formatBytes(node.size)}`;
      item.iconPath = new vscode.ThemeIcon(node.module === 'exception' ? 'bug' : node.module === 'evaluation' ? 'graph' : 'output');
      item.resourceUri = vscode.Uri.file(node.path);
      item.contextValue = `tokenlog file${node.textLog ? ' hasText' : ''}`;
      item.command = { command: 'agentjet.runs.openLog', title: vscode.l10n.t('Open Token Log'), arguments: [node] };
      return item;
    }
    case 'textlog':
      return pathItem(node.label, false, 'text', node.path, 'file-text', 'textlog file', {
        command: 'vscode.open',
        title: vscode.l10n.t('Open'),
        arguments: [vscode.Uri.file(node.path)],
      });
    case 'trajSplit':
      return pathItem(vscode.l10n.t('trajectories ({0})', node.split), true, 'traj', node.path, 'list-tree', 'folder');
    case 'trajStep':
      return pathItem(vscode.l10n.t('step {0}', node.step), true, 'tstep', node.path, 'folder', 'folder');
    case 'trajFile':
      return pathItem(basename(node.path, '.json'), false, 'tfile', node.path, 'comment-discussion', 'trajectory file', {
        command: 'agentjet.runs.openTrajectory',
        title: vscode.l10n.t('Open Trajectory'),
        arguments: [node],
      });
    case 'checkpoints': {
      const item = pathItem(vscode.l10n.t('checkpoints'), true, 'ckpts', node.path, 'save-all', 'folder');
      item.description = vscode.l10n.t('{0} · last step {1}', node.info.checkpoints.length, node.info.checkpoints.at(-1)?.step ?? '-');
      return item;
    }
    case 'checkpoint':
      return pathItem(`global_step_${node.step}`, false, 'ckpt', node.path, 'save', 'folder');
    case 'tracking': {
      const open = trackingOpenCommand(node.log.logger, node.path);
      const item = pathItem(
        node.log.logger === 'swanlab' ? vscode.l10n.t('SwanLab logs') : vscode.l10n.t('TensorBoard logs'),
        false,
        'track',
        node.path,
        'graph-line',
        'folder tracking',
        { command: 'agentjet.runs.revealInExplorer', title: vscode.l10n.t('Reveal in Explorer'), arguments: [node] },
      );
      item.description = node.log.shared
        ? vscode.l10n.t('{0} · shared by the runs of this project', basename(node.path))
        : basename(node.path);
      item.tooltip = new vscode.MarkdownString(
        [mdCode(node.path), '', vscode.l10n.t('Click to reveal the folder. To browse it: {0}', mdCode(open))].join('\n'),
      );
      return item;
    }
    case 'message': {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.id = `msg:${node.path}`;
      if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon);
      return item;
    }
  }
}

/** A row that stands for a file or folder: id `<prefix>:<path>`, its icon, context and resource. */
function pathItem(
  label: string,
  collapsed: boolean,
  prefix: string,
  path: string,
  icon: string,
  context: string,
  command?: vscode.Command,
): vscode.TreeItem {
  const item = new vscode.TreeItem(label, collapsed ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.id = `${prefix}:${path}`;
  item.iconPath = new vscode.ThemeIcon(icon);
  item.resourceUri = vscode.Uri.file(path);
  item.contextValue = context;
  if (command) item.command = command;
  return item;
}
