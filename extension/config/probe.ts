// "Does this workspace hold an AgentJet config?" asked once after start-up, off the activation
// path: a file search for YAML names (VS Code's search, in its own process) and a small head read
// of each until the first config. The config feature starts the language server on a hit (so
// Problems fills without opening a file); New Project's welcome button reads the same answer.
import * as vscode from 'vscode';
import { firstConfig, firstConfigUnder, skipGlob, PROBE_HEAD_BYTES } from '../../core/config/workspaceScan';

/** As many YAML files as the language server's background pass would check. */
export const PROBE_MAX_FILES = 2000;

export interface ProbeResult {
  /** The first config found, if any. */
  config?: vscode.Uri;
  /** YAML files the search returned. */
  files: number;
  ms: number;
}

async function head(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder().decode((await vscode.workspace.fs.readFile(uri)).subarray(0, PROBE_HEAD_BYTES));
  } catch {
    return undefined;
  }
}

export async function probeWorkspace(token: vscode.CancellationToken): Promise<ProbeResult> {
  const started = performance.now();
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (!folders.length) return { files: 0, ms: 0 };
  // Local folders: our own walk (the language server's rules), no search process; it stops at the first config.
  if (folders.every((f) => f.uri.scheme === 'file')) {
    let files = 0;
    for (const f of folders) {
      const r = await firstConfigUnder(f.uri.fsPath, () => token.isCancellationRequested);
      files += r.files;
      if (r.config) return { config: vscode.Uri.file(r.config), files, ms: performance.now() - started };
    }
    return { files, ms: performance.now() - started };
  }
  const files = await vscode.workspace.findFiles('**/*.{yaml,yml}', skipGlob(), PROBE_MAX_FILES, token);
  // Shallow paths first: configs sit near a project's top more often than deep in data folders.
  files.sort((a, b) => a.path.split('/').length - b.path.split('/').length || a.path.localeCompare(b.path));
  const config = await firstConfig(files, head, () => token.isCancellationRequested);
  return { ...(config ? { config } : {}), files: files.length, ms: performance.now() - started };
}

let shared: { promise: Promise<ProbeResult>; cts: vscode.CancellationTokenSource } | undefined;

/** One probe for every feature that asks (until `forgetProbe`, e.g. after YAML files change). */
export function workspaceProbe(): Promise<ProbeResult> {
  if (!shared) {
    const cts = new vscode.CancellationTokenSource();
    shared = { promise: probeWorkspace(cts.token), cts };
  }
  return shared.promise;
}

export function forgetProbe(): void {
  shared?.cts.cancel();
  shared?.cts.dispose();
  shared = undefined;
}
