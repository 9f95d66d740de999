// The interpreter for a folder: agentjet.pythonPath > Python extension's active env > venv > python3.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { resolveInterpreter, type Interpreter } from '../../core/launch/interpreter';

async function pythonExtensionEnv(folder: vscode.WorkspaceFolder | undefined, token?: vscode.CancellationToken): Promise<string | undefined> {
  if (!vscode.extensions.getExtension('ms-python.python')) return undefined;
  try {
    const { PythonExtension } = await import('@vscode/python-extension');
    const api = await PythonExtension.api();
    if (token?.isCancellationRequested) return undefined;
    const active = api.environments.getActiveEnvironmentPath(folder?.uri);
    const env = await api.environments.resolveEnvironment(active);
    return env?.executable.uri?.fsPath ?? active.path;
  } catch {
    return undefined; // the Python extension failed to activate: fall through to venv / python3
  }
}

export async function resolvePython(folder: vscode.WorkspaceFolder | undefined, token?: vscode.CancellationToken): Promise<Interpreter> {
  const setting = vscode.workspace.getConfiguration('agentjet', folder?.uri).get<string>('pythonPath');
  if (setting && setting.trim()) return resolveInterpreter({ setting, folder: folder?.uri.fsPath }, existsSync);
  return resolveInterpreter({ pythonExtension: await pythonExtensionEnv(folder, token), folder: folder?.uri.fsPath }, existsSync);
}
