// The Companions view: helper processes (vLLM server, logview, ...) the debug backbone leaves
// running, with their log and a Stop action.
import * as vscode from 'vscode';
import { listCompanions, type Companion } from '../../core/runs/companions';
import { formatAge } from '../../core/runs/format';
import type { RunsModel } from '../../core/runs/model';

export type CompanionNode = { kind: 'companion'; companion: Companion; root: string } | { kind: 'message'; text: string };

export class CompanionsProvider implements vscode.TreeDataProvider<CompanionNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<CompanionNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private last: Companion[] = [];
  onFirstLoad: (() => void) | undefined;
  private loaded = false;

  constructor(private readonly model: RunsModel) {}

  dispose(): void {
    this.changed.dispose();
  }
  refresh(): void {
    this.changed.fire(undefined);
  }

  /** Live companions seen on the last read (the poll keeps going while any is alive). */
  anyAlive(): boolean {
    return this.last.some((c) => c.alive);
  }
  current(): readonly Companion[] {
    return this.last;
  }

  /**
   * The liveness poll: reads the companions again and redraws the view only when a row would look
   * different. A redraw every poll made VS Code give the focus back to the view each time, closing
   * a context menu opened just before it (Stop Companion).
   */
  async poll(): Promise<void> {
    const drawn = this.rendered(this.last);
    const now = await this.read();
    if (this.rendered(now) !== drawn) this.refresh();
  }

  private rendered(list: readonly Companion[]): string {
    return list
      .map((c) => {
        const item = this.getTreeItem({ kind: 'companion', companion: c, root: '' });
        return [item.label, item.description, item.contextValue, item.tooltip].map(String).join('\t');
      })
      .join('\n');
  }

  async getChildren(node?: CompanionNode): Promise<CompanionNode[]> {
    if (node) return [];
    if (!this.loaded) {
      this.loaded = true;
      this.onFirstLoad?.();
    }
    return (await this.readNodes()).nodes;
  }

  private async read(): Promise<Companion[]> {
    return (await this.readNodes()).all;
  }

  private async readNodes(): Promise<{ nodes: CompanionNode[]; all: Companion[] }> {
    const roots = await this.model.roots();
    const out: CompanionNode[] = [];
    const all: Companion[] = [];
    for (const r of roots) {
      for (const c of await listCompanions(
        this.model.fs,
        r.path,
        this.model.opts.localHost ? { localHost: this.model.opts.localHost } : {},
      )) {
        all.push(c);
        out.push({ kind: 'companion', companion: c, root: r.path });
      }
    }
    this.last = all;
    return { nodes: out, all };
  }

  getTreeItem(node: CompanionNode): vscode.TreeItem {
    if (node.kind === 'message') return new vscode.TreeItem(node.text);
    const c = node.companion;
    const item = new vscode.TreeItem(c.tag, vscode.TreeItemCollapsibleState.None);
    item.id = `companion:${c.pgidFile}`;
    const state =
      c.alive === true
        ? vscode.l10n.t('running')
        : c.alive === false
          ? vscode.l10n.t('stopped')
          : c.pgid === undefined
            ? vscode.l10n.t('unreadable pgid')
            : vscode.l10n.t('on {0}', c.host ?? vscode.l10n.t('another host'));
    item.description = [state, c.pgid !== undefined ? `pgid ${c.pgid}` : undefined, c.host, formatAge(c.startedMs)]
      .filter(Boolean)
      .join(' · ');
    item.iconPath = c.alive
      ? new vscode.ThemeIcon('vm-running', new vscode.ThemeColor('charts.green'))
      : new vscode.ThemeIcon('vm-outline', new vscode.ThemeColor('disabledForeground'));
    item.tooltip = `${c.id}\n${vscode.l10n.t('process group {0} — {1}', c.pgid ?? '?', state)}\n${c.pgidFile}`;
    item.contextValue = `companion${c.alive ? ' alive' : ''}${c.log ? ' hasLog' : ''}`;
    if (c.log) item.command = { command: 'agentjet.companions.openLog', title: vscode.l10n.t('Open Log'), arguments: [node] };
    return item;
  }
}
