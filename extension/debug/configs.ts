// Finding AgentJet configs in the workspace and turning one into a launch configuration.
import * as vscode from 'vscode';
import { looksLikeAgentJetConfig } from '../../core/launch/plan';
import type { AgentJetLaunchAttributes } from '../../core/launch/attributes';
import { distinctFiles } from '../../core/fs/canonical';

export const DEBUG_TYPE = 'agentjet';
// Besides run output and environments: the framework's own defaults (a checkout of AgentJet, or its
// package linked in), which configs inherit and nobody launches.
const EXCLUDE =
  '{**/node_modules/**,**/.git/**,**/saved_experiments/**,**/launcher_record/**,**/saved_checkpoints/**,**/.venv/**,**/venv/**,' +
  '**/ajet/default_config/**,**/astuner/default_config/**,**/astune/default_config/**}';

/**
 * Workspace YAML files with an `ajet:`/`astuner:` root (at most `limit`, largest files skipped), each
 * file once: a file reached by two paths (a symlinked folder) counts by its real path, and with a
 * `folder`, a file belongs to its innermost workspace folder only (a folder opened inside another).
 */
export async function findAgentJetConfigs(
  folder: vscode.WorkspaceFolder | undefined,
  token?: vscode.CancellationToken,
  limit = 50,
): Promise<vscode.Uri[]> {
  const include = folder ? new vscode.RelativePattern(folder, '**/*.{yaml,yml}') : '**/*.{yaml,yml}';
  const files = await vscode.workspace.findFiles(include, EXCLUDE, 500, token);
  const out: vscode.Uri[] = [];
  for (const uri of files.sort((a, b) => a.fsPath.localeCompare(b.fsPath))) {
    if (token?.isCancellationRequested || out.length >= limit) break;
    try {
      const stat = await vscode.workspace.fs.stat(uri);
      if (stat.size > 2_000_000) continue;
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      if (looksLikeAgentJetConfig(text)) out.push(uri);
    } catch {
      /* vanished or unreadable: skip */
    }
  }
  const owned = folder ? out.filter((uri) => vscode.workspace.getWorkspaceFolder(uri)?.uri.toString() === folder.uri.toString()) : out;
  return distinctFiles(owned, (uri) => (uri.scheme === 'file' ? uri.fsPath : undefined));
}

export function isAgentJetDocument(doc: vscode.TextDocument | undefined): boolean {
  return !!doc && (doc.languageId === 'yaml' || /\.ya?ml$/i.test(doc.fileName)) && looksLikeAgentJetConfig(doc.getText());
}

/** `${workspaceFolder}/x.yaml` for files inside the folder, else the absolute path. */
export function configPathVar(uri: vscode.Uri, folder: vscode.WorkspaceFolder | undefined): string {
  if (!folder) return uri.fsPath;
  const rel = vscode.workspace.asRelativePath(uri, false);
  return rel === uri.fsPath ? uri.fsPath : `\${workspaceFolder}/${rel}`;
}

/** A launch.json entry of type `agentjet`: VS Code's fields plus our launch attributes. */
export interface AgentJetDebugConfiguration extends vscode.DebugConfiguration, AgentJetLaunchAttributes {}

export function debugConfigurationFor(
  uri: vscode.Uri,
  folder: vscode.WorkspaceFolder | undefined,
  name?: string,
): AgentJetDebugConfiguration {
  const rel = folder ? vscode.workspace.asRelativePath(uri, false) : uri.fsPath;
  return {
    type: DEBUG_TYPE,
    request: 'launch',
    name: name ?? `AgentJet: debug ${rel}`,
    config: configPathVar(uri, folder),
    backbone: 'debug',
    cwd: '${workspaceFolder}',
    justMyCode: true,
    openTokenLogOnFinish: true,
  };
}
