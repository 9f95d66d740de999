// The interpreter for a folder: agentjet.pythonPath > Python extension's active env > venv > python3.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { resolveInterpreter, type Interpreter } from '../../core/launch/interpreter';
import { pythonExtensionEnv } from '../python';

async function activeEnv(folder: vscode.WorkspaceFolder | undefined, token?: vscode.CancellationToken): Promise<string | undefined> {
  try {
    return await pythonExtensionEnv(folder, token);
  } catch {
    return undefined; // the Python extension failed to activate: fall through to venv / python3
  }
}

export async function resolvePython(folder: vscode.WorkspaceFolder | undefined, token?: vscode.CancellationToken): Promise<Interpreter> {
  const setting = vscode.workspace.getConfiguration('agentjet', folder?.uri).get<string>('pythonPath');
  if (setting && setting.trim()) return resolveInterpreter({ setting, folder: folder?.uri.fsPath }, existsSync);
  return resolveInterpreter({ pythonExtension: await activeEnv(folder, token), folder: folder?.uri.fsPath }, existsSync);
}
