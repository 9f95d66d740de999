// The `agentjet.tokenLog` custom editor: the extension host holds only the index of the log
// (a LogSession, in tokenLogDocument.ts); the webview asks for list pages and single records.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { Panel } from './tokenLogPanel';
import { TokenLogDocument } from './tokenLogDocument';
import type { ViewCommand, ViewReport, ViewToHost } from '../../core/protocol/tokenlog';
import { checkViewToHost, describeRefused } from '../../core/protocol/validate';
import { webviewHtml, webviewOptions } from '../webview';
import type { Services } from '../services';

export const TOKEN_LOG_VIEW_TYPE = 'agentjet.tokenLog';

export class TokenLogEditorProvider implements vscode.CustomReadonlyEditorProvider<TokenLogDocument> {
  private readonly docs = new Set<TokenLogDocument>();

  constructor(private readonly services: Services) {}

  openCustomDocument(uri: vscode.Uri): TokenLogDocument {
    const doc = new TokenLogDocument(uri, this.services);
    this.docs.add(doc);
    return doc;
  }

  resolveCustomEditor(doc: TokenLogDocument, webviewPanel: vscode.WebviewPanel, token: vscode.CancellationToken): void {
    const ext = this.services.extensionUri;
    webviewPanel.webview.options = webviewOptions(ext);
    webviewPanel.webview.html = webviewHtml(webviewPanel.webview, ext, 'tokenlog', {
      title: `Token log: ${basename(doc.uri.fsPath)}`,
      styles: ['shared/panel.css', 'tokenlog/tokenlog.css', 'tokenlog/list.css', 'tokenlog/detail.css'],
    });
    const panel = new Panel(doc, webviewPanel);
    doc.panels.add(panel);
    const subs: vscode.Disposable[] = [];
    subs.push(
      webviewPanel.webview.onDidReceiveMessage((raw: unknown) => {
        // The webview is not trusted: a message that does not fit the protocol is refused.
        const checked = checkViewToHost(raw);
        if (!checked.ok) {
          this.services.log.warn(`token log: refused a message from the webview (${describeRefused(raw)}: ${checked.error})`);
          // A saved state that no longer fits (an older version's) must not keep the view from starting.
          if (describeRefused(raw) === '"ready"') void this.onMessage(panel, { type: 'ready' });
          return;
        }
        void this.onMessage(panel, checked.value);
      }),
    );
    webviewPanel.onDidDispose(() => {
      panel.searchAbort?.abort();
      panel.countsAbort?.abort();
      doc.panels.delete(panel);
      for (const d of subs) d.dispose();
      if (doc.panels.size === 0) {
        doc.dispose();
        this.docs.delete(doc);
      }
    });
    if (token.isCancellationRequested) webviewPanel.dispose();
  }

  private async onMessage(panel: Panel, m: ViewToHost): Promise<void> {
    const doc = panel.doc;
    const s = doc.session;
    switch (m.type) {
      case 'ready': {
        panel.ready = true;
        if (m.state) {
          panel.filter = m.state.filter ?? {};
          panel.sort = m.state.sort ?? { key: 'index' };
        }
        panel.post({ type: 'init', name: basename(doc.uri.fsPath), files: s.index.files.map((f) => f.path) });
        panel.post(doc.status());
        panel.refreshList(true);
        const text = this.pendingFilter.get(doc.uri.fsPath);
        if (text !== undefined) {
          this.pendingFilter.delete(doc.uri.fsPath);
          panel.post({ type: 'command', command: { kind: 'filter', filter: { text } } });
        }
        await doc.ensureIndexed();
        // Again, now that rotated siblings are known (the title's tooltip lists them).
        panel.post({ type: 'init', name: basename(doc.uri.fsPath), files: s.index.files.map((f) => f.path) });
        return;
      }
      case 'query':
        panel.filter = m.filter;
        panel.sort = m.sort;
        panel.refreshList(true);
        return;
      case 'rows': {
        if (m.version !== panel.version) return;
        const ids = panel.list.slice(Math.max(0, m.offset), Math.max(0, m.offset) + Math.min(500, Math.max(0, m.count)));
        // While indexing, the rows on screen get their summaries first.
        await s.summarizeSome(ids).catch(() => undefined);
        if (m.version !== panel.version) return;
        panel.post({ type: 'rows', version: panel.version, offset: m.offset, rows: ids.map((i) => panel.row(i)) });
        await this.fillCounts(panel, m.version, m.offset, ids);
        return;
      }
      case 'open': {
        // A record past the indexed part (state restored while indexing): wait for the index.
        if (m.index >= s.count) await doc.whenIndexed();
        const r = await s.record(m.index);
        if (!r) {
          panel.post({ type: 'record', index: m.index, ok: false, error: 'no such record (the file changed?)', row: { index: m.index } });
          return;
        }
        if (r.ok) panel.post({ type: 'record', index: m.index, ok: true, record: r.record, row: s.row(m.index) });
        else panel.post({ type: 'record', index: m.index, ok: false, error: r.error, row: s.row(m.index) });
        return;
      }
      case 'group':
        panel.post({ type: 'group', taskId: m.taskId, step: m.step, members: await doc.group(m.taskId, m.step) });
        return;
      case 'locate':
        panel.post({ type: 'located', index: m.index, position: panel.list.indexOf(m.index) });
        return;
      case 'cancel':
        doc.cancel();
        return;
      case 'resume':
        doc.resume();
        return;
      case 'copy':
        await vscode.env.clipboard.writeText(m.text);
        void vscode.window.setStatusBarMessage(`AgentJet: copied ${m.what}`, 3000);
        return;
      case 'openRaw':
        await vscode.commands.executeCommand('vscode.openWith', doc.uri, 'default');
        return;
      case 'report':
        panel.report = m.report;
        return;
    }
  }

  /**
   * Token counts need a full decode: do it for the rows on screen only, then send them again.
   * A newer request (the user scrolled on) cancels the previous one.
   */
  private async fillCounts(panel: Panel, version: number, offset: number, ids: number[]): Promise<void> {
    const s = panel.doc.session;
    const missing = ids
      .filter((i) => {
        const r = s.row(i);
        return r.tokens === undefined && r.error === undefined;
      })
      .slice(0, 80);
    panel.countsAbort?.abort();
    if (missing.length === 0) return;
    const ac = new AbortController();
    panel.countsAbort = ac;
    let sent = Date.now();
    for (let k = 0; k < missing.length; k++) {
      if (ac.signal.aborted || panel.version !== version) return;
      await s.record(missing[k]!);
      if (k === missing.length - 1 || Date.now() - sent > 200) {
        sent = Date.now();
        if (panel.version === version) panel.post({ type: 'rows', version, offset, rows: ids.map((i) => panel.row(i)) });
      }
    }
  }

  /**
   * Test hook: the latest report of every open token log view, with what the facts cache said
   * when the document opened (per file) and whether every record's facts are known and saved.
   */
  inspect(): { path: string; report?: ViewReport; cache: string[]; facts: { known: number; count: number; finished: boolean } }[] {
    return [...this.docs].flatMap((d) =>
      [...d.panels].map((p) => ({
        path: d.uri.fsPath,
        report: p.report,
        cache: [...d.session.cacheOutcomes],
        facts: { known: d.session.factsKnown, count: d.session.count, finished: d.factsFinished },
      })),
    );
  }

  /** Filters waiting for the view of a path to start (openTokenLog with a text). */
  private readonly pendingFilter = new Map<string, string>();

  /**
   * Filters the view of `path` by `text`: the views already showing it at once, a view about to
   * open when its page is ready (its own saved filter would otherwise replace it).
   */
  filterOnOpen(path: string, text: string): void {
    const command: ViewCommand = { kind: 'filter', filter: { text } };
    let ready = 0;
    for (const d of this.docs) {
      if (d.uri.fsPath !== path) continue;
      for (const p of d.panels) {
        if (!p.ready) continue;
        p.post({ type: 'command', command });
        ready++;
      }
    }
    if (!ready) this.pendingFilter.set(path, text);
  }

  /** Test hook: drives the views of `path` (or all) as a user would. */
  drive(command: ViewCommand, path?: string): number {
    let n = 0;
    for (const d of this.docs) {
      if (path && d.uri.fsPath !== path) continue;
      for (const p of d.panels) {
        p.post({ type: 'command', command });
        n++;
      }
    }
    return n;
  }
}
