// The language features of the config server over a parsed document: completion (and its
// resolve), hover, definition, document links and code actions. server.ts owns the documents,
// the ConfigService and validation; it hands them here once.
import {
  CompletionItemKind,
  CompletionItemTag,
  CodeActionKind,
  InsertTextFormat,
  InsertTextMode,
  MarkupKind,
  type CompletionItem,
  type CodeAction,
  type Range,
} from 'vscode-languageserver/node';
import type { Connection, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import type { ConfigService } from '../core/config/service';
import { complete, describePath, type CompletionEntry } from '../core/config/completion';
import { hover, definition, documentLinks } from '../core/config/hover';
import { codeActions } from '../core/config/codeActions';
import type { Fix } from '../core/config/diagnostics';
import { type ConfigCompletionData } from '../core/protocol/config';
import { TRUST_COMMAND, trustActionTitle } from '../core/trust/policy';
import { filePath } from './paths';

const KIND: Record<CompletionEntry['kind'], CompletionItemKind> = {
  key: CompletionItemKind.Property,
  section: CompletionItemKind.Module,
  value: CompletionItemKind.Value,
  enum: CompletionItemKind.EnumMember,
  module: CompletionItemKind.Module,
  class: CompletionItemKind.Class,
  boolean: CompletionItemKind.Value,
};

/** Answers the language requests of `connection` about `documents`; `service` is the current ConfigService (initialize replaces it). */
export function registerLanguageFeatures(
  connection: Connection,
  documents: TextDocuments<TextDocument>,
  service: () => ConfigService,
): void {
  function parsed(uri: string) {
    const doc = documents.get(uri);
    if (!doc) return undefined;
    const p = service().parse(uri, doc.version, doc.getText());
    const path = filePath(uri);
    return p ? { doc, p, ctx: { ...service().context(path), facts: service().factsFor(path, p) } } : undefined;
  }

  connection.onCompletion((params, token): CompletionItem[] => {
    const s = parsed(params.textDocument.uri);
    if (!s || token.isCancellationRequested) return [];
    const offset = s.doc.offsetAt(params.position);
    // The entries mostly share one replace range: it is computed once per distinct range.
    let last: { from: number; to: number; range: Range } | undefined;
    const rangeOf = (from: number, to: number): Range => {
      if (last?.from !== from || last.to !== to) last = { from, to, range: { start: s.doc.positionAt(from), end: s.doc.positionAt(to) } };
      return last.range;
    };
    return complete(s.p, offset, s.ctx).map((e) => {
      const item: CompletionItem = {
        label: e.label,
        kind: KIND[e.kind],
        sortText: e.sortText,
        insertTextFormat: e.snippet ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
        // Snippet lines are relative to the key: the editor adds the line's indentation.
        insertTextMode: InsertTextMode.adjustIndentation,
        textEdit: { range: rangeOf(e.from, e.to), newText: e.insertText },
      };
      // Left out when it is the label: the protocol's default filter text is the label.
      if (e.filterText !== undefined && e.filterText !== e.label) item.filterText = e.filterText;
      if (e.detail) item.detail = e.detail;
      if (e.labelDetail || e.labelDescription)
        item.labelDetails = {
          ...(e.labelDetail ? { detail: e.labelDetail } : {}),
          ...(e.labelDescription ? { description: e.labelDescription } : {}),
        };
      if (e.documentation) item.documentation = { kind: MarkupKind.Markdown, value: e.documentation };
      if (e.docPath) item.data = { path: e.docPath, dialect: s.p.dialect, uri: params.textDocument.uri } satisfies ConfigCompletionData;
      if (e.deprecated) item.tags = [CompletionItemTag.Deprecated];
      if (e.retrigger) item.command = { title: 'suggest', command: 'editor.action.triggerSuggest' };
      return item;
    });
  });

  connection.onCompletionResolve((item) => {
    const data = item.data as Partial<ConfigCompletionData> | undefined;
    if (data?.path && !item.documentation) {
      const s = data.uri ? parsed(data.uri) : undefined;
      const md = describePath(data.path, data.dialect ?? 'agentjet', s?.ctx.facts?.schema);
      if (md) item.documentation = { kind: MarkupKind.Markdown, value: md };
    }
    return item;
  });

  connection.onHover((params) => {
    const s = parsed(params.textDocument.uri);
    if (!s) return null;
    const h = hover(s.p, s.doc.offsetAt(params.position), s.ctx);
    return h ? { contents: { kind: MarkupKind.Markdown, value: h.markdown }, range: h.range } : null;
  });

  connection.onDefinition((params) => {
    const s = parsed(params.textDocument.uri);
    if (!s) return null;
    const d = definition(s.p, s.doc.offsetAt(params.position), s.ctx);
    if (!d) return null;
    if ('range' in d) return { uri: params.textDocument.uri, range: d.range };
    const pos = { line: d.line, character: d.character };
    return { uri: URI.file(d.file).toString(), range: { start: pos, end: pos } };
  });

  connection.onDocumentLinks((params) => {
    const s = parsed(params.textDocument.uri);
    if (!s) return [];
    return documentLinks(s.p, s.ctx).map((l) => ({ range: l.range, target: URI.file(l.file).toString() }));
  });

  connection.onCodeAction((params): CodeAction[] => {
    const s = parsed(params.textDocument.uri);
    if (!s) return [];
    const diags = params.context.diagnostics
      .filter((d) => d.source === 'agentjet' || (d.data as { ours?: boolean } | undefined)?.ours === true)
      .map((d) => ({
        code: String(d.code ?? ''),
        range: d.range,
        fixes: (d.data as { fixes?: Fix[] } | undefined)?.fixes ?? [],
      }));
    const only = params.context.only;
    // What waits for trust offers VS Code's trust editor (the one place trust is granted).
    const trustActions: CodeAction[] = params.context.diagnostics
      .filter((d) => d.code === 'class-ref/waits-for-trust')
      .slice(0, 1)
      .map((d) => ({
        title: trustActionTitle(),
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        command: { title: trustActionTitle(), command: TRUST_COMMAND },
      }));
    const fixes = codeActions(s.p, diags, s.ctx.facts)
      .filter((a) => !only || only.some((k) => a.kind === k || a.kind.startsWith(k + '.')))
      .map((a) => {
        const action: CodeAction = { title: a.title, kind: a.kind, edit: { changes: { [params.textDocument.uri]: a.edits } } };
        if (a.preferred) action.isPreferred = true;
        const d = params.context.diagnostics.find((x) => x.code === a.diagnosticCode);
        if (d) action.diagnostics = [d];
        return action;
      });
    return [...fixes, ...(only && !only.some((k) => CodeActionKind.QuickFix.startsWith(k)) ? [] : trustActions)];
  });
}
