// One open log: the byte index plus per-record summaries (filled lazily in batches), cached
// decoded records, filtering, sorting and whole-file text search. Shared by the viewer, the CLI
// and the benchmark; no editor API here.
import { CancelledError, FileIndex, LogIndex, type UpdateOptions } from './index';
import { countTokens, decodeRecord, summarizePrefix, type RecordResult } from './decode';
import { TOO_LARGE } from './inflate';
import { RecordRows } from './rows';
import { offThread, planTasks, runTasks } from './pool';
import { searchRecords, type SearchOptions } from './sessionsearch';
export { matchRecord } from './sessionsearch';
import { FileChangedError, type RangeTask, type RecordFacts } from './jobs';
import type { CacheOutcome, FactsCache } from './cache';
import type { SearchHitData } from '../protocol/tokenlog';

/** Bytes read per record for its summary (header line + start of the payload). */
export const SUMMARY_PREFIX = 1536;
/** Decoded records kept for quick reopening, at most this many tokens in all. */
const CACHE_TOKENS = 400_000;

// The list's row, filter and sort travel to the webview as they are: one definition, in the protocol.
import type { Filter, Row, Sort, SortKey } from '../protocol/tokenlog';
export type RecordFilter = Filter;
export type SortSpec = Sort;
export type RecordRow = Row;
export type { SortKey };

/** A matching record: the protocol's SearchHitData (record, where, timeline, token, char). */
export type SearchHit = SearchHitData;

export class LogSession {
  readonly index: LogIndex;
  /** Records [0, summarized) have summaries. */
  summarized = 0;
  private readonly rows = new RecordRows();
  private cache = new Map<number, RecordResult>();
  private readonly cacheSize: number;
  /** Whole-record facts (counts included) per record, from the facts cache or a scan. */
  private facts: (RecordFacts | undefined)[] = [];
  private readonly factsCache?: FactsCache;
  /** What the facts cache said of each file when the session first opened (for tests and logs). */
  cacheOutcomes: CacheOutcome[] = [];

  /** `within`: the roots every file read must really lie in (core/fs/inside), for an agent's reads. */
  constructor(path: string, opts: { siblings?: boolean; cacheSize?: number; factsCache?: FactsCache; within?: readonly string[] } = {}) {
    this.index = new LogIndex(path, { siblings: opts.siblings, ...(opts.within ? { within: opts.within } : {}) });
    this.cacheSize = opts.cacheSize ?? 16;
    this.factsCache = opts.factsCache;
  }

  get count(): number {
    return this.index.count;
  }

  private clearFrom(i: number): void {
    this.summarized = Math.min(this.summarized, i);
    for (const key of [...this.cache.keys()]) if (key >= i) this.cache.delete(key);
    this.rows.clearFrom(i);
    this.facts.length = Math.min(this.facts.length, i);
  }

  /**
   * Indexes new bytes. Returns what changed; `firstNew` is the first record whose data may
   * differ from before (the previous last record is always re-read, it may have been partial).
   */
  async update(
    opts: UpdateOptions & { onRecords?: (count: number) => void } = {},
  ): Promise<{ change: 'unchanged' | 'grown' | 'reset'; firstNew: number }> {
    const first = this.factsCache !== undefined && this.index.files.length === 0;
    const seeded = first ? await this.seedFromCache() : undefined;
    const before = this.count;
    const change = await this.index.update(opts);
    const firstNew = change === 'reset' ? 0 : Math.max(0, Math.min(before, this.count) - 1);
    if (change !== 'unchanged') this.clearFrom(firstNew);
    this.rows.grow(this.count);
    if (seeded) await this.applySeeded(seeded);
    return { change, firstNew };
  }

  /**
   * Before the first indexing: the files of the group seeded from the facts cache (their record
   * index, and the facts of records the cache still vouches for). A file the cache does not
   * describe any more (replaced, truncated, rewritten) is read afresh.
   */
  private async seedFromCache(): Promise<Map<FileIndex, { facts: RecordFacts[]; resets: number }>> {
    const seeded = new Map<FileIndex, { facts: RecordFacts[]; resets: number }>();
    const files: FileIndex[] = [];
    for (const p of await this.index.discover()) {
      const f = new FileIndex(p, this.index.within);
      try {
        const r = await this.factsCache!.restore(f);
        this.cacheOutcomes.push(r.outcome);
        if (r.facts.length) seeded.set(f, { facts: r.facts, resets: f.resets });
      } catch {
        this.cacheOutcomes.push('miss');
      }
      files.push(f);
    }
    this.index.files = files;
    return seeded;
  }

  private async applySeeded(seeded: Map<FileIndex, { facts: RecordFacts[]; resets: number }>): Promise<void> {
    this.index.files.forEach((f, k) => {
      const s = seeded.get(f);
      // A file that changed under its cache entry while indexing was reset: its facts are void.
      if (!s || s.resets !== f.resets) return;
      const base = this.index.startOfFile(k);
      const n = Math.min(s.facts.length, f.count);
      for (let i = 0; i < n; i++) this.applyFacts(base + i, s.facts[i]!);
    });
    // A corrupt record still shows what its header says (as after a summary and a decode).
    for (let i = 0; i < this.count; i++) {
      const f = this.facts[i];
      if (f?.error === undefined) continue;
      await this.index.readPrefixes(i, i + 1, SUMMARY_PREFIX, (j, bytes) => {
        this.rows.setSummary(j, summarizePrefix(bytes));
        this.rows.setError(j, f.error!);
      });
    }
    // Summaries are done for the records with facts at the start of the group.
    let i = this.summarized;
    while (i < this.count && this.facts[i] !== undefined) i++;
    this.summarized = i;
  }

  private applyFacts(i: number, f: RecordFacts): void {
    this.facts[i] = f;
    if (f.error !== undefined) this.rows.setError(i, f.error);
    else this.rows.setWhole(i, f);
  }

  /** Records whose whole-record facts (token counts) are known. */
  get factsKnown(): number {
    let n = 0;
    for (let i = 0; i < this.count; i++) if (this.facts[i] !== undefined) n++;
    return n;
  }

  /**
   * Facts (token counts included) of every record that lacks them, scanned on worker threads,
   * then saved to the facts cache (when the session has one), so the next opening of the
   * unchanged file needs no scan at all. Cancellable; the unfinished last record is left out.
   */
  async computeFacts(
    opts: { signal?: AbortSignal; workers?: number; progress?: (done: number, total: number) => void } = {},
  ): Promise<void> {
    const tasks: RangeTask[] = [];
    for (let i = 0; i < this.count;) {
      if (this.facts[i] !== undefined) {
        i++;
        continue;
      }
      let j = i;
      while (j < this.count && this.facts[j] === undefined) j++;
      tasks.push(...planTasks(this.index, i, j));
      i = j;
    }
    const files = this.index.files.map((f) => ({ f, count: f.count, resets: f.resets }));
    if (tasks.length === 0) return;
    {
      await runTasks(
        tasks,
        { kind: 'facts' },
        (r, task) => {
          if (r.kind !== 'facts') return;
          r.facts.forEach((f, k) => this.applyFacts(task.first + k, f));
        },
        { signal: opts.signal, workers: opts.workers, progress: opts.progress },
      );
    }
    if (!this.factsCache) return;
    // Save only files the index still describes as they were when the scan started.
    for (let k = 0; k < this.index.files.length; k++) {
      const f = this.index.files[k]!;
      const then = files.find((x) => x.f === f);
      if (!then || then.count !== f.count || then.resets !== f.resets) continue;
      const base = this.index.startOfFile(k);
      const facts: RecordFacts[] = [];
      for (let i = 0; i < f.count; i++) {
        const x = this.facts[base + i];
        if (!x) break;
        facts.push(x);
      }
      if (facts.length < (f.tailPartial ? f.count - 1 : f.count)) continue;
      try {
        await this.factsCache.save(f, facts);
      } catch {
        // A read-only or full storage folder only costs speed.
      }
    }
  }

  /** Summaries for a few records out of order (the rows on screen while indexing goes on). */
  async summarizeSome(ids: number[]): Promise<void> {
    const todo = ids.filter((i) => i >= this.summarized && i < this.count && !this.rows.known(i));
    if (todo.length === 0) return;
    const from = Math.min(...todo),
      to = Math.max(...todo) + 1;
    if (to - from > 1024) return;
    this.rows.grow(to);
    await this.index.readPrefixes(from, to, SUMMARY_PREFIX, (i, bytes) => this.rows.setSummary(i, summarizePrefix(bytes)));
  }

  /**
   * Fills summaries of records [summarized, count) in batches; cancellable. A large log is read on
   * the pool's worker threads (the extension host's event loop only files the rows), a small one
   * here, asynchronously.
   */
  async summarize(opts: { signal?: AbortSignal; batch?: number; progress?: (done: number, total: number) => void } = {}): Promise<void> {
    if (this.summarized < this.count) {
      const tasks = planTasks(this.index, this.summarized, this.count);
      if (offThread(tasks)) {
        this.rows.grow(this.count);
        try {
          await runTasks(
            tasks,
            { kind: 'summaries', prefix: SUMMARY_PREFIX },
            (r, task) => {
              if (r.kind !== 'summaries') return;
              r.summaries.forEach((s, k) => this.rows.setSummary(task.first + k, s));
              // Tasks arrive in file order: every record before the end of this one has its summary.
              this.summarized = Math.max(this.summarized, task.first + r.summaries.length);
              opts.progress?.(this.summarized, this.count);
            },
            { signal: opts.signal },
          );
        } catch (err) {
          // A file replaced or cut meanwhile: what is there is read below (the next update resets).
          if (!(err instanceof FileChangedError)) throw err;
        }
      }
    }
    const batch = opts.batch ?? 512;
    while (this.summarized < this.count) {
      if (opts.signal?.aborted) throw new CancelledError();
      const from = this.summarized;
      const to = Math.min(this.count, from + batch);
      this.rows.grow(to);
      await this.index.readPrefixes(from, to, SUMMARY_PREFIX, (i, bytes) => this.rows.setSummary(i, summarizePrefix(bytes)), opts.signal);
      this.summarized = to;
      opts.progress?.(to, this.count);
    }
  }

  /** The record, decoded in full (cached). */
  async record(i: number): Promise<RecordResult | undefined> {
    const hit = this.cache.get(i);
    if (hit) {
      this.cache.delete(i);
      this.cache.set(i, hit);
      return hit;
    }
    const bytes = await this.index.readRecord(i);
    if (!bytes) return undefined;
    let r = decodeRecord(bytes);
    if (!r.ok && i === this.count - 1 && (this.index.tailPartial || r.error === 'record has no payload')) {
      r = { ok: false, error: `incomplete record: the file ends mid-record (still being written, or cut off): ${r.error}`, time: r.time };
    }
    if (!r.ok && r.error.startsWith(TOO_LARGE)) {
      // Where it is, as the whole-file reads say it (jobs.ts).
      const loc = this.index.locate(i);
      if (loc) r = { ...r, error: `${r.error} [record at byte ${loc.offset} of ${loc.file.path}]` };
    }
    this.note(i, r);
    this.cache.set(i, r);
    // Bound the cache by entries and by tokens: a few 100k-token records are already large.
    let tokens = 0;
    for (const v of this.cache.values()) tokens += v.ok ? countTokens(v.record).tokens : 0;
    while (this.cache.size > 1 && (this.cache.size > this.cacheSize || tokens > CACHE_TOKENS)) {
      const oldest = this.cache.keys().next().value!;
      const v = this.cache.get(oldest)!;
      tokens -= v.ok ? countTokens(v.record).tokens : 0;
      this.cache.delete(oldest);
    }
    return r;
  }

  /** Updates the row data of record i from a full decode. */
  private note(i: number, r: RecordResult): void {
    if (!r.ok) this.rows.setError(i, r.error);
    else this.rows.setWhole(i, { ...r.record, ...countTokens(r.record) });
  }

  row(i: number): RecordRow {
    return this.rows.row(i, this.index.time(i), i === this.count - 1 && this.index.tailPartial);
  }

  /** Distinct steps and outcomes seen in summaries (for filter choices). */
  facets(): { steps: [number, number] | undefined; outcomes: string[] } {
    return this.rows.facets(this.summarized);
  }

  /** Record numbers matching the summary filters (step, reward, outcome), sorted. */
  query(filter: RecordFilter = {}, sort: SortSpec = { key: 'index' }): number[] {
    return this.rows.query(this.count, filter, sort, (i) => this.index.time(i));
  }

  /**
   * Reports the candidates whose token text, title or task id contains `text` (case-insensitive,
   * on the decoded text), streamed; see sessionsearch.ts. Cancellable.
   */
  search(text: string, candidates: number[], opts: SearchOptions = {}): Promise<SearchHit[]> {
    return searchRecords(this.index, this.count, text, candidates, opts);
  }
}
