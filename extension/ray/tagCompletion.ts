// Completion of `bp()` tags inside "debugTags": [...] of launch.json.
import * as vscode from 'vscode';
import { workspaceTags } from './bpCodeLens';
import { insideDebugTags } from '../../core/ray/tags';

export class DebugTagCompletionProvider implements vscode.CompletionItemProvider {
  async provideCompletionItems(
    doc: vscode.TextDocument,
    pos: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.CompletionItem[]> {
    if (!insideDebugTags(doc.getText(), doc.offsetAt(pos))) return [];
    const tags = await workspaceTags(token);
    // Inside a string when the quotes before the cursor on this line are odd in number.
    const inString = (doc.lineAt(pos.line).text.slice(0, pos.character).replace(/\\./g, '').match(/"/g)?.length ?? 0) % 2 === 1;
    return [...tags.entries()].map(([tag, locs]) => {
      const item = new vscode.CompletionItem(tag, vscode.CompletionItemKind.Constant);
      item.insertText = inString ? tag : `"${tag}"`;
      item.detail = vscode.l10n.t('bp("{0}"): {1} call(s)', tag, locs.length);
      item.documentation = locs
        .slice(0, 5)
        .map((l) => `${vscode.workspace.asRelativePath(l.uri)}:${l.range.start.line + 1}`)
        .join('\n');
      return item;
    });
  }
}
