// The Runs feature's commands: filter and sort, open and compare, launch again, delete, reveal,
// dashboards, and the Companions view's actions.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { stopGroup } from '../../core/runs/companions';
import { STATUSES } from '../../core/runs/format';
import type { RunsModel } from '../../core/runs/model';
import { rankSources } from '../../core/runs/source';
import type { CompanionNode, CompanionsProvider } from './companions';
import type { DashboardManager } from './dashboard';
import type { RunNode, RunsFilter, RunsTreeProvider, SortKey } from './tree';
import type { RunsService, Services } from '../services';

export const FILTER_KEY = 'agentjet.runs.filter';
export const SORT_KEY = 'agentjet.runs.sort';

/** What the commands work on, made by registerRunsFeature. */
export interface RunsParts {
  readonly context: vscode.ExtensionContext;
  readonly services: Services;
  readonly model: RunsModel;
  readonly tree: RunsTreeProvider;
  readonly companions: CompanionsProvider;
  readonly runsView: vscode.TreeView<RunNode>;
  readonly dashboards: DashboardManager;
  /** Shows the filter and sort on the view's description. */
  readonly showFilterState: () => void;
  /** Asks which runs to show (the roots configured first, even when the Runs view was never opened). */
  readonly pickRuns: () => Promise<string[]>;
}

/** Registers the Runs and Companions commands; returns the Runs service they share with other features. */
export function registerRunsCommands(parts: RunsParts): Omit<RunsService, 'roots' | 'launchChanged'> {
  const { context, services, model, tree, companions, runsView, dashboards, showFilterState, pickRuns } = parts;
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
    return services.trust.require('run-process', vscode.l10n.t('AgentJet: {0} needs a trusted workspace.', what));
  };

  const reg = (id: string, fn: (...args: never[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, fn as (...args: unknown[]) => unknown));

  reg('agentjet.runs.refresh', () => {
    model.reset();
    tree.refreshAll();
    companions.refresh();
  });
  reg('agentjet.runs.filter', async (given?: Partial<RunsFilter>) => {
    if (given && typeof given === 'object' && ('text' in given || 'statuses' in given)) {
      // Programmatic use (other features, tests): apply without asking.
      const next: RunsFilter = {
        text: typeof given.text === 'string' ? given.text : '',
        statuses: (given.statuses ?? []).filter((x) => STATUSES.includes(x)),
      };
      await context.workspaceState.update(FILTER_KEY, next);
      tree.setFilter(next);
      showFilterState();
      return;
    }
    const current = tree.getFilter();
    const text = await vscode.window.showInputBox({
      title: vscode.l10n.t('Filter runs (1/2): text'),
      prompt: vscode.l10n.t('Part of the experiment or project name; empty for all'),
      value: current.text,
    });
    if (text === undefined) return;
    const picks = await vscode.window.showQuickPick(
      STATUSES.map((s) => ({ label: s, picked: current.statuses.includes(s) })),
      { title: vscode.l10n.t('Filter runs (2/2): status'), canPickMany: true, placeHolder: vscode.l10n.t('None picked: every status') },
    );
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
    const choice =
      key ??
      ((
        await vscode.window.showQuickPick(
          [
            { label: 'time', description: vscode.l10n.t('newest first') },
            { label: 'name', description: vscode.l10n.t('A to Z') },
            { label: 'reward', description: vscode.l10n.t('highest latest mean reward first') },
          ],
          { title: vscode.l10n.t('Sort runs by') },
        )
      )?.label as SortKey | undefined);
    if (!choice || !['time', 'name', 'reward'].includes(choice)) return;
    await context.workspaceState.update(SORT_KEY, choice);
    tree.setSort(choice);
    showFilterState();
  });

  reg('agentjet.runs.openLog', async (n?: RunNode | vscode.Uri) => {
    const uri = n instanceof vscode.Uri ? n : n ? vscode.Uri.file(n.path) : undefined;
    if (uri) await services.get('logs').openTokenLog(uri);
  });
  reg('agentjet.runs.openTextLog', async (n?: RunNode) => {
    const p = n?.kind === 'log' ? n.textLog : n?.path;
    if (p) await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(p));
  });
  reg('agentjet.runs.openTrajectory', async (n?: RunNode | vscode.Uri) => {
    const uri = n instanceof vscode.Uri ? n : n ? vscode.Uri.file(n.path) : undefined;
    if (uri) await services.get('logs').openTrajectory(uri);
  });
  reg('agentjet.runs.openSnapshot', async (n?: RunNode) => {
    const snap = snapshotOf(n, experimentOf);
    if (snap) await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(snap));
    else void vscode.window.showInformationMessage(vscode.l10n.t('AgentJet: this run has no config snapshot (yaml_backup.yaml).'));
  });
  reg('agentjet.runs.compareWithSource', async (n?: RunNode) => {
    const exp = experimentOf(n ?? runsView.selection[0]);
    const snap = snapshotOf(n, experimentOf);
    if (!exp || !snap) {
      void vscode.window.showInformationMessage(vscode.l10n.t('AgentJet: pick a run with a config snapshot.'));
      return;
    }
    const source = await findSourceConfig(exp.entry.name, snap);
    if (!source) return;
    await vscode.commands.executeCommand(
      'vscode.diff',
      source,
      vscode.Uri.file(snap),
      vscode.l10n.t('{0} ↔ {1} snapshot', basename(source.fsPath), exp.entry.name),
    );
  });
  reg('agentjet.runs.compareConfigs', async (n?: RunNode, nodes?: RunNode[]) => {
    let exps = selection(n, nodes)
      .map(experimentOf)
      .filter((e): e is RunNode & { kind: 'experiment' } => !!e && !!e.entry.snapshot);
    exps = [...new Map(exps.map((e) => [e.path, e])).values()];
    if (exps.length === 1) {
      const others = (await model.experiments()).filter((e) => e.snapshot && e.path !== exps[0]!.path);
      const pick = await vscode.window.showQuickPick(
        others.map((e) => ({ label: e.name, description: e.root, path: e.path })),
        { title: vscode.l10n.t('Compare the config of {0} with', exps[0]!.entry.name) },
      );
      const other = pick && others.find((e) => e.path === pick.path);
      if (!other) return;
      exps.push({ kind: 'experiment', path: other.path, entry: other });
    }
    if (exps.length !== 2) {
      void vscode.window.showInformationMessage(vscode.l10n.t('AgentJet: select two runs (Ctrl/Cmd+click) to compare their configs.'));
      return;
    }
    const [a, b] = exps as [RunNode & { kind: 'experiment' }, RunNode & { kind: 'experiment' }];
    await vscode.commands.executeCommand(
      'vscode.diff',
      vscode.Uri.file(a.entry.snapshot!),
      vscode.Uri.file(b.entry.snapshot!),
      vscode.l10n.t('{0} ↔ {1} (config)', a.entry.name, b.entry.name),
    );
  });
  const launchAgain = async (how: 'debug' | 'train', n?: RunNode) => {
    if (!needTrust(vscode.l10n.t('launching a run'))) return;
    const snap = snapshotOf(n ?? runsView.selection[0], experimentOf);
    if (!snap) return;
    const launch = services.get('launch');
    if (how === 'debug') {
      await launch.debug(vscode.Uri.file(snap), false);
      return;
    }
    const pick = await vscode.window.showQuickPick(['verl', 'trinity'], { title: vscode.l10n.t('Train again with which backbone?') });
    if (pick === 'verl' || pick === 'trinity') await launch.train(vscode.Uri.file(snap), pick);
  };
  reg('agentjet.runs.debugAgain', (n?: RunNode) => launchAgain('debug', n));
  reg('agentjet.runs.trainAgain', (n?: RunNode) => launchAgain('train', n));
  reg('agentjet.runs.revealInExplorer', async (n?: RunNode) => {
    const target = n ?? runsView.selection[0];
    if (!target) return;
    const uri = vscode.Uri.file(target.path.replace(/#.*$/, ''));
    const inWorkspace = vscode.workspace.getWorkspaceFolder(uri) !== undefined;
    await vscode.commands.executeCommand(inWorkspace ? 'revealInExplorer' : 'revealFileInOS', uri);
  });
  reg('agentjet.runs.copyPath', async (n?: RunNode, nodes?: RunNode[]) => {
    const paths = selection(n, nodes)
      .map((x) => x.path)
      .filter((p) => !p.includes('#'));
    if (paths.length) await vscode.env.clipboard.writeText(paths.join('\n'));
  });
  reg('agentjet.runs.delete', async (n?: RunNode, nodes?: RunNode[]) => {
    if (!needTrust(vscode.l10n.t('deleting a run'))) return;
    const exps = [
      ...new Map(
        selection(n, nodes)
          .map(experimentOf)
          .filter((e): e is RunNode & { kind: 'experiment' } => !!e)
          .map((e) => [e.path, e]),
      ).values(),
    ];
    if (!exps.length) return;
    const running = exps.filter((e) => model.cachedInfo(e.path)?.status === 'running');
    const question =
      exps.length === 1 ? vscode.l10n.t('Delete the run “{0}”?', exps[0]!.entry.name) : vscode.l10n.t('Delete the {0} runs?', exps.length);
    const detail = [
      exps.map((e) => e.path).join('\n'),
      vscode.l10n.t('The folders go to the trash where the system has one. Checkpoints under saved_checkpoints are kept.'),
      ...(running.length ? [vscode.l10n.t('Still running: {0}.', running.length)] : []),
    ].join('\n\n');
    const moveToTrash = vscode.l10n.t('Move to Trash');
    const answer = await vscode.window.showWarningMessage(question, { modal: true, detail }, moveToTrash);
    if (answer !== moveToTrash) return;
    for (const e of exps) {
      const uri = vscode.Uri.file(e.path);
      try {
        await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: true });
      } catch (err) {
        const permanently = vscode.l10n.t('Delete Permanently');
        const again = await vscode.window.showWarningMessage(
          vscode.l10n.t('No trash for {0} ({1}). Delete it permanently?', e.entry.name, err instanceof Error ? err.message : String(err)),
          { modal: true },
          permanently,
        );
        if (again !== permanently) continue;
        try {
          await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: false });
        } catch (err2) {
          services.report(vscode.l10n.t('deleting {0}', e.path), err2);
          continue;
        }
      }
      model.invalidate(e.path);
    }
    tree.refreshAll();
  });
  reg('agentjet.runs.openDashboard', async (n?: RunNode | vscode.Uri | string, nodes?: RunNode[]) => {
    // Other features and tests may pass the experiment folder as a Uri or a path.
    if (n instanceof vscode.Uri || typeof n === 'string') {
      dashboards.show([typeof n === 'string' ? n : n.fsPath]);
      return;
    }
    const fromTree = n !== undefined || (nodes?.length ?? 0) > 0;
    let paths = [
      ...new Set(
        selection(n, nodes)
          .map(experimentOf)
          .filter((e): e is RunNode & { kind: 'experiment' } => !!e)
          .map((e) => e.path),
      ),
    ];
    if (!paths.length) paths = await pickRuns();
    // From the Runs view the focus stays there (the next right-click is not disturbed when the page loads).
    if (paths.length) dashboards.show(paths, { preserveFocus: fromTree });
  });
  const reveal = async (fsPath: string): Promise<boolean> => {
    if (!fsPath) return false;
    await vscode.commands.executeCommand('agentjet.runs.focus');
    if (!tree.experimentNode(fsPath)) {
      // A run that appeared since the last read (F5 just made it): the model learns of it, and
      // the view must draw its row before VS Code can reveal it.
      model.invalidate(fsPath);
      if ((await model.experiments()).some((e) => e.path === fsPath)) await tree.relistUntil(fsPath, 15_000);
    }
    const node = tree.experimentNode(fsPath);
    if (!node) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('AgentJet: {0} is not an experiment under the configured roots (setting agentjet.experimentRoots).', fsPath),
      );
      return false;
    }
    const show = () => runsView.reveal(node, { select: true, focus: true, expand: false });
    try {
      await show();
    } catch (err) {
      // The view had not drawn the row yet (VS Code: "TreeError ... not found"): once more when it has.
      services.log.info(`runs: reveal ${fsPath} waits for its row (${err instanceof Error ? err.message : String(err)})`);
      if (!(await tree.relistUntil(fsPath, 15_000))) {
        services.log.warn(`runs: ${fsPath} has no row in the Runs view (filtered out?)`);
        return false;
      }
      await show();
    }
    return true;
  };
  reg('agentjet.runs.reveal', (fsPath?: string) => (typeof fsPath === 'string' ? reveal(fsPath) : false));
  reg('agentjet.companions.refresh', () => companions.refresh());
  reg('agentjet.companions.openLog', async (n?: CompanionNode) => {
    if (n?.kind === 'companion' && n.companion.log) await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(n.companion.log));
  });
  reg('agentjet.companions.stop', async (n?: CompanionNode) => {
    if (!needTrust(vscode.l10n.t('stopping a process'))) return;
    if (n?.kind !== 'companion') return;
    const c = n.companion;
    const { pgid } = c;
    if (pgid === undefined) return;
    const stop = vscode.l10n.t('Stop');
    const answer = await vscode.window.showWarningMessage(
      vscode.l10n.t('Stop {0} (process group {1})?', c.tag, pgid),
      {
        modal: true,
        detail: vscode.l10n.t(
          'Every process in the group gets SIGTERM, then SIGKILL after 3 s.\nThe next debug launch starts it again ({0}).',
          c.id,
        ),
      },
      stop,
    );
    if (answer !== stop) return;
    const result = await stopGroup(pgid);
    void vscode.window.showInformationMessage(
      result === 'gone'
        ? vscode.l10n.t('AgentJet: {0} was not running.', c.tag)
        : result === 'killed'
          ? vscode.l10n.t('AgentJet: {0} did not stop on SIGTERM and was killed.', c.tag)
          : vscode.l10n.t('AgentJet: {0} stopped.', c.tag),
    );
    companions.refresh();
  });

  return {
    reveal,
    refresh: () => {
      model.reset();
      tree.refreshAll();
      companions.refresh();
    },
  };
}

function snapshotOf(
  n: RunNode | undefined,
  experimentOf: (n: RunNode | undefined) => (RunNode & { kind: 'experiment' }) | undefined,
): string | undefined {
  if (n?.kind === 'snapshot') return n.path;
  return experimentOf(n)?.entry.snapshot;
}

export async function pickRuns(model: RunsModel): Promise<string[]> {
  const entries = await model.experiments();
  if (!entries.length) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('AgentJet: no runs found (saved_experiments, launcher_record and the folders in agentjet.experimentRoots).'),
    );
    return [];
  }
  const picks = await vscode.window.showQuickPick(
    entries.map((e) => ({ label: e.name, description: model.cachedInfo(e.path)?.status ?? '', detail: e.path, path: e.path })),
    { canPickMany: true, title: vscode.l10n.t('Runs to show on the dashboard') },
  );
  return (picks ?? []).map((p) => p.path);
}

/** The workspace config a snapshot came from: the clear winner, else the user's pick. */
async function findSourceConfig(experiment: string, snapshot: string): Promise<vscode.Uri | undefined> {
  const files = await vscode.workspace.findFiles(
    '**/*.{yaml,yml}',
    '{**/node_modules/**,**/saved_experiments/**,**/launcher_record/**,**/saved_checkpoints/**,**/.git/**}',
    500,
  );
  const dec = new TextDecoder();
  const read = async (u: vscode.Uri) => {
    try {
      return dec.decode(await vscode.workspace.fs.readFile(u));
    } catch {
      return '';
    }
  };
  const snapText = await read(vscode.Uri.file(snapshot));
  const candidates = await Promise.all(files.map(async (u) => ({ path: u.fsPath, text: await read(u) })));
  const { ranked, best } = rankSources(experiment, snapText, candidates);
  if (best) return vscode.Uri.file(best);
  const rankedSet = new Set(ranked.map((r) => r.path));
  const items = [
    ...ranked.map((r) => ({ label: vscode.workspace.asRelativePath(r.path), description: vscode.l10n.t('same project'), path: r.path })),
    ...files
      .filter((f) => !rankedSet.has(f.fsPath))
      .map((f) => ({ label: vscode.workspace.asRelativePath(f), description: '', path: f.fsPath })),
  ];
  if (!items.length) {
    void vscode.window.showInformationMessage(vscode.l10n.t('AgentJet: no YAML config in the workspace to compare with.'));
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Which config started {0}?', experiment) });
  return pick ? vscode.Uri.file(pick.path) : undefined;
}
