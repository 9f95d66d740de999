// "Debug training with this tag" above each `bp("TAG")` call in Python files.
import * as vscode from 'vscode';
import { findBpCalls } from '../../core/ray/tags';

export class BpCodeLensProvider implements vscode.CodeLensProvider {
  provideCodeLenses(doc: vscode.TextDocument, token: vscode.CancellationToken): vscode.CodeLens[] {
    if (token.isCancellationRequested || doc.lineCount > 50_000) return [];
    return findBpCalls(doc.getText()).map(
      (c) =>
        new vscode.CodeLens(new vscode.Range(c.line, c.column, c.line, c.endColumn), {
          title: vscode.l10n.t('Debug training with this tag'),
          tooltip: vscode.l10n.t('Launch with RAY_DEBUG=1 and --debug "{0}"; the Ray worker that reaches this bp() opens here.', c.tag),
          command: 'agentjet.ray.debugWithTag',
          arguments: [c.tag, doc.uri],
        }),
    );
  }
}

/** Every tag of `bp("TAG")` calls in the workspace's Python files (bounded scan). */
export async function workspaceTags(token?: vscode.CancellationToken): Promise<Map<string, vscode.Location[]>> {
  const files = await vscode.workspace.findFiles(
    '**/*.py',
    '{**/node_modules/**,**/.venv/**,**/venv/**,**/site-packages/**,**/.git/**}',
    2000,
    token,
  );
  const tags = new Map<string, vscode.Location[]>();
  for (const f of files) {
    if (token?.isCancellationRequested) break;
    let text: string;
    try {
      text = new TextDecoder().decode(await vscode.workspace.fs.readFile(f));
    } catch {
      continue;
    }
    for (const c of findBpCalls(text)) {
      const list = tags.get(c.tag) ?? [];
      list.push(new vscode.Location(f, new vscode.Position(c.line, c.column)));
      tags.set(c.tag, list);
    }
  }
  return tags;
}
