import * as vscode from 'vscode';

/** Shared, cheap objects every feature may use. Nothing here starts work on creation. */
export interface Services {
  readonly log: vscode.LogOutputChannel;
  readonly extensionUri: vscode.Uri;
  /** The extension's global storage folder on disk (caches), when it is a local path. */
  readonly storageDir?: string;
  /** True when the user trusts the workspace; launching and process control require it. */
  isTrusted(): boolean;
}

export function createServices(context: vscode.ExtensionContext): Services {
  const log = vscode.window.createOutputChannel('AgentJet', { log: true });
  context.subscriptions.push(
    log,
    vscode.commands.registerCommand('agentjet.showOutput', () => log.show(true)),
  );
  return {
    log,
    extensionUri: context.extensionUri,
    storageDir: context.globalStorageUri.scheme === 'file' ? context.globalStorageUri.fsPath : undefined,
    isTrusted: () => vscode.workspace.isTrusted,
  };
}
