// One open log: the byte index plus per-record summaries (filled lazily in batches), cached
// decoded records, filtering, sorting and whole-file text search. Shared by the viewer, the CLI
// and the benchmark; no editor API here.
import { CancelledError, FileIndex, LogIndex, type UpdateOptions } from './index';
import { countTokens, decodeRecord, summarizePrefix, type RecordKind, type RecordResult } from './decode';
import { planTasks, runTasks } from './pool';
import { searchRecords, type SearchOptions } from './sessionsearch';
export { matchRecord } from './sessionsearch';
import type { RangeTask, RecordFacts } from './jobs';
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

const KINDS: RecordKind[] = ['tokens', 'table', 'text'];

export class LogSession {
  readonly index: LogIndex;
  /** Records [0, summarized) have summaries. */
  summarized = 0;
  private step = new Float64Array(0);
  private reward = new Float64Array(0);
  /** -1 until decoded in full. */
  private tokens = new Int32Array(0);
  private trained = new Int32Array(0);
  private timelines = new Int32Array(0);
  private kind = new Int8Array(0);
  private task: (string | undefined)[] = [];
  private title: (string | undefined)[] = [];
  private outcome: (string | undefined)[] = [];
  private error: (string | undefined)[] = [];
  private cache = new Map<number, RecordResult>();
  private readonly cacheSize: number;
  /** Whole-record facts (counts included) per record, from the facts cache or a scan. */
  private facts: (RecordFacts | undefined)[] = [];
  private readonly factsCache?: FactsCache;
  /** What the facts cache said of each file when the session first opened (for tests and logs). */
  cacheOutcomes: CacheOutcome[] = [];

  constructor(path: string, opts: { siblings?: boolean; cacheSize?: number; factsCache?: FactsCache } = {}) {
    this.index = new LogIndex(path, { siblings: opts.siblings });
    this.cacheSize = opts.cacheSize ?? 16;
    this.factsCache = opts.factsCache;
  }

  get count(): number {
    return this.index.count;
  }

  private grow(n: number): void {
    if (this.step.length >= n) return;
    const size = Math.max(n, this.step.length * 2, 256);
    const f64 = (old: Float64Array) => {
      const a = new Float64Array(size).fill(NaN);
      a.set(old);
      return a;
    };
    const i32 = (old: Int32Array) => {
      const a = new Int32Array(size).fill(-1);
      a.set(old);
      return a;
    };
    this.step = f64(this.step);
    this.reward = f64(this.reward);
    this.tokens = i32(this.tokens);
    this.trained = i32(this.trained);
    this.timelines = i32(this.timelines);
    const k = new Int8Array(size).fill(-1);
    k.set(this.kind);
    this.kind = k;
  }

  private clearFrom(i: number): void {
    this.summarized = Math.min(this.summarized, i);
    for (const key of [...this.cache.keys()]) if (key >= i) this.cache.delete(key);
    if (this.step.length > i) {
      this.step.fill(NaN, i);
      this.reward.fill(NaN, i);
      this.tokens.fill(-1, i);
      this.trained.fill(-1, i);
      this.timelines.fill(-1, i);
      this.kind.fill(-1, i);
    }
    this.task.length = Math.min(this.task.length, i);
    this.title.length = Math.min(this.title.length, i);
    this.outcome.length = Math.min(this.outcome.length, i);
    this.error.length = Math.min(this.error.length, i);
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
    this.grow(this.count);
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
      const f = new FileIndex(p);
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
        this.applySummary(j, summarizePrefix(bytes));
        this.error[j] = f.error;
      });
    }
    // Summaries are done for the records with facts at the start of the group.
    let i = this.summarized;
    while (i < this.count && this.facts[i] !== undefined) i++;
    this.summarized = i;
  }

  private applyFacts(i: number, f: RecordFacts): void {
    this.grow(i + 1);
    this.facts[i] = f;
    if (f.error !== undefined) {
      this.error[i] = f.error;
      return;
    }
    this.error[i] = undefined;
    this.tokens[i] = f.tokens;
    this.trained[i] = f.trained;
    this.timelines[i] = f.timelines;
    if (f.kind) this.kind[i] = KINDS.indexOf(f.kind);
    this.title[i] = f.title;
    this.task[i] = f.taskId;
    this.outcome[i] = f.outcome;
    if (f.step !== undefined) this.step[i] = f.step;
    if (f.reward !== undefined) this.reward[i] = f.reward;
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
    const todo = ids.filter((i) => i >= this.summarized && i < this.count && this.title[i] === undefined && this.error[i] === undefined);
    if (todo.length === 0) return;
    const from = Math.min(...todo),
      to = Math.max(...todo) + 1;
    if (to - from > 1024) return;
    this.grow(to);
    await this.index.readPrefixes(from, to, SUMMARY_PREFIX, (i, bytes) => this.applySummary(i, summarizePrefix(bytes)));
  }

  private applySummary(i: number, s: ReturnType<typeof summarizePrefix>): void {
    if (s.step !== undefined) this.step[i] = s.step;
    if (s.reward !== undefined) this.reward[i] = s.reward;
    this.task[i] = s.taskId;
    this.title[i] = s.title;
    this.outcome[i] = s.outcome;
    this.error[i] = s.error;
  }

  /** Fills summaries of records [summarized, count) in batches; cancellable. */
  async summarize(opts: { signal?: AbortSignal; batch?: number; progress?: (done: number, total: number) => void } = {}): Promise<void> {
    const batch = opts.batch ?? 512;
    while (this.summarized < this.count) {
      if (opts.signal?.aborted) throw new CancelledError();
      const from = this.summarized;
      const to = Math.min(this.count, from + batch);
      this.grow(to);
      await this.index.readPrefixes(from, to, SUMMARY_PREFIX, (i, bytes) => this.applySummary(i, summarizePrefix(bytes)), opts.signal);
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
    this.grow(i + 1);
    if (!r.ok) {
      this.error[i] = r.error;
      return;
    }
    const rec = r.record;
    const c = countTokens(rec);
    this.tokens[i] = c.tokens;
    this.trained[i] = c.trained;
    this.timelines[i] = c.timelines;
    this.kind[i] = KINDS.indexOf(rec.kind);
    this.error[i] = undefined;
    this.title[i] = rec.title;
    this.task[i] = rec.taskId;
    this.outcome[i] = rec.outcome;
    if (rec.step !== undefined) this.step[i] = rec.step;
    if (rec.reward !== undefined) this.reward[i] = rec.reward;
  }

  row(i: number): RecordRow {
    const r: RecordRow = { index: i };
    const t = this.index.time(i);
    if (t !== undefined) r.time = t;
    if (i < this.step.length) {
      if (!Number.isNaN(this.step[i]!)) r.step = this.step[i];
      if (!Number.isNaN(this.reward[i]!)) r.reward = this.reward[i];
      if (this.tokens[i]! >= 0) {
        r.tokens = this.tokens[i];
        r.trained = this.trained[i];
        r.timelines = this.timelines[i];
      }
      if (this.kind[i]! >= 0) r.kind = KINDS[this.kind[i]!];
    }
    if (this.title[i] !== undefined) r.title = this.title[i];
    if (this.task[i] !== undefined) r.taskId = this.task[i];
    if (this.outcome[i] !== undefined) r.outcome = this.outcome[i];
    if (this.error[i] !== undefined) r.error = this.error[i];
    if (i === this.count - 1 && this.index.tailPartial) r.partial = true;
    return r;
  }

  /** Distinct steps and outcomes seen in summaries (for filter choices). */
  facets(): { steps: [number, number] | undefined; outcomes: string[] } {
    let lo = Infinity,
      hi = -Infinity;
    const outcomes = new Set<string>();
    for (let i = 0; i < this.summarized; i++) {
      const s = this.step[i]!;
      if (!Number.isNaN(s)) {
        lo = Math.min(lo, s);
        hi = Math.max(hi, s);
      }
      const o = this.outcome[i];
      if (o !== undefined) outcomes.add(o);
    }
    return { steps: lo <= hi ? [lo, hi] : undefined, outcomes: [...outcomes].sort() };
  }

  /** Record numbers matching the summary filters (step, reward, outcome), sorted. */
  query(filter: RecordFilter = {}, sort: SortSpec = { key: 'index' }): number[] {
    const out: number[] = [];
    const n = this.count;
    for (let i = 0; i < n; i++) {
      const s = i < this.step.length ? this.step[i]! : NaN;
      const r = i < this.reward.length ? this.reward[i]! : NaN;
      if (filter.stepMin !== undefined && !(s >= filter.stepMin)) continue;
      if (filter.stepMax !== undefined && !(s <= filter.stepMax)) continue;
      if (filter.rewardMin !== undefined && !(r >= filter.rewardMin)) continue;
      if (filter.rewardMax !== undefined && !(r <= filter.rewardMax)) continue;
      if (filter.outcome !== undefined && filter.outcome !== '' && this.outcome[i] !== filter.outcome) continue;
      out.push(i);
    }
    if (sort.key !== 'index') {
      const dir = sort.desc ? -1 : 1;
      const val = (i: number): number | string => {
        switch (sort.key) {
          case 'step':
            return this.step[i]!;
          case 'reward':
            return this.reward[i]!;
          case 'tokens':
            return this.tokens[i]!;
          case 'time':
            return this.index.time(i) ?? NaN;
          case 'task':
            return this.task[i] ?? '';
          default:
            return i;
        }
      };
      out.sort((a, b) => {
        const x = val(a),
          y = val(b);
        // Unknown values go last in both directions.
        const xu = typeof x === 'number' && (Number.isNaN(x) || (x < 0 && sort.key === 'tokens'));
        const yu = typeof y === 'number' && (Number.isNaN(y) || (y < 0 && sort.key === 'tokens'));
        if (xu !== yu) return xu ? 1 : -1;
        if (x < y) return -dir;
        if (x > y) return dir;
        return a - b;
      });
    } else if (sort.desc) {
      out.reverse();
    }
    return out;
  }

  /**
   * Reports the candidates whose token text, title or task id contains `text` (case-insensitive,
   * on the decoded text), streamed; see sessionsearch.ts. Cancellable.
   */
  search(text: string, candidates: number[], opts: SearchOptions = {}): Promise<SearchHit[]> {
    return searchRecords(this.index, this.count, text, candidates, opts);
  }
}
