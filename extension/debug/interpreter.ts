// The interpreter for a folder: agentjet.pythonPath > Python extension's active env > venv > python3.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { resolveInterpreter, type Interpreter } from '../../core/process/resolveInterpreter';
import { pythonExtensionEnv } from '../python';
import { pythonPath } from '../settings';

async function activeEnv(folder: vscode.WorkspaceFolder | undefined, token?: vscode.CancellationToken): Promise<string | undefined> {
  try {
    return await pythonExtensionEnv(folder, token);
  } catch {
    return undefined; // the Python extension failed to activate: fall through to venv / python3
  }
}

export async function resolvePython(folder: vscode.WorkspaceFolder | undefined, token?: vscode.CancellationToken): Promise<Interpreter> {
  const setting = pythonPath(folder?.uri);
  if (setting) return resolveInterpreter({ setting, folder: folder?.uri.fsPath }, existsSync);
  return resolveInterpreter({ pythonExtension: await activeEnv(folder, token), folder: folder?.uri.fsPath }, existsSync);
}

/**
 * The interpreter a folder would use, for display only, found without asking anything that runs
 * (no Python extension): Restricted Mode shows it and runs nothing.
 */
export function describePython(folder: vscode.WorkspaceFolder | undefined): Interpreter {
  return resolveInterpreter({ setting: pythonPath(folder?.uri), folder: folder?.uri.fsPath }, existsSync);
}
