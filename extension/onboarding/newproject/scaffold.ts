// The hook for core/config/scaffold.ts: a code action on the config server's class-reference
// diagnostics ("Create class X in pkg/mod.py"). Kept client-side so the server's features stay as they are.
import * as vscode from 'vscode';
import { SCAFFOLD_CODES, parseRefLine, planScaffold, scaffoldText } from '../../../core/config/scaffold';

function codeOf(d: vscode.Diagnostic): string | undefined {
  const c = d.code;
  if (typeof c === 'string') return c;
  if (typeof c === 'number') return String(c);
  return c ? String(c.value) : undefined;
}

async function readText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

export class ScaffoldCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  async provideCodeActions(
    doc: vscode.TextDocument,
    _range: vscode.Range,
    ctx: vscode.CodeActionContext,
    token: vscode.CancellationToken,
  ): Promise<vscode.CodeAction[]> {
    const out: vscode.CodeAction[] = [];
    const root = vscode.workspace.getWorkspaceFolder(doc.uri)?.uri;
    if (!root || root.scheme !== 'file') return out;
    for (const d of ctx.diagnostics) {
      const code = codeOf(d);
      if (!code || !SCAFFOLD_CODES.has(code)) continue;
      const ref = parseRefLine(doc.lineAt(d.range.start.line).text);
      const plan = ref && planScaffold(ref.key, ref.value, root.fsPath);
      if (!plan || token.isCancellationRequested) continue;
      let target = vscode.Uri.file(plan.file);
      let existing = await readText(target);
      if (existing === undefined && plan.packageInit !== plan.file) {
        const init = await readText(vscode.Uri.file(plan.packageInit));
        if (init !== undefined) {
          target = vscode.Uri.file(plan.packageInit);
          existing = init;
        }
      }
      const rel = vscode.workspace.asRelativePath(target, false);
      const title =
        plan.kind === 'workflow'
          ? vscode.l10n.t('Create workflow class {0} in {1}', plan.className, rel)
          : vscode.l10n.t('Create judge class {0} in {1}', plan.className, rel);
      const action = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
      action.diagnostics = [d];
      action.isPreferred = true;
      const edit = new vscode.WorkspaceEdit();
      const text = scaffoldText(plan, existing);
      if (existing === undefined) {
        // createFile + insert (not `contents`): the edit must survive the trip through commands.
        edit.createFile(target, { ignoreIfExists: true });
        edit.insert(target, new vscode.Position(0, 0), text);
      } else {
        const lines = existing.split('\n');
        edit.insert(target, new vscode.Position(lines.length - 1, (lines[lines.length - 1] ?? '').length), text);
      }
      action.edit = edit;
      out.push(action);
    }
    return out;
  }
}

export function registerScaffold(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.languages.registerCodeActionsProvider({ language: 'yaml', scheme: 'file' }, new ScaffoldCodeActions(), {
      providedCodeActionKinds: ScaffoldCodeActions.kinds,
    }),
  );
}
