// The `agentjet.tokenLog` custom editor: the extension host holds only the index of the log
// (a LogSession); the webview asks for list pages and single records.
import * as vscode from 'vscode';
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { LogSession } from '../../core/logs/session';
import { FactsCache } from '../../core/logs/cache';
import { Panel } from './tokenLogPanel';
import { CancelledError } from '../../core/logs/index';
import type { GroupMember, HostToView, ViewCommand, ViewReport, ViewToHost } from '../../core/protocol/tokenlog';
import { checkViewToHost, describeRefused } from '../../core/protocol/validate';
import { webviewHtml, webviewOptions } from '../webview';
import type { Services } from '../services';

export const TOKEN_LOG_VIEW_TYPE = 'agentjet.tokenLog';
/** Fallback poll for live tail when file events are not delivered (network file systems). */
const POLL_MS = 2000;
const GROUP_PREVIEW_TOKENS = 4000;

export class TokenLogDocument implements vscode.CustomDocument {
  readonly session: LogSession;
  readonly panels = new Set<Panel>();
  private indexAbort?: AbortController;
  private factsAbort?: AbortController;
  /** Resolves when the background pass that fills token counts (and the facts cache) ends. */
  factsDone?: Promise<void>;
  /** The background facts pass ended (its results saved to the facts cache when there is one). */
  factsFinished = false;
  private indexing?: Promise<void>;
  private indexedOnce = false;
  private cancelled = false;
  private watcher?: FSWatcher;
  private poll?: ReturnType<typeof setInterval>;
  private refreshing = false;
  private refreshAgain = false;
  private disposed = false;
  private lastStatus = 0;

  constructor(
    readonly uri: vscode.Uri,
    private readonly services: Services,
  ) {
    // Per-record facts are kept in the extension's storage: reopening an unchanged file needs
    // neither the summaries pass nor a scan (a changed file is read afresh, see FactsCache).
    const factsCache = services.storageDir ? new FactsCache(join(services.storageDir, 'tokenlog')) : undefined;
    this.session = new LogSession(uri.fsPath, { factsCache });
  }

  dispose(): void {
    this.disposed = true;
    this.indexAbort?.abort();
    this.factsAbort?.abort();
    for (const p of this.panels) p.searchAbort?.abort();
    this.stopWatching();
  }

  broadcast(m: HostToView): void {
    for (const p of this.panels) if (p.ready) p.post(m);
  }

  status(): HostToView {
    const f = this.session.facets();
    return {
      type: 'status',
      records: this.session.count,
      bytes: this.session.index.bytes,
      partialTail: this.session.index.tailPartial,
      problems: this.session.index.problems.map((p) => `${basename(p.file)} @${p.offset}: ${p.reason}`),
      outcomes: f.outcomes,
      steps: f.steps,
    };
  }

  private sendStatus(force = false): void {
    const now = Date.now();
    if (!force && now - this.lastStatus < 200) return;
    this.lastStatus = now;
    this.broadcast(this.status());
  }

  private refreshLists(restartSearch: boolean): void {
    for (const p of this.panels) if (p.ready) p.refreshList(restartSearch);
  }

  /** Indexes the file (once; resumable after cancel), then fills summaries and starts the tail. */
  ensureIndexed(): Promise<void> {
    if (this.indexing) return this.indexing;
    if (this.indexedOnce) return Promise.resolve();
    this.cancelled = false;
    const ac = new AbortController();
    this.indexAbort = ac;
    this.indexing = (async () => {
      let lastProgress = 0;
      try {
        await this.session.update({
          signal: ac.signal,
          progress: (done, total) => {
            const now = Date.now();
            if (now - lastProgress > 100) {
              lastProgress = now;
              this.broadcast({ type: 'progress', phase: 'index', done, total, cancellable: true });
            }
          },
          onRecords: () => {
            // Records appear as soon as their chunk is indexed.
            if (Date.now() - this.lastStatus > 250) {
              this.sendStatus(true);
              this.refreshLists(false);
            }
          },
        });
        this.broadcast({ type: 'progressEnd', phase: 'index', cancelled: false });
        this.sendStatus(true);
        this.refreshLists(false);
        let lastBatch = 0;
        await this.session.summarize({
          signal: ac.signal,
          progress: (done, total) => {
            const now = Date.now();
            if (now - lastBatch > 250) {
              lastBatch = now;
              this.broadcast({ type: 'progress', phase: 'summaries', done, total, cancellable: true });
              this.sendStatus(true);
              this.refreshLists(false);
            }
          },
        });
        this.broadcast({ type: 'progressEnd', phase: 'summaries', cancelled: false });
        this.indexedOnce = true;
        this.sendStatus(true);
        this.refreshLists(false);
        this.startWatching();
        this.factsDone = this.fillFacts();
      } catch (err) {
        if (err instanceof CancelledError) {
          this.cancelled = true;
          this.broadcast({ type: 'progressEnd', phase: 'index', cancelled: true });
          this.sendStatus(true);
          this.refreshLists(false);
        } else {
          this.services.log.error(`token log ${this.uri.fsPath}: ${String(err)}`);
          this.broadcast({
            type: 'error',
            message: `Cannot read ${basename(this.uri.fsPath)}: ${err instanceof Error ? err.message : String(err)}`,
          });
        }
      } finally {
        this.indexing = undefined;
      }
    })();
    return this.indexing;
  }

  /**
   * Token counts of every record, on worker threads in the background, then saved to the facts
   * cache; a cancelled or failed pass only costs the next opening its speed.
   */
  private async fillFacts(): Promise<void> {
    const ac = new AbortController();
    this.factsAbort = ac;
    try {
      await this.session.computeFacts({ signal: ac.signal });
      this.factsFinished = !ac.signal.aborted;
      if (!ac.signal.aborted && !this.disposed) {
        this.sendStatus(true);
        this.refreshLists(false);
      }
    } catch (err) {
      if (!(err instanceof CancelledError)) this.services.log.warn(`token log facts ${this.uri.fsPath}: ${String(err)}`);
    }
  }

  /** Resolves when the running indexing (if any) ends. */
  async whenIndexed(): Promise<void> {
    await this.indexing?.catch(() => undefined);
  }

  cancel(): void {
    this.indexAbort?.abort();
    for (const p of this.panels) p.searchAbort?.abort();
  }

  resume(): void {
    void this.ensureIndexed();
  }

  get isCancelled(): boolean {
    return this.cancelled;
  }

  private startWatching(): void {
    if (this.disposed || this.poll) return;
    try {
      // Watch the folder: loguru rotation renames the file and creates a new one.
      this.watcher = watch(dirname(this.uri.fsPath), { persistent: false }, () => this.refresh());
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      this.watcher = undefined;
    }
    this.poll = setInterval(() => this.refresh(), POLL_MS);
  }

  private stopWatching(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
  }

  /** Picks up appended records (and rotations); coalesces bursts of file events. */
  refresh(): void {
    if (this.disposed || !this.indexedOnce || this.indexing) return;
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    void (async () => {
      try {
        do {
          this.refreshAgain = false;
          const { change, firstNew } = await this.session.update();
          if (change === 'unchanged') continue;
          await this.session.summarize();
          this.sendStatus(true);
          this.broadcast({ type: 'changed', from: firstNew });
          this.refreshLists(change === 'reset');
        } while (this.refreshAgain && !this.disposed);
      } catch (err) {
        this.services.log.warn(`token log refresh ${this.uri.fsPath}: ${String(err)}`);
      } finally {
        this.refreshing = false;
      }
    })();
  }

  async group(taskId: string, step: number | undefined): Promise<GroupMember[]> {
    const s = this.session;
    const members: GroupMember[] = [];
    const idx = s
      .query(step === undefined ? {} : { stepMin: step, stepMax: step })
      .filter((i) => s.row(i).taskId === taskId)
      .slice(0, 64);
    for (const i of idx) {
      const r = await s.record(i);
      if (!r?.ok) continue;
      for (const t of r.record.timelines) {
        let trained = 0;
        for (const m of t.mask) if (m === 1) trained++;
        const from = t.lenPrompt !== undefined && t.lenPrompt > 0 && t.lenPrompt < t.text.length ? t.lenPrompt : 0;
        members.push({
          index: i,
          key: t.key,
          outcome: t.outcome,
          reward: t.rawReward ?? r.record.reward,
          advantage: t.advantage,
          tokens: t.text.length,
          trained,
          promptTokens: from,
          text: t.text.slice(from, from + GROUP_PREVIEW_TOKENS),
          mask: t.mask.slice(from, from + GROUP_PREVIEW_TOKENS),
          truncated: t.text.length - from > GROUP_PREVIEW_TOKENS,
        });
      }
    }
    return members;
  }
}

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
      styles: ['tokenlog/tokenlog.css'],
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
