// One token log as the `agentjet.tokenLog` editor holds it: the index of the file (a LogSession),
// indexed once in the background (resumable after cancel), then kept up to date as the run appends
// to it; its webviews (tokenLogPanel.ts) ask it for list pages and single records.
import type * as vscode from 'vscode';
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { LogSession } from '../../core/logs/session';
import { FactsCache } from '../../core/logs/cache';
import type { Panel } from './tokenLogPanel';
import { CancelledError } from '../../core/logs/index';
import type { GroupMember, HostToView } from '../../core/protocol/tokenlog';
import type { Services } from '../services';

/** Fallback poll for live tail when file events are not delivered (network file systems). */
const POLL_MS = 2000;
const GROUP_PREVIEW_TOKENS = 4000;

/** `fn`, at most once per `ms` (the calls in between are dropped): progress, not results. */
function atMostEvery<A extends unknown[]>(ms: number, fn: (...args: A) => void): (...args: A) => void {
  let last = 0;
  return (...args) => {
    const now = Date.now();
    if (now - last <= ms) return;
    last = now;
    fn(...args);
  };
}

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
      try {
        await this.session.update({
          signal: ac.signal,
          progress: atMostEvery(100, (done, total) => this.broadcast({ type: 'progress', phase: 'index', done, total, cancellable: true })),
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
        await this.session.summarize({
          signal: ac.signal,
          progress: atMostEvery(250, (done, total) => {
            this.broadcast({ type: 'progress', phase: 'summaries', done, total, cancellable: true });
            this.sendStatus(true);
            this.refreshLists(false);
          }),
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

  /** Records or their summaries are still being read: a filtered list may yet grow. */
  get reading(): boolean {
    if (this.cancelled) return false; // the user stopped it: what is listed is all there will be
    return !this.indexedOnce || this.session.summarized < this.session.count;
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
