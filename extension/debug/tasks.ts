// Task type `agentjet`: training launches (`--backbone verl|trinity`, or debug) as tasks with a
// problem matcher for Python tracebacks and launcher errors.
import * as vscode from 'vscode';
import { isAbsolute, join } from 'node:path';
import { resolveAttributes } from '../../core/launch/attributes';
import type { Backbone } from '../../core/launch/plan';
import { LauncherTerminal } from './launcherTerminal';
import { findAgentJetConfigs } from './configs';
import { resolvePython } from './interpreter';

export const TASK_TYPE = 'agentjet';

export interface AgentJetTaskDefinition extends vscode.TaskDefinition {
  config: string;
  backbone?: Backbone;
  withRay?: boolean;
  withRayCluster?: boolean;
  debugTags?: string[] | string;
  extraArgs?: string[];
  python?: string;
  env?: Record<string, string>;
}

function configFsPath(def: AgentJetTaskDefinition, folder: vscode.WorkspaceFolder | undefined): string {
  const p = def.config.replace(/\$\{workspaceFolder\}/g, folder?.uri.fsPath ?? '');
  return isAbsolute(p) || !folder ? p : join(folder.uri.fsPath, p);
}

export async function buildTask(
  def: AgentJetTaskDefinition,
  scope: vscode.WorkspaceFolder | vscode.TaskScope,
  diagnostics: vscode.DiagnosticCollection,
  token?: vscode.CancellationToken,
): Promise<vscode.Task> {
  const folder = typeof scope === 'object' ? scope : undefined;
  const config = configFsPath(def, folder);
  const python = def.python ?? (await resolvePython(folder, token)).path;
  // The same plan and preflight as F5 (core/launch/lifecycle.ts), run when the task starts.
  const launch = resolveAttributes({
    config,
    backbone: def.backbone ?? 'verl',
    python,
    args: def.extraArgs ?? [],
    env: { PYTHONUNBUFFERED: '1', ...def.env },
    ...(folder ? { cwd: folder.uri.fsPath } : {}),
  });
  const run = { launch, extra: { withRay: def.withRay, withRayCluster: def.withRayCluster, debugTags: def.debugTags }, via: 'task' };
  const exec = new vscode.CustomExecution(() => Promise.resolve(new LauncherTerminal(run, diagnostics)));
  const rel = folder ? vscode.workspace.asRelativePath(config, false) : config;
  // No problem matcher: LauncherTerminal reports Problems itself (a matcher would report them twice).
  // The contributed $agentjet-python and $agentjet-launcher are for users' own shell tasks.
  const task = new vscode.Task(def, scope, `${def.backbone ?? 'verl'}: ${rel}`, 'agentjet', exec, []);
  task.group = def.backbone === 'debug' ? vscode.TaskGroup.Test : vscode.TaskGroup.Build;
  task.presentationOptions = { reveal: vscode.TaskRevealKind.Always, panel: vscode.TaskPanelKind.Dedicated, clear: true };
  return task;
}

export class AgentJetTaskProvider implements vscode.TaskProvider {
  constructor(
    private readonly trusted: () => boolean,
    private readonly diagnostics: vscode.DiagnosticCollection,
  ) {}

  async provideTasks(token: vscode.CancellationToken): Promise<vscode.Task[]> {
    if (!this.trusted()) return [];
    const out: vscode.Task[] = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      for (const uri of await findAgentJetConfigs(folder, token)) {
        const rel = vscode.workspace.asRelativePath(uri, false);
        for (const backbone of ['verl', 'trinity'] as const) {
          out.push(await buildTask({ type: TASK_TYPE, config: rel, backbone }, folder, this.diagnostics, token));
        }
      }
    }
    return out;
  }

  async resolveTask(task: vscode.Task, token: vscode.CancellationToken): Promise<vscode.Task | undefined> {
    const def = task.definition as AgentJetTaskDefinition;
    if (!def.config || !this.trusted()) return undefined;
    const scope = task.scope ?? vscode.TaskScope.Workspace;
    const built = await buildTask(def, scope === vscode.TaskScope.Global ? vscode.TaskScope.Workspace : scope, this.diagnostics, token);
    // Keep the definition object VS Code gave us, as the TaskProvider contract asks.
    return new vscode.Task(
      def,
      task.scope ?? vscode.TaskScope.Workspace,
      task.name || built.name,
      'agentjet',
      built.execution,
      task.problemMatchers,
    );
  }
}
