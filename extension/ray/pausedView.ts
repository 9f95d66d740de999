// The "Paused workers" view: Ray workers waiting in Ray's debugger, from every source (session logs
// of a launch, the state API of a dashboard). One row per listener.
import * as vscode from 'vscode';
import { listenerAddress, waitedFor, type PausedWorker } from '../../core/ray/types';

export class PausedWorkersView implements vscode.TreeDataProvider<PausedWorker>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<PausedWorker | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly bySource = new Map<string, PausedWorker[]>();
  /** Kind and tag learnt after attaching (the log alone cannot tell a bp() from a post-mortem). */
  private readonly learnt = new Map<string, Pick<PausedWorker, 'kind' | 'tag'>>();
  private note: string | undefined;

  /** Replaces what one source (a session folder, a dashboard) reports. */
  set(source: string, workers: readonly PausedWorker[]): void {
    if (workers.length) this.bySource.set(source, [...workers]);
    else this.bySource.delete(source);
    this.changed.fire(undefined);
  }

  setNote(note: string | undefined): void {
    if (note !== this.note) {
      this.note = note;
      this.changed.fire(undefined);
    }
  }

  learn(host: string, port: number, what: Pick<PausedWorker, 'kind' | 'tag'>): void {
    this.learnt.set(`${host}:${port}`, what);
    this.changed.fire(undefined);
  }

  /** Every paused worker, one per listener (the log wins over the state API: it knows the name sooner). */
  all(): PausedWorker[] {
    const seen = new Map<string, PausedWorker>();
    for (const list of this.bySource.values()) {
      for (const w of list) {
        const key = `${w.host}:${w.port}`;
        const prev = seen.get(key);
        const learnt = this.learnt.get(key);
        const merged = { ...w, ...(learnt ?? {}), name: w.name ?? prev?.name };
        if (!prev || (prev.source !== 'log' && w.source === 'log')) seen.set(key, merged);
      }
    }
    return [...seen.values()].sort((a, b) => a.since - b.since);
  }

  getTreeItem(w: PausedWorker): vscode.TreeItem {
    const label = w.name ?? vscode.l10n.t('worker {0}', String(w.pid ?? w.workerId ?? '?'));
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    const why =
      w.kind === 'post-mortem'
        ? vscode.l10n.t('post-mortem')
        : w.tag
          ? vscode.l10n.t('tag {0}', w.tag)
          : w.kind === 'breakpoint'
            ? vscode.l10n.t('breakpoint')
            : w.kind === 'attached'
              ? vscode.l10n.t('attached (editor breakpoints)')
              : vscode.l10n.t('paused');
    item.description = [
      why,
      w.node && w.node !== w.host ? w.node.slice(0, 8) : w.host,
      w.pid ? `pid ${w.pid}` : undefined,
      waitedFor(w.since),
    ]
      .filter(Boolean)
      .join(' · ');
    const md = new vscode.MarkdownString();
    md.appendText(
      w.kind === 'attached'
        ? vscode.l10n.t(
            "{0} {1}: the debugger is attached at {2} and stops at the editor's breakpoints",
            w.role === 'actor' ? vscode.l10n.t('Actor') : vscode.l10n.t('Task'),
            label,
            listenerAddress(w),
          )
        : vscode.l10n.t(
            '{0} {1} waits for a debugger at {2}',
            w.role === 'actor' ? vscode.l10n.t('Actor') : vscode.l10n.t('Task'),
            label,
            listenerAddress(w),
          ),
    );
    md.appendMarkdown('\n\n');
    md.appendText(vscode.l10n.t('Since {0} ({1}). Found in {2}.', new Date(w.since).toLocaleTimeString(), waitedFor(w.since), w.origin));
    item.tooltip = md;
    item.iconPath = new vscode.ThemeIcon(
      w.kind === 'post-mortem' ? 'bug' : w.kind === 'attached' ? 'debug-alt' : 'debug-pause',
      new vscode.ThemeColor(w.kind === 'post-mortem' ? 'testing.iconFailed' : 'debugIcon.pauseForeground'),
    );
    item.contextValue = 'rayPausedWorker';
    item.id = w.id;
    item.command = { command: 'agentjet.ray.attach', title: vscode.l10n.t('Attach'), arguments: [w] };
    return item;
  }

  getChildren(el?: PausedWorker): PausedWorker[] {
    if (el) return [];
    return this.all();
  }

  get message(): string | undefined {
    return this.note;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
