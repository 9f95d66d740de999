// CodeLens on the root key of every AgentJet config: Debug rollout, Run rollout, Train (verl),
// Train (trinity), then Train with editor breakpoints (Ray workers).
import * as vscode from 'vscode';
import { findRootLine } from '../../core/agentjet/dialect';
import type { TrustService } from '../trust';

/** Launch lenses on the root key of a config; they need trust, and appear once the user grants it. */
export abstract class ConfigRootLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly trustSub: vscode.Disposable;

  constructor(private readonly trust: TrustService) {
    this.trustSub = trust.onDidGrant(() => this.changed.fire());
  }

  dispose(): void {
    this.trustSub.dispose();
    this.changed.dispose();
  }

  provideCodeLenses(doc: vscode.TextDocument, token: vscode.CancellationToken): vscode.CodeLens[] {
    if (!this.trust.allows('run-process') || token.isCancellationRequested) return [];
    const root = findRootLine(doc.getText());
    if (!root) return [];
    const pos = doc.positionAt(root.offset);
    return this.lenses(doc, new vscode.Range(pos, pos));
  }

  protected abstract lenses(doc: vscode.TextDocument, range: vscode.Range): vscode.CodeLens[];
}

export class AgentJetCodeLensProvider extends ConfigRootLensProvider {
  protected lenses(doc: vscode.TextDocument, range: vscode.Range): vscode.CodeLens[] {
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
      // The advanced one last, from the same provider so the order holds (two providers' lenses on
      // one line are ordered by VS Code, and put this one first).
      new vscode.CodeLens(range, {
        title: vscode.l10n.t('$(debug-breakpoint) Train with editor breakpoints (Ray workers)'),
        tooltip: vscode.l10n.t(
          'Train this config (verl) with the gutter breakpoints you set in code that runs in Ray workers; no bp() needed.',
        ),
        command: 'agentjet.ray.debugWithBreakpoints',
        arguments: [doc.uri],
      }),
    ];
  }
}
