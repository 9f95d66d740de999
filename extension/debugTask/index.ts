// "Debug this task": from a rollout (token log row, trajectory, the command palette) to a debug
// launch on exactly that task. The task id comes from the view (a `webview/context` menu on
// elements carrying `data-vscode-context` {"agentjetTaskId"}) or is asked for; the run is the one
// the active token log / trajectory belongs to (taken from the editor's own URI, never from the
// webview). The derived config is made by core/debugTask/prepare.ts; the new run is linked back
// (`<new run>/.agentjet-vscode/debug-task.json`).
import * as vscode from 'vscode';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Services } from '../services';
import { debugTaskDir, prepareDebugTask, readerInfo } from '../../core/debugTask/prepare';
import { EVENT_EXPERIMENT, type ExperimentEventBody } from '../../core/protocol/debug';
import { LAUNCH_RECORD_DIR } from '../../core/agentjet';
import { DEBUG_TYPE, findAgentJetConfigs } from '../debug/configs';
import { resolvePython } from '../debug/interpreter';
import { QuickSteps } from '../quickSteps';

/** Arguments for scripted use (tests, other commands); anything missing is asked for. */
export interface DebugTaskArgs {
  agentjetTaskId?: string;
  taskId?: string;
  /** The run folder (`<cwd>/saved_experiments/<name>`). */
  run?: string;
  /** Use the run's yaml_backup.yaml (true) or the current config (false). */
  useSnapshot?: boolean;
  /** The current config, when not the snapshot. */
  config?: string;
  numRepeat?: number;
}

/** The run folder holding `file`: the nearest ancestor with a yaml_backup.yaml, within a few levels. */
export function runOf(file: string): string | undefined {
  let d = dirname(file);
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(d, 'yaml_backup.yaml'))) return d;
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return undefined;
}

function activeFile(): string | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  const uri =
    input instanceof vscode.TabInputCustom || input instanceof vscode.TabInputText
      ? input.uri
      : vscode.window.activeTextEditor?.document.uri;
  return uri?.scheme === 'file' ? uri.fsPath : undefined;
}

export function registerDebugTaskFeature(context: vscode.ExtensionContext, services: Services): void {
  /** Launch session id -> the link to write once the launcher names the new run. */
  const pending = new Map<string, { link: string; taskId: string; sourceRun: string | undefined }>();

  const debugTask = async (arg?: DebugTaskArgs | string): Promise<boolean> => {
    if (!services.trust.require('run-process', vscode.l10n.t('AgentJet: launching needs a trusted workspace.'))) return false;
    // The questions (task id, config, num_repeat) share one widget; it closes before anything starts.
    const steps = new QuickSteps();
    try {
      return await ask(arg, steps);
    } finally {
      steps.dispose();
    }
  };

  /** Asks what is missing, then starts the launch. */
  const ask = async (arg: DebugTaskArgs | string | undefined, steps: QuickSteps): Promise<boolean> => {
    const a: DebugTaskArgs = typeof arg === 'string' ? { taskId: arg } : (arg ?? {});
    let taskId = a.taskId ?? a.agentjetTaskId;
    if (taskId === undefined) {
      taskId = await steps.ask({ title: vscode.l10n.t('Debug which task? (its task_id)') });
      if (taskId === undefined) return false;
    }
    const file = activeFile();
    const run = a.run ?? (file ? runOf(file) : undefined);
    const snapshot = run ? join(run, 'yaml_backup.yaml') : undefined;
    let config: string | undefined;
    if (a.useSnapshot === true && snapshot) config = snapshot;
    else if (a.config) config = a.config;
    else {
      const folder =
        (run ? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(run)) : undefined) ?? vscode.workspace.workspaceFolders?.[0];
      const current = await findAgentJetConfigs(folder);
      const items: (vscode.QuickPickItem & { path: string })[] = [
        ...(snapshot && existsSync(snapshot)
          ? [{ label: vscode.l10n.t("The run's config snapshot"), description: vscode.workspace.asRelativePath(snapshot), path: snapshot }]
          : []),
        // The config open in the editor first; the rest by path, which is what the user types to filter.
        ...current
          .map((u) => ({ label: vscode.workspace.asRelativePath(u), path: u.fsPath }))
          .sort((x, y) => Number(y.path === file) - Number(x.path === file) || x.label.localeCompare(y.label))
          .map((i) => (i.path === file ? { ...i, description: vscode.l10n.t('in the active editor') } : i)),
      ];
      if (a.useSnapshot === false) items.splice(0, snapshot && existsSync(snapshot) ? 1 : 0);
      const picked = items.length === 1 ? items[0] : await steps.pick(items, vscode.l10n.t('Debug task {0} with which config?', taskId));
      config = picked?.path;
    }
    if (!config) return false;
    // Readers where one task cannot be chosen: say so before anything starts.
    const info = readerInfo(readFileSync(config, 'utf8'));
    if (!info.selectable) {
      steps.dispose();
      void vscode.window.showErrorMessage(vscode.l10n.t('AgentJet: cannot debug task {0} alone. {1}', taskId, info.why ?? ''), {
        modal: true,
      });
      return false;
    }
    let numRepeat = a.numRepeat;
    if (numRepeat === undefined) {
      const v = await steps.ask({
        title: vscode.l10n.t('How many rollouts of task {0} (num_repeat)?', taskId),
        value: '1',
        validate: (s) => (/^[1-9]\d{0,3}$/.test(s.trim()) ? undefined : vscode.l10n.t('A whole number from 1')),
      });
      if (v === undefined) return false;
      numRepeat = Number(v.trim());
    }
    // A run lives in <cwd>/saved_experiments/<name> (launcher_record for ASTuner): the launcher ran in <cwd>.
    const cwd =
      run && /^(saved_experiments|launcher_record)$/.test(basename(dirname(run)))
        ? dirname(dirname(run))
        : (vscode.workspace.getWorkspaceFolder(vscode.Uri.file(config))?.uri.fsPath ?? dirname(config));
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(cwd)) ?? vscode.workspace.workspaceFolders?.[0];
    steps.dispose();
    const python = (await resolvePython(folder)).path;
    const prepared = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('AgentJet: preparing task {0}…', taskId) },
      () => prepareDebugTask({ sourceConfig: config, cwd, taskId, numRepeat, outDir: debugTaskDir(run, cwd), python, sourceRun: run }),
    );
    if (!prepared.ok) {
      void vscode.window.showErrorMessage(`AgentJet: ${prepared.message}`);
      return false;
    }
    services.log.info(`debug task ${taskId}: ${prepared.config} (from ${config})`);
    const launch: vscode.DebugConfiguration = {
      type: DEBUG_TYPE,
      request: 'launch',
      name: vscode.l10n.t('Debug task {0}', taskId),
      config: prepared.config,
      cwd,
      backbone: 'debug',
      agentjetDebugTask: { taskId, sourceRun: run, link: prepared.link },
    };
    const sub = vscode.debug.onDidStartDebugSession((s) => {
      if (s.configuration.agentjetDebugTask?.link === prepared.link) {
        pending.set(s.id, { link: prepared.link, taskId, sourceRun: run });
        sub.dispose();
      }
    });
    const ok = await vscode.debug.startDebugging(folder, launch);
    if (!ok) sub.dispose();
    return ok;
  };

  services.provide('debugTask', { debugTask: (args) => debugTask(args) });
  context.subscriptions.push(
    vscode.commands.registerCommand('agentjet.debugTask', (arg?: DebugTaskArgs | string) => debugTask(arg)),
    vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => {
      const p = pending.get(e.session.id);
      if (!p || e.event !== EVENT_EXPERIMENT) return;
      const folder = (e.body as ExperimentEventBody).folder;
      try {
        const dir = join(folder, LAUNCH_RECORD_DIR);
        mkdirSync(dir, { recursive: true });
        writeFileSync(
          join(dir, 'debug-task.json'),
          `${JSON.stringify({ taskId: p.taskId, sourceRun: p.sourceRun, link: p.link }, null, 2)}\n`,
        );
      } catch (err) {
        services.report(vscode.l10n.t('linking the debug run to its rollout'), err);
      }
    }),
    vscode.debug.onDidTerminateDebugSession((s) => pending.delete(s.id)),
  );
}
