// CodeLens on the root key of every AgentJet config: Debug rollout, Train (verl), Train (trinity).
import * as vscode from 'vscode';
import { findRootLine } from '../../core/agentjet/dialect';

export class AgentJetCodeLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  // Launch lenses need trust: they appear once the user trusts the workspace.
  private readonly trustSub = vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed.fire());

  dispose(): void {
    this.trustSub.dispose();
    this.changed.dispose();
  }

  provideCodeLenses(doc: vscode.TextDocument, token: vscode.CancellationToken): vscode.CodeLens[] {
    if (!vscode.workspace.isTrusted) return [];
    const text = doc.getText();
    const root = token.isCancellationRequested ? undefined : findRootLine(text);
    if (!root) return [];
    const pos = doc.positionAt(root.offset);
    const range = new vscode.Range(pos, pos);
    return [
      new vscode.CodeLens(range, {
        title: vscode.l10n.t('$(debug-alt) Debug rollout'),
        command: 'agentjet.debugConfig',
        arguments: [doc.uri],
        tooltip: vscode.l10n.t('Run the debug backbone under the debugger (breakpoints in your workflow work)'),
      }),
      new vscode.CodeLens(range, {
        title: vscode.l10n.t('$(play) Run rollout'),
        command: 'agentjet.runConfig',
        arguments: [doc.uri],
        tooltip: vscode.l10n.t('The same, without the debugger'),
      }),
      new vscode.CodeLens(range, {
        title: vscode.l10n.t('$(rocket) Train (verl)'),
        command: 'agentjet.trainConfig',
        arguments: [doc.uri, 'verl'],
      }),
      new vscode.CodeLens(range, {
        title: vscode.l10n.t('$(rocket) Train (trinity)'),
        command: 'agentjet.trainConfig',
        arguments: [doc.uri, 'trinity'],
      }),
    ];
  }
}
