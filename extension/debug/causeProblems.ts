// A failed launch's causes (core/diagnose, read from its output) as Problems on the config it ran,
// each on the line of the key its fix changes, with that change as a quick fix (lower
// `gpu_memory_utilization`, set `max_model_len`, turn on offload ...). Causes whose fix is not a
// config edit (an install, an environment variable) are Problems on the config's first line.
import * as vscode from 'vscode';
import type { LaunchCause } from '../../core/protocol/debug';
import { configTextEdit } from '../../core/diagnose/configEdit';
import { CAUSE_CODES, type CauseCode } from '../../core/diagnose/types';

/** Edits offered for a Problem, by `<uri>#<line>#<message>` (the code action context gets copies of diagnostics). */
const offered = new Map<string, { key: string; value: number | boolean | string }[]>();
const keyOf = (uri: vscode.Uri, line: number, message: string) => `${uri.toString()}#${line}#${message}`;

/** The Problems of a failed launch's causes, added to `collection` for `config`. */
export async function showCauseProblems(
  collection: vscode.DiagnosticCollection,
  config: string,
  causes: readonly LaunchCause[],
): Promise<void> {
  const uri = vscode.Uri.file(config);
  let text = '';
  try {
    text = (await vscode.workspace.openTextDocument(uri)).getText();
  } catch {
    /* the config is gone: the Problems go on its first line */
  }
  // The causes of an earlier launch of this config go; its other Problems (tracebacks) stay.
  const list = (collection.get(uri) ?? []).filter((d) => !(d.source === 'agentjet' && CAUSE_CODES.includes(String(d.code) as CauseCode)));
  for (const c of causes) {
    const edits = c.edits ?? [];
    const first = edits.map((e) => configTextEdit(text, e)).find((e) => e !== undefined);
    const line = first?.line ?? 0;
    const message = vscode.l10n.t('{0}: {1} {2}', c.code, c.message, c.fix);
    const d = new vscode.Diagnostic(new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER), message, vscode.DiagnosticSeverity.Error);
    d.source = 'agentjet';
    d.code = c.code;
    list.push(d);
    if (edits.length) offered.set(keyOf(uri, line, message), edits);
  }
  collection.set(uri, list);
}

/** The quick fixes of the Problems above: each config edit of the cause, applied to the config's text now. */
export class CauseQuickFixes implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const out: vscode.CodeAction[] = [];
    for (const d of context.diagnostics) {
      if (d.source !== 'agentjet') continue;
      const edits = offered.get(keyOf(document.uri, d.range.start.line, d.message));
      if (!edits) continue;
      const text = document.getText();
      edits.forEach((e, i) => {
        const te = configTextEdit(text, e);
        if (!te) return;
        const action = new vscode.CodeAction(vscode.l10n.t('Set {0} to {1}', e.key, te.value), vscode.CodeActionKind.QuickFix);
        action.diagnostics = [d];
        action.isPreferred = i === 0;
        action.edit = new vscode.WorkspaceEdit();
        action.edit.replace(document.uri, new vscode.Range(document.positionAt(te.start), document.positionAt(te.end)), te.newText);
        out.push(action);
      });
    }
    return out;
  }
}
