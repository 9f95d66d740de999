// The runs feature: the Runs and Companions views, run dashboards, and the Runs service other
// features use. Commands are ./commands.ts, live updates (watchers and the liveness poll) ./live.ts.
import * as vscode from 'vscode';
import { hostname } from 'node:os';
import type { RunStatus } from '../../core/runs/discover';
import { nodeFs } from '../../core/fs/seam';
import { RunsModel } from '../../core/runs/model';
import { DASHBOARD_VIEW_TYPE, type RunMetricsInfo } from '../../core/protocol/dashboard';
import { CompanionsProvider } from './companions';
import { DashboardManager } from './dashboard';
import { RunsTreeProvider, type RunNode, type RunsFilter, type SortKey } from './tree';
import { FILTER_KEY, SORT_KEY, pickRuns, registerRunsCommands } from './commands';
import { LiveUpdates } from './live';
import { registerStacksCommand } from './stacks';
import type { Services } from '../services';

export interface RunsTreeState {
  roots: string[];
  runs: {
    name: string;
    path: string;
    status?: RunStatus;
    /** A running run's health state (`stalled`, `progressing`, ...). */
    health?: string;
    /** The row's icon id. */
    icon?: string;
    label: string;
    description: string;
    tooltip: string;
  }[];
  companions: { tag: string; alive?: boolean; description: string }[];
}

export interface RunsTreeItem {
  path: string;
  label: string;
  description: string;
  /** The tooltip's text (Markdown source when it is Markdown). */
  tooltip: string;
  contextValue: string;
  command?: vscode.Command;
}

/** What the extension-host tests see of the Runs view (on the API, not in the command list). */
export interface RunsProbe {
  /** The Runs view's first level and the Companions view as rendered, once the tree is idle. */
  treeState(): Promise<RunsTreeState>;
  /** The rows under a chain of node paths (experiment, then session, ...), as rendered. */
  treeItems(chain?: string[]): Promise<RunsTreeItem[]>;
  /** The training metrics of every open dashboard's runs, as their pages last got them. */
  dashboardMetrics(): RunMetricsInfo[];
}

export function registerRunsFeature(context: vscode.ExtensionContext, services: Services): RunsProbe {
  // Nothing below reads the disk until a view asks for its first level.
  const model = new RunsModel(nodeFs(), { localHost: hostname() });
  const filter = context.workspaceState.get<RunsFilter>(FILTER_KEY) ?? { text: '', statuses: [] };
  const sort = context.workspaceState.get<SortKey>(SORT_KEY) ?? 'time';
  const tree = new RunsTreeProvider(model, filter, sort, services.log);
  const companions = new CompanionsProvider(model);
  const runsView = vscode.window.createTreeView('agentjet.runs', { treeDataProvider: tree, canSelectMany: true, showCollapseAll: true });
  const companionsView = vscode.window.createTreeView('agentjet.companions', { treeDataProvider: companions });
  const dashboards = new DashboardManager(model, services, () => pick());
  context.subscriptions.push(
    tree,
    companions,
    runsView,
    companionsView,
    dashboards,
    vscode.window.registerWebviewPanelSerializer(DASHBOARD_VIEW_TYPE, dashboards),
  );

  const live = new LiveUpdates(model, tree, companions, dashboards, services);
  context.subscriptions.push(live);
  // A command can ask before any view did: the roots are configured first, else the list is empty.
  const pick = (): Promise<string[]> => {
    live.start();
    return pickRuns(model);
  };
  tree.onFirstLoad = () => live.start();
  dashboards.beforeRestore = () => live.start();
  companions.onFirstLoad = () => live.start();

  const showFilterState = () => {
    const f = tree.getFilter();
    const parts = [f.text ? `“${f.text}”` : '', f.statuses.join(', ')].filter(Boolean);
    runsView.description = parts.length
      ? vscode.l10n.t('filter: {0}', parts.join(' · '))
      : tree.getSort() !== 'time'
        ? vscode.l10n.t('by {0}', tree.getSort())
        : undefined;
    void vscode.commands.executeCommand('setContext', 'agentjet.runs.filtered', parts.length > 0);
  };
  showFilterState();

  const runs = registerRunsCommands({ context, services, model, tree, companions, runsView, dashboards, showFilterState, pickRuns: pick });
  registerStacksCommand(context, services, model, () => live.start());
  services.provide('runs', {
    ...runs,
    // What the view shows (or would, once opened): the same candidate roots, the watchers started with them.
    roots: async () => {
      live.start();
      return (await model.roots()).map((r) => r.path);
    },
    launchChanged: (folder) => live.launchChanged(folder),
  });

  const treeState = async (): Promise<RunsTreeState> => {
    const top = await tree.getChildren();
    await tree.whenIdle();
    const comp = await companions.getChildren();
    return {
      roots: (await model.roots()).map((r) => r.path),
      runs: top.filter((t): t is RunNode & { kind: 'experiment' } => t.kind === 'experiment').map((t) => tree.describe(t)),
      companions: comp.flatMap((n) =>
        n.kind === 'companion'
          ? [
              {
                ...(n.companion.alive === undefined ? {} : { alive: n.companion.alive }),
                tag: n.companion.tag,
                description: String(companions.getTreeItem(n).description ?? ''),
              },
            ]
          : [],
      ),
    };
  };
  const treeItems = async (chain: string[] = []): Promise<RunsTreeItem[]> => {
    let level = await tree.getChildren();
    for (const p of chain) {
      const next = level.find((n) => n.path === p);
      if (!next) return [];
      level = await tree.getChildren(next);
    }
    return level.map((n) => {
      const item = tree.getTreeItem(n);
      const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
      const out: RunsTreeItem = {
        path: n.path,
        label,
        description: String(item.description ?? ''),
        // A run's tooltip may wait for the pointer (resolveTreeItem): the testing view has it whole.
        tooltip: n.kind === 'experiment' && item.tooltip === undefined ? tree.describe(n).tooltip : tooltipText(item.tooltip),
        contextValue: item.contextValue ?? '',
      };
      if (item.command) out.command = item.command;
      return out;
    });
  };

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('agentjet.experimentRoots') || e.affectsConfiguration('launch')) live.restart();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => live.restart()),
  );
  return { treeState, treeItems, dashboardMetrics: () => [...dashboards.open].flatMap((d) => d.metrics.runsInfo()) };
}

function tooltipText(t: vscode.TreeItem['tooltip']): string {
  return t === undefined ? '' : typeof t === 'string' ? t : t.value;
}
