// The runs feature: the Runs and Companions views, their actions, live updates (debounced file
// watchers, plus a >= 2 s poll only while something runs) and run dashboards.
import * as vscode from 'vscode';
import { experimentRoots, runsPollIntervalSeconds } from '../settings';
import { homedir, hostname } from 'node:os';
import { basename, dirname, relative, isAbsolute, resolve } from 'node:path';
import { candidateRoots, type RunStatus } from '../../core/runs/discover';
import { stopGroup } from '../../core/runs/companions';
import { STATUSES } from '../../core/runs/format';
import { nodeFs } from '../../core/runs/fs';
import { expDirsFromLaunchConfigs } from '../../core/runs/launch';
import { expandWorkspaceFolder, hasUnresolvedVariable } from '../../core/agentjet/naming';
import { RunsModel } from '../../core/runs/model';
import { rankSources } from '../../core/runs/source';
import { DASHBOARD_VIEW_TYPE } from '../../core/protocol/dashboard';
import { CompanionsProvider, type CompanionNode } from '../runs/companions';
import { DashboardManager } from '../runs/dashboard';
import { RunsTreeProvider, type RunNode, type RunsFilter, type SortKey } from '../runs/tree';
import type { Services } from '../services';

const FILTER_KEY = 'agentjet.runs.filter';
const SORT_KEY = 'agentjet.runs.sort';
const DEBOUNCE_MS = 400;

export interface RunsTreeState {
  roots: string[];
  runs: { name: string; path: string; status?: RunStatus; description: string }[];
  companions: { tag: string; alive?: boolean; description: string }[];
}

export interface RunsTreeItem {
  path: string;
  label: string;
  description: string;
  contextValue: string;
  command?: vscode.Command;
}

/** What the extension-host tests see of the Runs view (on the API, not in the command list). */
export interface RunsProbe {
  /** The Runs view's first level and the Companions view as rendered, once the tree is idle. */
  treeState(): Promise<RunsTreeState>;
  /** The rows under a chain of node paths (experiment, then session, ...), as rendered. */
  treeItems(chain?: string[]): Promise<RunsTreeItem[]>;
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
  const dashboards = new DashboardManager(model, services, () => pickRuns(model));
  context.subscriptions.push(tree, companions, runsView, companionsView, dashboards, vscode.window.registerWebviewPanelSerializer(DASHBOARD_VIEW_TYPE, dashboards));

  const live = new LiveUpdates(model, tree, companions, dashboards, services);
  context.subscriptions.push(live);
  tree.onFirstLoad = () => live.start();
  companions.onFirstLoad = () => live.start();

  const showFilterState = () => {
    const f = tree.getFilter();
    const parts = [f.text ? `“${f.text}”` : '', f.statuses.join(', ')].filter(Boolean);
    runsView.description = parts.length ? `filter: ${parts.join(' · ')}` : tree.getSort() !== 'time' ? `by ${tree.getSort()}` : undefined;
    void vscode.commands.executeCommand('setContext', 'agentjet.runs.filtered', parts.length > 0);
  };
  showFilterState();

  const selection = (node: RunNode | undefined, nodes: readonly RunNode[] | undefined): RunNode[] => {
    if (nodes?.length) return [...nodes];
    if (node) return [node];
    return [...runsView.selection];
  };
  const experimentOf = (n: RunNode | undefined): (RunNode & { kind: 'experiment' }) | undefined => {
    let cur: RunNode | undefined = n;
    while (cur && cur.kind !== 'experiment') cur = cur.parent;
    return cur?.kind === 'experiment' ? cur : undefined;
  };
  const needTrust = (what: string): boolean => {
    if (services.isTrusted()) return true;
    void vscode.window.showWarningMessage(`AgentJet: ${what} needs a trusted workspace.`);
    return false;
  };

  const reg = (id: string, fn: (...args: never[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn as (...args: unknown[]) => unknown));

  reg('agentjet.runs.refresh', () => { model.reset(); tree.refreshAll(); companions.refresh(); });
  reg('agentjet.runs.filter', async (given?: Partial<RunsFilter>) => {
    if (given && typeof given === 'object' && ('text' in given || 'statuses' in given)) {
      // Programmatic use (other features, tests): apply without asking.
      const next: RunsFilter = { text: typeof given.text === 'string' ? given.text : '', statuses: (given.statuses ?? []).filter((x) => STATUSES.includes(x)) };
      await context.workspaceState.update(FILTER_KEY, next);
      tree.setFilter(next);
      showFilterState();
      return;
    }
    const current = tree.getFilter();
    const text = await vscode.window.showInputBox({ title: 'Filter runs (1/2): text', prompt: 'Part of the experiment or project name; empty for all', value: current.text });
    if (text === undefined) return;
    const picks = await vscode.window.showQuickPick(STATUSES.map((s) => ({ label: s, picked: current.statuses.includes(s) })), { title: 'Filter runs (2/2): status', canPickMany: true, placeHolder: 'None picked: every status' });
    if (picks === undefined) return;
    const next: RunsFilter = { text, statuses: picks.map((p) => p.label) };
    await context.workspaceState.update(FILTER_KEY, next);
    tree.setFilter(next);
    showFilterState();
  });
  reg('agentjet.runs.clearFilter', async () => {
    const next: RunsFilter = { text: '', statuses: [] };
    await context.workspaceState.update(FILTER_KEY, next);
    tree.setFilter(next);
    showFilterState();
  });
  reg('agentjet.runs.sort', async (key?: SortKey) => {
    const choice = key ?? (await vscode.window.showQuickPick(
      [{ label: 'time', description: 'newest first' }, { label: 'name', description: 'A to Z' }, { label: 'reward', description: 'highest latest mean reward first' }],
      { title: 'Sort runs by' },
    ))?.label as SortKey | undefined;
    if (!choice || !['time', 'name', 'reward'].includes(choice)) return;
    await context.workspaceState.update(SORT_KEY, choice);
    tree.setSort(choice);
    showFilterState();
  });

  reg('agentjet.runs.openLog', async (n?: RunNode | vscode.Uri) => {
    const uri = n instanceof vscode.Uri ? n : n ? vscode.Uri.file(n.path) : undefined;
    if (uri) await openWith('agentjet.openTokenLog', uri, services);
  });
  reg('agentjet.runs.openTextLog', async (n?: RunNode) => {
    const p = n?.kind === 'log' ? n.textLog : n?.path;
    if (p) await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(p));
  });
  reg('agentjet.runs.openTrajectory', async (n?: RunNode | vscode.Uri) => {
    const uri = n instanceof vscode.Uri ? n : n ? vscode.Uri.file(n.path) : undefined;
    if (uri) await openWith('agentjet.openTrajectory', uri, services);
  });
  reg('agentjet.runs.openSnapshot', async (n?: RunNode) => {
    const snap = snapshotOf(n, experimentOf);
    if (snap) await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(snap));
    else void vscode.window.showInformationMessage('AgentJet: this run has no config snapshot (yaml_backup.yaml).');
  });
  reg('agentjet.runs.compareWithSource', async (n?: RunNode) => {
    const exp = experimentOf(n ?? runsView.selection[0]);
    const snap = snapshotOf(n, experimentOf);
    if (!exp || !snap) { void vscode.window.showInformationMessage('AgentJet: pick a run with a config snapshot.'); return; }
    const source = await findSourceConfig(exp.entry.name, snap);
    if (!source) return;
    await vscode.commands.executeCommand('vscode.diff', source, vscode.Uri.file(snap), `${basename(source.fsPath)} ↔ ${exp.entry.name} snapshot`);
  });
  reg('agentjet.runs.compareConfigs', async (n?: RunNode, nodes?: RunNode[]) => {
    let exps = selection(n, nodes).map(experimentOf).filter((e): e is RunNode & { kind: 'experiment' } => !!e && !!e.entry.snapshot);
    exps = [...new Map(exps.map((e) => [e.path, e])).values()];
    if (exps.length === 1) {
      const others = (await model.experiments()).filter((e) => e.snapshot && e.path !== exps[0]!.path);
      const pick = await vscode.window.showQuickPick(others.map((e) => ({ label: e.name, description: e.root, path: e.path })), { title: `Compare ${exps[0]!.entry.name}'s config with` });
      const other = pick && others.find((e) => e.path === pick.path);
      if (!other) return;
      exps.push({ kind: 'experiment', path: other.path, entry: other });
    }
    if (exps.length !== 2) { void vscode.window.showInformationMessage('AgentJet: select two runs (Ctrl/Cmd+click) to compare their configs.'); return; }
    const [a, b] = exps as [RunNode & { kind: 'experiment' }, RunNode & { kind: 'experiment' }];
    await vscode.commands.executeCommand('vscode.diff', vscode.Uri.file(a.entry.snapshot!), vscode.Uri.file(b.entry.snapshot!), `${a.entry.name} ↔ ${b.entry.name} (config)`);
  });
  const launchAgain = async (target: 'agentjet.debugConfig' | 'agentjet.trainConfig', n?: RunNode) => {
    if (!needTrust('launching a run')) return;
    const snap = snapshotOf(n ?? runsView.selection[0], experimentOf);
    if (!snap) return;
    const extra: string[] = [];
    if (target === 'agentjet.trainConfig') {
      const pick = await vscode.window.showQuickPick(['verl', 'trinity'], { title: 'Train again with which backbone?' });
      if (!pick) return;
      extra.push(pick);
    }
    try {
      await vscode.commands.executeCommand(target, vscode.Uri.file(snap), ...extra);
    } catch (err) {
      const missing = /command .* not found/i.test(String(err));
      void vscode.window.showWarningMessage(missing ? `AgentJet: ${target} is not available in this build.` : `AgentJet: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  reg('agentjet.runs.debugAgain', (n?: RunNode) => launchAgain('agentjet.debugConfig', n));
  reg('agentjet.runs.trainAgain', (n?: RunNode) => launchAgain('agentjet.trainConfig', n));
  reg('agentjet.runs.revealInExplorer', async (n?: RunNode) => {
    const target = n ?? runsView.selection[0];
    if (!target) return;
    const uri = vscode.Uri.file(target.path.replace(/#.*$/, ''));
    const inWorkspace = vscode.workspace.getWorkspaceFolder(uri) !== undefined;
    await vscode.commands.executeCommand(inWorkspace ? 'revealInExplorer' : 'revealFileInOS', uri);
  });
  reg('agentjet.runs.copyPath', async (n?: RunNode, nodes?: RunNode[]) => {
    const paths = selection(n, nodes).map((x) => x.path).filter((p) => !p.includes('#'));
    if (paths.length) await vscode.env.clipboard.writeText(paths.join('\n'));
  });
  reg('agentjet.runs.delete', async (n?: RunNode, nodes?: RunNode[]) => {
    if (!needTrust('deleting a run')) return;
    const exps = [...new Map(selection(n, nodes).map(experimentOf).filter((e): e is RunNode & { kind: 'experiment' } => !!e).map((e) => [e.path, e])).values()];
    if (!exps.length) return;
    const running = exps.filter((e) => model.cachedInfo(e.path)?.status === 'running');
    const what = exps.length === 1 ? `run “${exps[0]!.entry.name}”` : `${exps.length} runs`;
    const answer = await vscode.window.showWarningMessage(
      `Delete the ${what}?`,
      { modal: true, detail: `${exps.map((e) => e.path).join('\n')}\n\nThe folder${exps.length > 1 ? 's go' : ' goes'} to the trash where the system has one. Checkpoints under saved_checkpoints are kept.${running.length ? `\n\n${running.length} of them still run${running.length === 1 ? 's' : ''}.` : ''}` },
      'Move to Trash',
    );
    if (answer !== 'Move to Trash') return;
    for (const e of exps) {
      const uri = vscode.Uri.file(e.path);
      try {
        await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: true });
      } catch (err) {
        const again = await vscode.window.showWarningMessage(`No trash for ${e.entry.name} (${err instanceof Error ? err.message : String(err)}). Delete it permanently?`, { modal: true }, 'Delete Permanently');
        if (again !== 'Delete Permanently') continue;
        try { await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: false }); } catch (err2) {
          void vscode.window.showErrorMessage(`AgentJet: could not delete ${e.path}: ${err2 instanceof Error ? err2.message : String(err2)}`);
          continue;
        }
      }
      model.invalidate(e.path);
    }
    tree.refreshAll();
  });
  reg('agentjet.runs.openDashboard', async (n?: RunNode | vscode.Uri | string, nodes?: RunNode[]) => {
    // Other features and tests may pass the experiment folder as a Uri or a path.
    if (n instanceof vscode.Uri || typeof n === 'string') { dashboards.show([typeof n === 'string' ? n : n.fsPath]); return; }
    const fromTree = n !== undefined || (nodes?.length ?? 0) > 0;
    let paths = [...new Set(selection(n, nodes).map(experimentOf).filter((e): e is RunNode & { kind: 'experiment' } => !!e).map((e) => e.path))];
    if (!paths.length) paths = await pickRuns(model);
    // From the Runs view the focus stays there (the next right-click is not disturbed when the page loads).
    if (paths.length) dashboards.show(paths, { preserveFocus: fromTree });
  });
  reg('agentjet.runs.reveal', async (fsPath?: string) => {
    if (typeof fsPath !== 'string' || !fsPath) return false;
    await vscode.commands.executeCommand('agentjet.runs.focus');
    let node = tree.experimentNode(fsPath);
    if (!node) {
      // A run that appeared since the last read: make sure the model knows its root.
      model.invalidate(fsPath);
      await tree.getChildren();
      node = tree.experimentNode(fsPath);
    }
    if (!node) {
      void vscode.window.showInformationMessage(`AgentJet: ${fsPath} is not an experiment under the configured roots (setting agentjet.experimentRoots).`);
      return false;
    }
    await runsView.reveal(node, { select: true, focus: true, expand: false });
    return true;
  });
  const treeState = async (): Promise<RunsTreeState> => {
    const top = await tree.getChildren();
    await tree.whenIdle();
    const comp = await companions.getChildren();
    return {
      roots: (await model.roots()).map((r) => r.path),
      runs: top.filter((t): t is RunNode & { kind: 'experiment' } => t.kind === 'experiment').map((t) => tree.describe(t)),
      companions: comp.flatMap((n) => (n.kind === 'companion' ? [{ ...(n.companion.alive === undefined ? {} : { alive: n.companion.alive }), tag: n.companion.tag, description: String(companions.getTreeItem(n).description ?? '') }] : [])),
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
      const label = typeof item.label === 'string' ? item.label : item.label?.label ?? '';
      const out: RunsTreeItem = { path: n.path, label, description: String(item.description ?? ''), contextValue: item.contextValue ?? '' };
      if (item.command) out.command = item.command;
      return out;
    });
  };

  reg('agentjet.companions.refresh', () => companions.refresh());
  reg('agentjet.companions.openLog', async (n?: CompanionNode) => {
    if (n?.kind === 'companion' && n.companion.log) await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(n.companion.log));
  });
  reg('agentjet.companions.stop', async (n?: CompanionNode) => {
    if (!needTrust('stopping a process')) return;
    if (n?.kind !== 'companion' || n.companion.pgid === undefined) return;
    const c = n.companion;
    const answer = await vscode.window.showWarningMessage(`Stop ${c.tag} (process group ${c.pgid})?`, { modal: true, detail: `Every process in the group gets SIGTERM, then SIGKILL after 3 s.\nThe next debug launch starts it again (${c.id}).` }, 'Stop');
    if (answer !== 'Stop') return;
    const result = await stopGroup(c.pgid!);
    void vscode.window.showInformationMessage(`AgentJet: ${c.tag} ${result === 'gone' ? 'was not running' : result === 'killed' ? 'did not stop on SIGTERM and was killed' : 'stopped'}.`);
    companions.refresh();
  });

  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('agentjet.experimentRoots') || e.affectsConfiguration('launch')) live.restart();
  }), vscode.workspace.onDidChangeWorkspaceFolders(() => live.restart()));
  return { treeState, treeItems };
}

function snapshotOf(n: RunNode | undefined, experimentOf: (n: RunNode | undefined) => (RunNode & { kind: 'experiment' }) | undefined): string | undefined {
  if (n?.kind === 'snapshot') return n.path;
  return experimentOf(n)?.entry.snapshot;
}

/** Opens `uri` with another feature's command, or as a plain file when that command is missing. */
async function openWith(command: string, uri: vscode.Uri, services: Services): Promise<void> {
  const all = await vscode.commands.getCommands(true);
  if (all.includes(command)) {
    try {
      await vscode.commands.executeCommand(command, uri);
      return;
    } catch (err) {
      services.log.warn(`${command} failed (${err instanceof Error ? err.message : String(err)}); opening as text`);
    }
  }
  await vscode.commands.executeCommand('vscode.open', uri);
}

async function pickRuns(model: RunsModel): Promise<string[]> {
  const entries = await model.experiments();
  const picks = await vscode.window.showQuickPick(entries.map((e) => ({ label: e.name, description: model.cachedInfo(e.path)?.status ?? '', detail: e.path, path: e.path })), { canPickMany: true, title: 'Runs to show on the dashboard' });
  return (picks ?? []).map((p) => p.path);
}

/** The workspace config a snapshot came from: the clear winner, else the user's pick. */
async function findSourceConfig(experiment: string, snapshot: string): Promise<vscode.Uri | undefined> {
  const files = await vscode.workspace.findFiles('**/*.{yaml,yml}', '{**/node_modules/**,**/saved_experiments/**,**/launcher_record/**,**/saved_checkpoints/**,**/.git/**}', 500);
  const dec = new TextDecoder();
  const read = async (u: vscode.Uri) => { try { return dec.decode(await vscode.workspace.fs.readFile(u)); } catch { return ''; } };
  const snapText = await read(vscode.Uri.file(snapshot));
  const candidates = await Promise.all(files.map(async (u) => ({ path: u.fsPath, text: await read(u) })));
  const { ranked, best } = rankSources(experiment, snapText, candidates);
  if (best) return vscode.Uri.file(best);
  const rankedSet = new Set(ranked.map((r) => r.path));
  const items = [
    ...ranked.map((r) => ({ label: vscode.workspace.asRelativePath(r.path), description: 'same project', path: r.path })),
    ...files.filter((f) => !rankedSet.has(f.fsPath)).map((f) => ({ label: vscode.workspace.asRelativePath(f), description: '', path: f.fsPath })),
  ];
  if (!items.length) { void vscode.window.showInformationMessage('AgentJet: no YAML config in the workspace to compare with.'); return undefined; }
  const pick = await vscode.window.showQuickPick(items, { title: `Which config started ${experiment}?` });
  return pick ? vscode.Uri.file(pick.path) : undefined;
}

/** File watchers on the experiment roots (debounced) and a slow poll while anything runs. */
class LiveUpdates implements vscode.Disposable {
  private watchers: vscode.Disposable[] = [];
  private started = false;
  private changed = new Set<string>();
  private debounce: ReturnType<typeof setTimeout> | undefined;
  private poll: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly model: RunsModel, private readonly tree: RunsTreeProvider, private readonly companions: CompanionsProvider, private readonly dashboards: DashboardManager, private readonly services: Services) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.configure();
    // Rows that just learned they are running start the liveness poll.
    this.subs.push(this.tree.onDidChangeTreeData(() => this.schedulePoll()), this.companions.onDidChangeTreeData(() => this.schedulePoll()));
  }

  private readonly subs: vscode.Disposable[] = [];

  restart(): void {
    if (!this.started) return;
    this.configure();
    this.model.reset();
    this.tree.refreshAll();
    this.companions.refresh();
  }

  private pollSeconds(): number {
    return runsPollIntervalSeconds();
  }

  private configure(): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = [];
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    const configured = experimentRoots();
    const named = Object.fromEntries((vscode.workspace.workspaceFolders ?? []).map((f) => [f.name, f.uri.fsPath]));
    // Each folder's launch configurations name roots relative to that folder (their default cwd).
    const launchDirs = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').flatMap((f) =>
      expDirsFromLaunchConfigs(vscode.workspace.getConfiguration('launch', f.uri).get<unknown[]>('configurations'))
        .map((d) => expandWorkspaceFolder(d, f.uri.fsPath, named, homedir()))
        .filter((d) => !hasUnresolvedVariable(d))
        .map((d) => resolve(f.uri.fsPath, d)));
    const roots = candidateRoots(folders, configured, launchDirs);
    this.model.setRoots(roots);
    const onEvent = (uri: vscode.Uri) => this.onChange(uri.fsPath);
    const watch = (pattern: vscode.RelativePattern) => {
      const w = vscode.workspace.createFileSystemWatcher(pattern);
      this.watchers.push(w, w.onDidCreate(onEvent), w.onDidChange(onEvent), w.onDidDelete(onEvent));
    };
    for (const f of vscode.workspace.workspaceFolders ?? []) watch(new vscode.RelativePattern(f, '{saved_experiments,launcher_record}/**'));
    // Roots outside the default places get a watcher each (RelativePattern on a folder outside the workspace works too).
    for (const r of roots) {
      if (r.source === 'saved_experiments' || r.source === 'launcher_record') continue;
      const inFolder = folders.some((f) => { const rel = relative(f, r.path); return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && /^(saved_experiments|launcher_record)([\\/]|$)/.test(rel); });
      if (!inFolder) watch(new vscode.RelativePattern(vscode.Uri.file(r.path), '**'));
      // Its parent too, so that a root created later is noticed.
      if (!inFolder) watch(new vscode.RelativePattern(vscode.Uri.file(dirname(r.path)), basename(r.path)));
    }
    this.services.log.info(`runs: watching ${roots.length} candidate roots`);
    this.schedulePoll();
  }

  private onChange(path: string): void {
    this.changed.add(path);
    this.debounce ??= setTimeout(() => this.flush(), DEBOUNCE_MS);
  }

  private flush(): void {
    this.debounce = undefined;
    const paths = [...this.changed];
    this.changed.clear();
    let all = false;
    let comp = false;
    const exps = new Set<string>();
    for (const p of paths) {
      const inv = this.model.invalidate(p);
      // A new session or snapshot changes the row's order and children: re-render the list.
      if (inv.level === 'roots' || inv.level === 'root' || (inv.level === 'experiment' && inv.entry)) all = true;
      if (inv.level === 'experiment') exps.add(inv.experiment);
      else if (inv.level === 'companions') comp = true;
      this.dashboards.touch(p);
    }
    for (const e of exps) this.tree.forgetSize(e);
    if (all) this.tree.refreshAll();
    else for (const e of exps) this.tree.refreshExperiment(e);
    if (comp) this.companions.refresh();
    this.schedulePoll();
  }

  /** Liveness has no file event (a process can die without removing its lock): poll, slowly, only while needed. */
  private schedulePoll(): void {
    if (this.poll) return;
    this.poll = setTimeout(() => {
      this.poll = undefined;
      const running = this.model.runningPaths();
      for (const p of running) { this.model.forgetInfo(p); this.tree.refreshExperiment(p); }
      if (this.companions.anyAlive()) this.companions.refresh();
      if (running.length || this.companions.anyAlive()) this.schedulePoll();
    }, this.pollSeconds() * 1000);
  }

  dispose(): void {
    for (const w of this.watchers) w.dispose();
    for (const s of this.subs) s.dispose();
    if (this.debounce) clearTimeout(this.debounce);
    if (this.poll) clearTimeout(this.poll);
  }
}
