// The AgentJet config language server (stdio or IPC). Only documents whose root mapping holds
// ajet/astuner/astune are handled; every other YAML file gets nothing from us.
import {
  createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind, DiagnosticSeverity, CompletionItemKind,
  CodeActionKind, InsertTextFormat, MarkupKind, type Diagnostic, type CompletionItem, type CodeAction, type InitializeResult,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import { ConfigService } from '../core/config/service';
import { complete, describePath, hover, definition, documentLinks, codeActions, type CompletionEntry } from '../core/config/features';
import type { ConfigDiagnostic, Fix } from '../core/config/diagnostics';
import type { ConfigServerInitOptions, ConfigCompletionData } from '../core/protocol/config';


const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
let service = new ConfigService();
const published = new Set<string>();
const timers = new Map<string, ReturnType<typeof setTimeout>>();

function filePath(uri: string): string | undefined {
  try { const u = URI.parse(uri); return u.scheme === 'file' ? u.fsPath : undefined; } catch { return undefined; }
}

connection.onInitialize((params): InitializeResult => {
  const opts = (params.initializationOptions ?? {}) as Partial<ConfigServerInitOptions>;
  const roots = (params.workspaceFolders ?? []).map((f) => filePath(f.uri)).filter((x): x is string => !!x);
  if (!roots.length && params.rootUri) { const r = filePath(params.rootUri); if (r) roots.push(r); }
  service = new ConfigService({ pythonPath: opts.pythonPath || undefined, roots, reportSyntaxErrors: opts.reportSyntaxErrors !== false });
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      completionProvider: { triggerCharacters: [':', ' ', '>', '.', '-'], resolveProvider: true },
      hoverProvider: true,
      definitionProvider: true,
      documentLinkProvider: { resolveProvider: false },
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.RefactorRewrite] },
    },
    serverInfo: { name: 'agentjet-config', version: '0.1.0' },
  };
});

connection.onInitialized(() => {
  connection.workspace.onDidChangeWorkspaceFolders(() => {
    void connection.workspace.getWorkspaceFolders().then((folders) => {
      service.setRoots((folders ?? []).map((f) => filePath(f.uri)).filter((x): x is string => !!x));
    }, () => undefined);
  });
});

const SEVERITY: Record<ConfigDiagnostic['severity'], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error, warning: DiagnosticSeverity.Warning, information: DiagnosticSeverity.Information, hint: DiagnosticSeverity.Hint,
};

function toLsp(d: ConfigDiagnostic): Diagnostic {
  const out: Diagnostic = { range: d.range, severity: SEVERITY[d.severity], code: d.code, source: 'agentjet', message: d.message };
  if (d.fixes?.length) out.data = { fixes: d.fixes };
  if (d.code === 'deprecated-key') out.tags = [2];
  return out;
}

function validate(doc: TextDocument): void {
  let result;
  try {
    result = service.diagnose(doc.uri, doc.version, doc.getText(), filePath(doc.uri));
  } catch (err) {
    connection.console.error(`agentjet: validation failed for ${doc.uri}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    return;
  }
  if (!result.ours && !published.has(doc.uri)) return;
  if (result.ours) published.add(doc.uri); else published.delete(doc.uri);
  void connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics: result.diagnostics.map(toLsp) });
}

function schedule(doc: TextDocument, delay: number): void {
  const t = timers.get(doc.uri);
  if (t) clearTimeout(t);
  timers.set(doc.uri, setTimeout(() => {
    timers.delete(doc.uri);
    const cur = documents.get(doc.uri);
    if (cur) validate(cur);
  }, delay));
}

// TextDocuments reports an open as a content change too: validate a fresh document at once and
// debounce only real edits.
documents.onDidChangeContent((e) => schedule(e.document, e.document.version <= 1 ? 0 : 120));
documents.onDidClose((e) => {
  service.forget(e.document.uri);
  const t = timers.get(e.document.uri);
  if (t) clearTimeout(t);
  if (published.delete(e.document.uri)) void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
});

function parsed(uri: string) {
  const doc = documents.get(uri);
  if (!doc) return undefined;
  const p = service.parse(uri, doc.version, doc.getText());
  return p ? { doc, p, ctx: service.context(filePath(uri)) } : undefined;
}

const KIND: Record<CompletionEntry['kind'], CompletionItemKind> = {
  key: CompletionItemKind.Property, section: CompletionItemKind.Module, value: CompletionItemKind.Value, enum: CompletionItemKind.EnumMember,
  module: CompletionItemKind.Module, class: CompletionItemKind.Class, boolean: CompletionItemKind.Value,
};

connection.onCompletion((params, token): CompletionItem[] => {
  const s = parsed(params.textDocument.uri);
  if (!s || token.isCancellationRequested) return [];
  const offset = s.doc.offsetAt(params.position);
  return complete(s.p, offset, s.ctx).map((e) => {
    const item: CompletionItem = {
      label: e.label, kind: KIND[e.kind], sortText: e.sortText, filterText: e.label,
      insertTextFormat: e.snippet ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
      textEdit: { range: { start: s.doc.positionAt(e.from), end: s.doc.positionAt(e.to) }, newText: e.insertText },
    };
    if (e.detail) item.detail = e.detail;
    if (e.documentation) item.documentation = { kind: MarkupKind.Markdown, value: e.documentation };
    if (e.docPath) item.data = { path: e.docPath, dialect: s.p.dialect } satisfies ConfigCompletionData;
    if (e.deprecated) item.tags = [1];
    if (e.retrigger) item.command = { title: 'suggest', command: 'editor.action.triggerSuggest' };
    return item;
  });
});

connection.onCompletionResolve((item) => {
  const data = item.data as Partial<ConfigCompletionData> | undefined;
  if (data?.path && !item.documentation) {
    const md = describePath(data.path, data.dialect ?? 'agentjet');
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
  const diags = params.context.diagnostics.filter((d) => d.source === 'agentjet').map((d) => ({
    code: String(d.code ?? ''), range: d.range, fixes: ((d.data as { fixes?: Fix[] } | undefined)?.fixes ?? []),
  }));
  const only = params.context.only;
  return codeActions(s.p, diags)
    .filter((a) => !only || only.some((k) => a.kind === k || a.kind.startsWith(k + '.')))
    .map((a) => {
      const action: CodeAction = { title: a.title, kind: a.kind, edit: { changes: { [params.textDocument.uri]: a.edits } } };
      if (a.preferred) action.isPreferred = true;
      const d = params.context.diagnostics.find((x) => x.code === a.diagnosticCode);
      if (d) action.diagnostics = [d];
      return action;
    });
});

documents.listen(connection);
connection.listen();
