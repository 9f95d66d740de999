// Token logs: the `.json.log` viewer, the trajectory transcript view and their commands.
import * as vscode from 'vscode';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogsService, Services } from '../services';
import { TOKEN_LOG_VIEW_TYPE, TokenLogEditorProvider } from './tokenLogEditor';
import { TRAJECTORY_VIEW_TYPE, TrajectoryEditorProvider } from './trajectoryEditor';
import type { ViewCommand, ViewReport } from '../../core/protocol/tokenlog';
import { hostThreadsDefault, setThreadCap } from '../../core/logs/pool';
import { logsHostThreads } from '../settings';

/** What the extension-host tests see of the log views (on the API, not in the command list). */
export interface LogsProbe {
  tokenLogs(): { path: string; report?: ViewReport; cache: string[]; facts: { known: number; count: number; finished: boolean } }[];
  driveTokenLogs(command: ViewCommand, path?: string): number;
  trajectories(): { path: string; report: { messages: number; timelines: number; error?: string } }[];
}

/** Finds `.json.log` files under a run or experiment folder (rollout logs first, newest first). */
async function logsUnder(dir: string, depth = 5): Promise<{ path: string; mtime: number }[]> {
  const out: { path: string; mtime: number }[] = [];
  const walk = async (d: string, left: number): Promise<void> => {
    let names: string[];
    try {
      names = await readdir(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      let st;
      try {
        st = await stat(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (left > 0 && n !== 'node_modules' && n !== 'backup' && !n.startsWith('.')) await walk(p, left - 1);
      } else if (n.endsWith('.json.log') && st.size > 0) {
        out.push({ path: p, mtime: st.mtimeMs });
      }
    }
  };
  await walk(dir, depth);
  const rank = (p: string) => (p.endsWith('rollout.json.log') ? 0 : 1);
  return out.sort((a, b) => rank(a.path) - rank(b.path) || b.mtime - a.mtime);
}

async function pickLog(candidates: { path: string }[]): Promise<vscode.Uri | undefined> {
  if (candidates.length === 0) return undefined;
  if (candidates.length === 1) return vscode.Uri.file(candidates[0]!.path);
  const items = candidates.slice(0, 200).map((c) => ({ label: vscode.workspace.asRelativePath(c.path), path: c.path }));
  const pick = await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Open which token log?'), matchOnDescription: true });
  return pick ? vscode.Uri.file(pick.path) : undefined;
}

/** The `.json.log` the command should open for `uri` (file, run folder, experiment folder or nothing). */
async function resolveLogTarget(uri: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
  if (uri) {
    let st;
    try {
      st = await stat(uri.fsPath);
    } catch {
      void vscode.window.showErrorMessage(vscode.l10n.t('AgentJet: {0} does not exist.', uri.fsPath));
      return undefined;
    }
    if (st.isFile()) return uri;
    const found = await logsUnder(uri.fsPath);
    const rollouts = found.filter((f) => f.path.endsWith('rollout.json.log'));
    // One rollout log per session and host: the newest is almost always the one wanted.
    if (rollouts.length >= 1) return vscode.Uri.file(rollouts[0]!.path);
    if (found.length === 0) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('AgentJet: no token logs (.json.log) under {0}.', vscode.workspace.asRelativePath(uri)),
      );
      return undefined;
    }
    return pickLog(found);
  }
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  const active = tab instanceof vscode.TabInputText || tab instanceof vscode.TabInputCustom ? tab.uri : undefined;
  if (active && active.fsPath.endsWith('.json.log')) return active;
  const files = await vscode.workspace.findFiles('**/*.json.log', '**/node_modules/**', 500);
  const dated = await Promise.all(
    files.map(async (f) => {
      try {
        const st = await stat(f.fsPath);
        return { path: f.fsPath, mtime: st.mtimeMs, size: st.size };
      } catch {
        return { path: f.fsPath, mtime: 0, size: 0 };
      }
    }),
  );
  const nonEmpty = dated
    .filter((d) => d.size > 0)
    .sort((a, b) => Number(b.path.endsWith('rollout.json.log')) - Number(a.path.endsWith('rollout.json.log')) || b.mtime - a.mtime);
  if (nonEmpty.length > 0) return pickLog(nonEmpty);
  const chosen = await vscode.window.showOpenDialog({
    canSelectMany: false,
    filters: { [vscode.l10n.t('Token logs')]: ['log'] },
    openLabel: vscode.l10n.t('Open Token Log'),
  });
  return chosen?.[0];
}

export function registerLogsFeature(context: vscode.ExtensionContext, services: Services): LogsProbe {
  // Whole-file work in the host runs on capped worker threads: a training run beside it keeps its cores.
  const capThreads = () => setThreadCap(logsHostThreads() ?? hostThreadsDefault());
  capThreads();
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('agentjet.logs.hostThreads')) capThreads();
    }),
  );
  const tokenLogs = new TokenLogEditorProvider(services);
  const trajectories = new TrajectoryEditorProvider(services);
  const logs: LogsService = {
    async openTokenLog(uri, opts) {
      const target = await resolveLogTarget(uri);
      if (!target) return undefined;
      if (opts?.text !== undefined) tokenLogs.filterOnOpen(target.fsPath, opts.text);
      await vscode.commands.executeCommand('vscode.openWith', target, TOKEN_LOG_VIEW_TYPE);
      return target;
    },
    async openTrajectory(uri) {
      let target = uri;
      if (!target) {
        const files = await vscode.workspace.findFiles('**/trajectory/**/*.json', '**/node_modules/**', 500);
        const pick = await vscode.window.showQuickPick(
          files.map((f) => ({ label: vscode.workspace.asRelativePath(f), uri: f })),
          { placeHolder: vscode.l10n.t('Open which trajectory?') },
        );
        target = pick?.uri;
      }
      if (!target) return undefined;
      await vscode.commands.executeCommand('vscode.openWith', target, TRAJECTORY_VIEW_TYPE);
      return target;
    },
  };
  services.provide('logs', logs);
  const asUri = (uri: unknown): vscode.Uri | undefined =>
    typeof uri === 'string' ? vscode.Uri.file(uri) : uri instanceof vscode.Uri ? uri : undefined;
  context.subscriptions.push(
    vscode.window.registerCustomEditorProvider(TOKEN_LOG_VIEW_TYPE, tokenLogs, {
      supportsMultipleEditorsPerDocument: true,
      webviewOptions: { retainContextWhenHidden: false },
    }),
    vscode.window.registerCustomEditorProvider(TRAJECTORY_VIEW_TYPE, trajectories, { supportsMultipleEditorsPerDocument: true }),
    vscode.commands.registerCommand('agentjet.openTokenLog', (uri?: vscode.Uri | string) => logs.openTokenLog(asUri(uri))),
    vscode.commands.registerCommand('agentjet.openTrajectory', (uri?: vscode.Uri | string) => logs.openTrajectory(asUri(uri))),
  );
  return {
    tokenLogs: () => tokenLogs.inspect(),
    driveTokenLogs: (command, path) => tokenLogs.drive(command, path),
    trajectories: () => [...trajectories.reports.entries()].map(([path, report]) => ({ path, report })),
  };
}
