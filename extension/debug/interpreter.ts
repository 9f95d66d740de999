// The interpreter for a folder: agentjet.pythonPath > Python extension's active env > venv > python3.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
// The ES module build: the UMD main requires its parts at run time, which a bundle cannot serve.
import { parse as parseJsonc } from 'jsonc-parser/lib/esm/main.js';
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
 * The interpreter a folder would use once trusted, for display only, found without asking anything
 * that runs (no Python extension): Restricted Mode shows it and runs nothing. VS Code hides the
 * folder's own `agentjet.pythonPath` until the folder is trusted (a restricted setting), yet that is
 * the one that runs after Trust: read it from `.vscode/settings.json` (reading runs nothing).
 */
export async function describePython(folder: vscode.WorkspaceFolder | undefined): Promise<Interpreter> {
  const setting = (folder && (await folderSetting(folder))) || pythonPath(folder?.uri);
  return resolveInterpreter({ setting, folder: folder?.uri.fsPath }, existsSync);
}

/** `agentjet.pythonPath` as the folder's `.vscode/settings.json` writes it (JSON with comments), if a string. */
async function folderSetting(folder: vscode.WorkspaceFolder): Promise<string | undefined> {
  try {
    const uri = vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json');
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.type !== vscode.FileType.File || stat.size > 1_000_000) return undefined;
    const tree: unknown = parseJsonc(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)), [], { allowTrailingComma: true });
    const v = tree && typeof tree === 'object' ? (tree as Record<string, unknown>)['agentjet.pythonPath'] : undefined;
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  } catch {
    return undefined; // no settings file, or unreadable: the other sources decide
  }
}
