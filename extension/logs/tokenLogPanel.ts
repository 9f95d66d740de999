// One webview of a token log document: its own filter, sort and list, and the streamed text
// search (scanned on worker threads) whose hits it posts to the webview as they arrive.
import type * as vscode from 'vscode';
import type { RecordFilter } from '../../core/logs/session';
import { CancelledError } from '../../core/logs/index';
import type { Filter, HostToView, Row, Sort, ViewReport } from '../../core/protocol/tokenlog';
import type { TokenLogDocument } from './tokenLogDocument';

export function toRecordFilter(f: Filter): RecordFilter {
  const out: RecordFilter = {};
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  out.stepMin = n(f.stepMin);
  out.stepMax = n(f.stepMax);
  out.rewardMin = n(f.rewardMin);
  out.rewardMax = n(f.rewardMax);
  if (typeof f.outcome === 'string' && f.outcome) out.outcome = f.outcome;
  return out;
}

/** One webview showing a document, with its own filter, sort and list. */
export class Panel {
  list: number[] = [];
  version = 0;
  filter: Filter = {};
  sort: Sort = { key: 'index' };
  searchAbort?: AbortController;
  countsAbort?: AbortController;
  searching = false;
  report?: ViewReport;
  ready = false;
  private lastListPost = 0;

  constructor(
    readonly doc: TokenLogDocument,
    readonly webview: vscode.WebviewPanel,
  ) {}

  post(m: HostToView): void {
    void this.webview.webview.postMessage(m);
  }

  /** Recomputes the list from summaries; starts a text search when the filter has text. */
  refreshList(restartSearch: boolean): void {
    const s = this.doc.session;
    const base = s.query(toRecordFilter(this.filter), this.sort);
    const text = this.filter.text?.trim();
    if (!text) {
      this.searchAbort?.abort();
      this.searching = false;
      // Unfiltered file order only grows at the end: positions stay, so the view keeps its rows.
      const f = this.filter;
      const appendOnly =
        !restartSearch &&
        this.sort.key === 'index' &&
        !this.sort.desc &&
        f.stepMin === undefined &&
        f.stepMax === undefined &&
        f.rewardMin === undefined &&
        f.rewardMax === undefined &&
        !f.outcome &&
        base.length >= this.list.length;
      this.list = base;
      this.postList(appendOnly);
      return;
    }
    if (!restartSearch && this.searching) return;
    if (!restartSearch && !this.searching) {
      // New records while a finished search is shown: search only the new ones.
      const known = new Set(this.list);
      const seen = this.searchedUpTo;
      const fresh = base.filter((i) => i >= seen && !known.has(i));
      if (fresh.length === 0) return;
      void this.runSearch(text, fresh, false);
      return;
    }
    this.list = [];
    this.hits.clear();
    void this.runSearch(text, base, true);
  }

  private searchedUpTo = 0;
  readonly hits = new Map<number, NonNullable<Row['hit']>>();

  row(i: number): Row {
    const r: Row = this.doc.session.row(i);
    const h = this.filter.text ? this.hits.get(i) : undefined;
    return h ? { ...r, hit: h } : r;
  }

  private async runSearch(text: string, candidates: number[], fresh: boolean): Promise<void> {
    this.searchAbort?.abort();
    const ac = new AbortController();
    this.searchAbort = ac;
    this.searching = true;
    if (fresh) {
      this.version++;
      this.postList(true);
    }
    const s = this.doc.session;
    this.searchedUpTo = s.count;
    let reordered = false;
    try {
      // Scanned on worker threads (off this thread), in file order; the list keeps the sort order.
      const version = this.version;
      await s.search(text, candidates, {
        signal: ac.signal,
        onHit: (h) => {
          this.list.push(h.index);
          this.hits.set(h.index, { matches: h.matches, timeline: h.timeline, token: h.token, char: h.char, where: h.where });
        },
        onHits: (hits, counts) => {
          if (this.searchAbort !== ac) return;
          this.post({ type: 'searchHits', version, offset: this.list.length - hits.length, hits, counts });
          this.postListThrottled();
        },
        progress: (done, total) => this.post({ type: 'progress', phase: 'search', done, total, cancellable: true }),
      });
      // Hits arrive in file order; a fresh search's list follows the candidates' (sorted) order.
      if (this.searchAbort === ac && fresh) {
        const sorted = candidates.filter((i) => this.hits.has(i));
        // In another order than the file's, the rows already sent moved: the view starts a new list.
        if (sorted.some((i, k) => this.list[k] !== i)) reordered = true;
        this.list = sorted;
      }
      this.post({ type: 'progressEnd', phase: 'search', cancelled: false });
    } catch (err) {
      if (!(err instanceof CancelledError)) this.post({ type: 'error', message: `search failed: ${String(err)}` });
      else if (this.searchAbort === ac) this.post({ type: 'progressEnd', phase: 'search', cancelled: true });
    } finally {
      if (this.searchAbort === ac) {
        this.searching = false;
        this.postList(!reordered);
      }
    }
  }

  private postListThrottled(): void {
    const now = Date.now();
    if (now - this.lastListPost > 150) this.postList(true);
  }

  postList(keepVersion = false): void {
    if (!keepVersion) this.version++;
    this.lastListPost = Date.now();
    const m: HostToView = {
      type: 'list',
      version: this.version,
      total: this.list.length,
      searching: this.searching,
      partial: this.doc.reading,
    };
    if (this.filter.text?.trim()) {
      // Matches in the listed records: the view shows "N matches in M records".
      let hits = 0;
      for (const i of this.list) hits += this.hits.get(i)?.matches ?? 0;
      m.hits = hits;
    }
    this.post(m);
  }
}
